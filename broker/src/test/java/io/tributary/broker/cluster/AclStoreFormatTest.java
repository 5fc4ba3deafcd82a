package io.tributary.broker.cluster;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashSet;
import java.util.Set;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class AclStoreFormatTest {

    @Test
    void znodesAreWhereKafkasZooKeeperModePutThem() {
        assertEquals("/kafka-acl/Topic/orders",
                AclStore.path(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL)));
        assertEquals("/kafka-acl-extended/prefixed/TransactionalId/tx-",
                AclStore.path(new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "tx-", PatternType.PREFIXED)));
        assertEquals(new ResourcePattern(ResourceType.GROUP, "g", PatternType.LITERAL),
                AclStore.patternOf("/kafka-acl/Group/g"));
        assertEquals(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                AclStore.patternOf("/kafka-acl/Cluster/kafka-cluster"));
        assertEquals(new ResourcePattern(ResourceType.TOPIC, "sales-", PatternType.PREFIXED),
                AclStore.patternOf("/kafka-acl-extended/prefixed/Topic/sales-"));
        assertNull(AclStore.patternOf("/kafka-acl/Topic"));
        assertNull(AclStore.patternOf("/kafka-acl-extended/prefixed"));
    }

    @Test
    void everyOperationAndPermissionSurvivesTheZnodeJson() {
        Set<AccessControlEntry> entries = new LinkedHashSet<>();
        for (AclOperation operation : AclOperation.values()) {
            if (operation != AclOperation.ANY && operation != AclOperation.UNKNOWN) {
                entries.add(new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW));
                entries.add(new AccessControlEntry("User:bob", "10.0.0.1", operation, AclPermissionType.DENY));
            }
        }
        assertEquals(entries, AclStore.parse(AclStore.json(entries)));
    }

    @Test
    void readsTheJsonKafkaWrote() {
        String kafka = "{\"version\":1,\"acls\":[{\"principal\":\"User:alice\",\"permissionType\":\"Allow\","
                + "\"operation\":\"IdempotentWrite\",\"host\":\"*\"},{\"principal\":\"User:bob\","
                + "\"permissionType\":\"Deny\",\"operation\":\"DescribeConfigs\",\"host\":\"1.2.3.4\"}]}";
        assertEquals(Set.of(
                new AccessControlEntry("User:alice", "*", AclOperation.IDEMPOTENT_WRITE, AclPermissionType.ALLOW),
                new AccessControlEntry("User:bob", "1.2.3.4", AclOperation.DESCRIBE_CONFIGS, AclPermissionType.DENY)),
                AclStore.parse(kafka.getBytes(UTF_8)));
        assertTrue(new String(AclStore.json(Set.of(new AccessControlEntry("User:alice", "*",
                AclOperation.CLUSTER_ACTION, AclPermissionType.ALLOW))), UTF_8)
                .contains("\"permissionType\":\"Allow\",\"operation\":\"ClusterAction\""));
    }

    @Test
    void namesZooKeeperCannotHoldAreNotStorable() {
        assertTrue(AclStore.isStorable(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL)));
        assertFalse(AclStore.isStorable(new ResourcePattern(ResourceType.GROUP, "a/b", PatternType.LITERAL)));
        assertFalse(AclStore.isStorable(new ResourcePattern(ResourceType.GROUP, "a\u0001b", PatternType.LITERAL)));
        assertFalse(AclStore.isStorable(new ResourcePattern(ResourceType.GROUP, "..", PatternType.LITERAL)));
    }
}
