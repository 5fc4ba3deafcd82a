package io.tributary.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import io.tributary.broker.storage.ManualTime;
import org.junit.jupiter.api.Test;

class AclAuthorizerTest {

    private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final KafkaPrincipal ADMIN = new KafkaPrincipal("User", "admin");
    private static final InetAddress HOST = address("10.0.0.1");
    private static final InetAddress OTHER_HOST = address("10.0.0.2");

    private final AclAuthorizer authorizer = new AclAuthorizer(AuthorizerConfig.of(Set.of(ADMIN), false),
            new ManualTime());

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private void acl(ResourceType type, String name, PatternType patternType, String principal, String host,
                     AclOperation operation, AclPermissionType permission) {
        ResourcePattern pattern = new ResourcePattern(type, name, patternType);
        Set<AccessControlEntry> entries = new java.util.HashSet<>(authorizer.acls(pattern));
        entries.add(new AccessControlEntry(principal, host, operation, permission));
        authorizer.update(Map.of(pattern, entries));
    }

    private void allow(String topic, String principal, AclOperation operation) {
        acl(ResourceType.TOPIC, topic, PatternType.LITERAL, principal, "*", operation, AclPermissionType.ALLOW);
    }

    private boolean may(KafkaPrincipal principal, AclOperation operation, String topic) {
        return authorizer.authorize(principal, HOST, operation, ResourceType.TOPIC, topic);
    }

    @Test
    void aResourceWithoutAclsIsClosedUnlessAllowEveryoneIfNoAclFound() {
        assertFalse(may(ALICE, AclOperation.READ, "orders"));
        AclAuthorizer open = new AclAuthorizer(AuthorizerConfig.of(Set.of(), true), new ManualTime());
        assertTrue(open.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders"));
        open.update(Map.of(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL),
                Set.of(new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW))));
        assertFalse(open.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders"),
                "once a resource has an ACL, only the ACLs decide");
    }

    @Test
    void anAllowGrantsItsPrincipalItsOperationOnly() {
        allow("orders", "User:alice", AclOperation.WRITE);
        assertTrue(may(ALICE, AclOperation.WRITE, "orders"));
        assertFalse(may(ALICE, AclOperation.READ, "orders"));
        assertFalse(may(BOB, AclOperation.WRITE, "orders"));
        assertFalse(may(ALICE, AclOperation.WRITE, "payments"));
    }

    @Test
    void denyBeatsAllow() {
        allow("orders", "User:*", AclOperation.ALL);
        acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:bob", "*", AclOperation.WRITE,
                AclPermissionType.DENY);
        assertTrue(may(ALICE, AclOperation.WRITE, "orders"));
        assertFalse(may(BOB, AclOperation.WRITE, "orders"));
        assertTrue(may(BOB, AclOperation.READ, "orders"), "a DENY of Write leaves Read allowed");
    }

    @Test
    void aDenyOfAllOnTheWildcardTopicBeatsALiteralAllow() {
        allow("orders", "User:bob", AclOperation.READ);
        acl(ResourceType.TOPIC, "*", PatternType.LITERAL, "User:bob", "*", AclOperation.ALL, AclPermissionType.DENY);
        assertFalse(may(BOB, AclOperation.READ, "orders"));
    }

    @Test
    void prefixedPatternsMatchNamesThatStartWithThem() {
        acl(ResourceType.TOPIC, "sales-", PatternType.PREFIXED, "User:alice", "*", AclOperation.READ,
                AclPermissionType.ALLOW);
        assertTrue(may(ALICE, AclOperation.READ, "sales-eu"));
        assertTrue(may(ALICE, AclOperation.READ, "sales-"));
        assertFalse(may(ALICE, AclOperation.READ, "sales"));
        assertFalse(may(ALICE, AclOperation.READ, "presales-eu"));
    }

    @Test
    void theWildcardResourceAndWildcardPrincipalMatchEveryone() {
        allow("*", "User:*", AclOperation.DESCRIBE);
        assertTrue(may(BOB, AclOperation.DESCRIBE, "anything"));
        assertFalse(may(BOB, AclOperation.READ, "anything"));
    }

    @Test
    void readWriteDeleteAndAlterImplyDescribeAndAlterConfigsImpliesDescribeConfigs() {
        for (AclOperation operation : new AclOperation[] {AclOperation.READ, AclOperation.WRITE,
                AclOperation.DELETE, AclOperation.ALTER}) {
            String topic = "t-" + operation;
            allow(topic, "User:alice", operation);
            assertTrue(may(ALICE, AclOperation.DESCRIBE, topic), operation + " implies Describe");
            assertFalse(may(ALICE, AclOperation.DESCRIBE_CONFIGS, topic), operation + " does not imply DescribeConfigs");
        }
        allow("configs", "User:alice", AclOperation.ALTER_CONFIGS);
        assertTrue(may(ALICE, AclOperation.DESCRIBE_CONFIGS, "configs"));
        assertFalse(may(ALICE, AclOperation.DESCRIBE, "configs"));
        allow("all", "User:alice", AclOperation.ALL);
        for (AclOperation operation : new AclOperation[] {AclOperation.READ, AclOperation.WRITE,
                AclOperation.CREATE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE,
                AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS}) {
            assertTrue(may(ALICE, operation, "all"), "All covers " + operation);
        }
    }

    @Test
    void aDenyOfReadDoesNotDenyTheDescribeItWouldImply() {
        allow("orders", "User:alice", AclOperation.DESCRIBE);
        acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                AclPermissionType.DENY);
        assertTrue(may(ALICE, AclOperation.DESCRIBE, "orders"));
        assertFalse(may(ALICE, AclOperation.READ, "orders"));
    }

    @Test
    void hostsMustMatchUnlessTheAclSaysStar() {
        acl(ResourceType.TOPIC, "orders", PatternType.LITERAL, "User:alice", "10.0.0.1", AclOperation.READ,
                AclPermissionType.ALLOW);
        assertTrue(authorizer.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders"));
        assertFalse(authorizer.authorize(ALICE, OTHER_HOST, AclOperation.READ, ResourceType.TOPIC, "orders"));
    }

    @Test
    void superUsersMayDoEverythingEvenWhenDenied() {
        acl(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, "User:*", "*", AclOperation.ALL,
                AclPermissionType.DENY);
        assertTrue(authorizer.authorize(ADMIN, HOST, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                "kafka-cluster"));
        assertFalse(authorizer.authorize(ALICE, HOST, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                "kafka-cluster"));
    }

    @Test
    void resourceTypesAreSeparate() {
        acl(ResourceType.GROUP, "orders", PatternType.LITERAL, "User:alice", "*", AclOperation.READ,
                AclPermissionType.ALLOW);
        assertFalse(may(ALICE, AclOperation.READ, "orders"));
        assertTrue(authorizer.authorize(ALICE, HOST, AclOperation.READ, ResourceType.GROUP, "orders"));
    }

    @Test
    void removingAPatternsAclsRemovesThem() {
        allow("orders", "User:alice", AclOperation.READ);
        authorizer.update(Map.of(new ResourcePattern(ResourceType.TOPIC, "orders", PatternType.LITERAL), Set.of()));
        assertFalse(may(ALICE, AclOperation.READ, "orders"));
        assertEquals(0, authorizer.bindings().size());
    }

    @Test
    void anIdempotentProducerMayWriteSomeTopicWithAnyTopicWriteAllow() {
        assertFalse(authorizer.mayWriteSomeTopic(ALICE, HOST));
        acl(ResourceType.TOPIC, "orders-", PatternType.PREFIXED, "User:alice", "*", AclOperation.WRITE,
                AclPermissionType.ALLOW);
        assertTrue(authorizer.mayWriteSomeTopic(ALICE, HOST));
        assertFalse(authorizer.mayWriteSomeTopic(BOB, HOST));
        assertTrue(authorizer.mayWriteSomeTopic(ADMIN, HOST));
    }

    @Test
    void aDenialIsLoggedOncePerBurstInKafkasFormat() {
        ManualTime time = new ManualTime();
        AclAuthorizer logging = new AclAuthorizer(AuthorizerConfig.of(Set.of(), false), time);
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger)
                org.slf4j.LoggerFactory.getLogger("kafka.authorizer.logger");
        ch.qos.logback.classic.Level previous = logger.getLevel();
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> appender =
                new ch.qos.logback.core.read.ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
        try {
            for (int i = 0; i < 5; i++) {
                logging.authorize(BOB, HOST, AclOperation.READ, ResourceType.TOPIC, "orders");
            }
            assertEquals(1, appender.list.size());
            assertEquals("Principal = User:bob is Denied Operation = Read from host = 10.0.0.1 on resource = "
                    + "Topic:LITERAL:orders", appender.list.get(0).getFormattedMessage());
            assertEquals(ch.qos.logback.classic.Level.INFO, appender.list.get(0).getLevel());
            logging.authorize(BOB, HOST, AclOperation.WRITE, ResourceType.TOPIC, "orders");
            assertEquals(2, appender.list.size(), "another operation is another burst");
            time.advance(AclAuthorizer.DENIAL_LOG_INTERVAL_MS);
            logging.authorize(BOB, HOST, AclOperation.READ, ResourceType.TOPIC, "orders");
            assertEquals(3, appender.list.size(), "logged again after the interval");
        } finally {
            logger.detachAppender(appender);
            logger.setLevel(previous);
        }
    }

    @Test
    void configurationAcceptsKafkasAndTributarysClassNamesAndRefusesOthers() {
        assertFalse(AuthorizerConfig.parse(Map.of()).enabled());
        assertFalse(AuthorizerConfig.parse(Map.of("authorizer.class.name", "")).enabled());
        AuthorizerConfig kafka = AuthorizerConfig.parse(Map.of("authorizer.class.name",
                "kafka.security.authorizer.AclAuthorizer", "super.users", "User:admin;User:broker",
                "allow.everyone.if.no.acl.found", "true"));
        assertTrue(kafka.enabled());
        assertEquals(Set.of(ADMIN, new KafkaPrincipal("User", "broker")), kafka.superUsers());
        assertTrue(kafka.allowEveryoneIfNoAclFound());
        assertTrue(AuthorizerConfig.parse(Map.of("authorizer.class.name",
                "io.tributary.broker.security.AclAuthorizer")).enabled());
        ConfigException refused = assertThrows(ConfigException.class, () -> AuthorizerConfig.parse(Map.of(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")));
        assertTrue(refused.getMessage().contains("authorizer.class.name"), refused.getMessage());
        ConfigException badUser = assertThrows(ConfigException.class, () -> AuthorizerConfig.parse(Map.of(
                "authorizer.class.name", "kafka.security.authorizer.AclAuthorizer", "super.users", "admin")));
        assertTrue(badUser.getMessage().contains("super.users"), badUser.getMessage());
    }
}
