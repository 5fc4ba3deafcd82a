package io.tributary.broker.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.TopicDeletionDisabledException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.tributary.broker.cluster.ClusterTestSupport.TIMEOUT;
import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.data;
import static io.tributary.broker.cluster.ClusterTestSupport.exists;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kafka's validation and the ZooKeeper writes of topic administration, on two live brokers. */
class TopicAdminTest extends ZooKeeperTestBase {

    private ClusterManager one;
    private ClusterManager two;
    private TopicAdmin admin;

    @BeforeEach
    void startTwoBrokers() {
        one = startBroker(config(1, connect, dir, "num.partitions", "3", "default.replication.factor", "2"));
        two = startBroker(config(2, connect, dir));
        await("both brokers known to broker 1").until(() -> one.metadataCache().snapshot().brokers().size() == 2);
        admin = one.topicAdmin();
    }

    @AfterEach
    void stopBrokers() {
        one.close();
        two.close();
    }

    @Test
    void topicIsWrittenWithIdAssignmentAndOverrides() throws Exception {
        TopicAdmin.CreatedTopic created = admin.createTopic("orders", 4, 2, null, Map.of("retention.ms", "3600000"),
                false);
        assertEquals(4, created.partitionCount());
        assertEquals(2, created.replicationFactor());
        String topic = data(inspector, chroot + "/brokers/topics/orders");
        assertTrue(topic.contains("\"topic_id\":\"" + created.topicId() + "\""), topic);
        assertEquals("{\"version\":1,\"config\":{\"retention.ms\":\"3600000\"}}",
                data(inspector, chroot + "/config/topics/orders"));
        admin.whenPartitionStatesWritten("orders", 4).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        TopicMetadata seenByTwo = two.metadataCache().when(s -> s.topic("orders").isPresent())
                .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).topic("orders").orElseThrow();
        assertEquals(created.topicId(), seenByTwo.topicId());
    }

    @Test
    void minusOneMeansTheBrokerDefaults() {
        TopicAdmin.CreatedTopic created = admin.createTopic("defaults", TopicAdmin.USE_DEFAULT,
                TopicAdmin.USE_DEFAULT, null, null, false);
        assertEquals(3, created.partitionCount());
        assertEquals(2, created.replicationFactor());
    }

    @Test
    void validateOnlyWritesNothing() {
        TopicAdmin.CreatedTopic created = admin.createTopic("dry", 2, 1, null, Map.of(), true);
        assertEquals(2, created.partitionCount());
        assertFalse(exists(inspector, chroot + "/brokers/topics/dry"));
        assertFalse(exists(inspector, chroot + "/config/topics/dry"));
    }

    @Test
    void illegalNamesAreInvalidTopics() {
        for (String name : List.of("", ".", "..", "a".repeat(250), "bad name", "bad/name")) {
            assertThrows(InvalidTopicException.class, () -> admin.createTopic(name, 1, 1, null, Map.of(), false),
                    name);
        }
        admin.createTopic("a_b", 1, 1, null, Map.of(), false);
        assertThrows(InvalidTopicException.class, () -> admin.createTopic("a.b", 1, 1, null, Map.of(), false));
    }

    @Test
    void existingTopicIsTopicExists() {
        admin.createTopic("twice", 1, 1, null, Map.of(), false);
        TopicExistsException e = assertThrows(TopicExistsException.class,
                () -> two.topicAdmin().createTopic("twice", 1, 1, null, Map.of(), false));
        assertEquals("Topic 'twice' already exists.", e.getMessage());
    }

    @Test
    void badCountsAreRefusedWithKafkasErrors() {
        assertThrows(InvalidPartitionsException.class, () -> admin.createTopic("t", 0, 1, null, Map.of(), false));
        assertThrows(InvalidReplicationFactorException.class,
                () -> admin.createTopic("t", 1, 0, null, Map.of(), false));
        InvalidReplicationFactorException tooMany = assertThrows(InvalidReplicationFactorException.class,
                () -> admin.createTopic("t", 1, 3, null, Map.of(), false));
        assertEquals("Replication factor: 3 larger than available brokers: 2.", tooMany.getMessage());
        assertThrows(InvalidRequestException.class,
                () -> admin.createTopic("t", 1, TopicAdmin.USE_DEFAULT, Map.of(0, List.of(1)), Map.of(), false));
        assertFalse(exists(inspector, chroot + "/brokers/topics/t"));
    }

    /**
     * Found by the protocol fuzzer: a CreateTopics whose partition count was mutated to 0x7f000001 made the broker
     * build an assignment of two billion partitions and run out of heap. Kafka's limit, Kafka's error.
     */
    @Test
    void moreThanTenThousandPartitionsAtOnceArePolicyViolations() {
        for (int count : new int[] {TopicAdmin.MAX_PARTITIONS_PER_REQUEST + 1, 0x7f000001, Integer.MAX_VALUE}) {
            PolicyViolationException e = assertThrows(PolicyViolationException.class,
                    () -> admin.createTopic("huge", count, 1, null, Map.of(), false));
            assertTrue(e.getMessage().startsWith("Excessively large number of partitions per request"),
                    e.getMessage());
        }
        assertFalse(exists(inspector, chroot + "/brokers/topics/huge"));
        int limit = TopicAdmin.MAX_PARTITIONS_PER_REQUEST;
        assertEquals(limit, admin.createTopic("large", limit, 1, null, Map.of(), true).partitionCount(),
                "the limit itself is allowed");

        admin.createTopic("grown", 1, 1, null, Map.of(), false);
        assertThrows(PolicyViolationException.class, () -> admin.createPartitions("grown", Integer.MAX_VALUE, null,
                false));
        assertThrows(PolicyViolationException.class, () -> admin.createPartitions("grown",
                TopicAdmin.MAX_PARTITIONS_PER_REQUEST + 2, null, false));
        assertThrows(PolicyViolationException.class, () -> admin.createPartitions("grown", 5, null, false, 3),
                "what an earlier topic of the request left: 3 more");
        assertEquals(3, admin.createPartitions("grown", 4, null, true, 3).size());
    }

    @Test
    void badExplicitAssignmentsAreInvalidReplicaAssignments() {
        int d = TopicAdmin.USE_DEFAULT;
        List<Map<Integer, List<Integer>>> bad = List.of(
                Map.of(0, List.of(1), 2, List.of(2)),           // gap
                Map.of(1, List.of(1)),                          // not from 0
                Map.of(0, List.of(1, 1)),                       // duplicate
                Map.of(0, List.of(1, 2), 1, List.of(2)),        // unequal replication factors
                Map.of(0, List.of(1, 7)),                       // unknown broker
                Map.of(0, List.of()));                          // no replicas
        for (Map<Integer, List<Integer>> assignment : bad) {
            assertThrows(InvalidReplicaAssignmentException.class,
                    () -> admin.createTopic("t", d, d, assignment, Map.of(), false), assignment.toString());
        }
    }

    @Test
    void invalidConfigsAreRefusedNamingTheProperty() {
        InvalidConfigurationException badValue = assertThrows(InvalidConfigurationException.class,
                () -> admin.createTopic("t", 1, 1, null, Map.of("retention.ms", "soon"), false));
        assertTrue(badValue.getMessage().contains("retention.ms"), badValue.getMessage());
        InvalidConfigurationException unknown = assertThrows(InvalidConfigurationException.class,
                () -> admin.createTopic("t", 1, 1, null, Map.of("retention.parsecs", "1"), false));
        assertTrue(unknown.getMessage().contains("retention.parsecs"), unknown.getMessage());
        Map<String, String> withNull = new HashMap<>();
        withNull.put("retention.ms", null);
        assertThrows(InvalidConfigurationException.class,
                () -> admin.createTopic("t", 1, 1, null, withNull, false));
        assertFalse(exists(inspector, chroot + "/brokers/topics/t"));
    }

    @Test
    void configOverridesRoundTripAndBadOnesChangeNothing() {
        admin.createTopic("tuned", 1, 1, null, Map.of("retention.ms", "1000"), false);
        assertEquals(Map.of("retention.ms", "1000"), admin.topicConfig("tuned"));

        Map<String, String> after = admin.alterTopicConfig("tuned", overrides -> {
            overrides.remove("retention.ms");
            overrides.put("cleanup.policy", "compact");
            overrides.put("segment.bytes", "1048576");
            return overrides;
        }, false);
        assertEquals(Map.of("cleanup.policy", "compact", "segment.bytes", "1048576"), after);
        assertEquals(after, two.topicAdmin().topicConfig("tuned"));
        await("the metadata shows the new overrides").until(
                () -> after.equals(two.metadataCache().snapshot().topic("tuned").orElseThrow().configOverrides()));

        InvalidConfigurationException e = assertThrows(InvalidConfigurationException.class,
                () -> admin.alterTopicConfig("tuned", overrides -> Map.of("cleanup.policy", "shred"), false));
        assertTrue(e.getMessage().contains("cleanup.policy"), e.getMessage());
        assertEquals(after, admin.topicConfig("tuned"));

        assertEquals(Map.of(), admin.alterTopicConfig("tuned", overrides -> Map.of(), true));
        assertEquals(after, admin.topicConfig("tuned"), "validateOnly wrote nothing");
        assertThrows(UnknownTopicOrPartitionException.class, () -> admin.topicConfig("nope"));
        assertThrows(UnknownTopicOrPartitionException.class,
                () -> admin.alterTopicConfig("nope", overrides -> overrides, false));
    }

    @Test
    void createPartitionsAddsPartitionsThatGetStates() throws Exception {
        admin.createTopic("growing", 2, 2, null, Map.of(), false);
        admin.whenPartitionStatesWritten("growing", 2).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        SortedMap<Integer, List<Integer>> added = admin.createPartitions("growing", 4, null, false);
        assertEquals(List.of(2, 3), List.copyOf(added.keySet()));
        added.values().forEach(replicas -> assertEquals(2, replicas.size()));
        admin.whenPartitionStatesWritten("growing", 4).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

        SortedMap<Integer, List<Integer>> explicit = admin.createPartitions("growing", 5, List.of(List.of(2, 1)),
                false);
        assertEquals(List.of(2, 1), explicit.get(4));
        admin.whenPartitionStatesWritten("growing", 5).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        TopicMetadata topic = one.metadataCache().snapshot().topic("growing").orElseThrow();
        assertEquals(2, topic.partitions().get(4).leader());

        InvalidPartitionsException fewer = assertThrows(InvalidPartitionsException.class,
                () -> admin.createPartitions("growing", 3, null, false));
        assertEquals("Topic currently has 5 partitions, which is higher than the requested 3.", fewer.getMessage());
        assertThrows(InvalidPartitionsException.class, () -> admin.createPartitions("growing", 5, null, false));
        assertThrows(InvalidReplicaAssignmentException.class,
                () -> admin.createPartitions("growing", 7, List.of(List.of(1, 2)), false));
        assertThrows(InvalidReplicaAssignmentException.class,
                () -> admin.createPartitions("growing", 6, List.of(List.of(1)), false));
        assertThrows(UnknownTopicOrPartitionException.class, () -> admin.createPartitions("nope", 2, null, false));
        assertEquals(1, admin.createPartitions("growing", 6, null, true).size());
        assertEquals(5, one.metadataCache().snapshot().topic("growing").orElseThrow().partitionCount(),
                "validateOnly wrote nothing");
    }

    @Test
    void deletingAnUnknownTopicIsUnknownTopicOrPartition() {
        assertThrows(UnknownTopicOrPartitionException.class, () -> admin.deleteTopic("nope"));
    }

    /**
     * Found by the protocol fuzzer: a CreatePartitions for "fuzz-grow\0" reached ZooKeeper as a path, whose check
     * threw; the client got UNKNOWN_SERVER_ERROR and the broker logged an ERROR for a client's mistake.
     */
    @Test
    void namesNoTopicCanHaveAreUnknownTopicsWithoutReachingZooKeeper() {
        for (String name : List.of("fuzz-grow\u0000", "\u00ffzz-grown", "a/b", "..", "", "a".repeat(250))) {
            assertThrows(UnknownTopicOrPartitionException.class, () -> admin.createPartitions(name, 2, null, false),
                    name);
            assertThrows(UnknownTopicOrPartitionException.class, () -> admin.deleteTopic(name), name);
            assertThrows(UnknownTopicOrPartitionException.class, () -> admin.topicConfig(name), name);
            assertThrows(UnknownTopicOrPartitionException.class,
                    () -> admin.alterTopicConfig(name, current -> current, false), name);
        }
    }

    @Test
    void deletionIsRefusedWhenDisabled() {
        try (ClusterManager strict = startBroker(config(3, connect, dir, "delete.topic.enable", "false"))) {
            admin.createTopic("kept", 1, 1, null, Map.of(), false);
            assertThrows(TopicDeletionDisabledException.class, () -> strict.topicAdmin().deleteTopic("kept"));
            assertTrue(exists(inspector, chroot + "/brokers/topics/kept"));
            assertFalse(exists(inspector, chroot + "/admin/delete_topics/kept"));
        }
    }
}
