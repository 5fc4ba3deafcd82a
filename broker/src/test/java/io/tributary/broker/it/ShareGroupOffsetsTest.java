package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.TributaryClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The share-group offset admin APIs (KIP-932) against one real broker, through the official Admin client and
 * {@code KafkaShareConsumer}: listShareGroupOffsets after consuming, alterShareGroupOffsets on an empty group (seen by
 * the share-partition leader that had the old state, on the same broker), deleteShareGroupOffsets and
 * deleteShareGroups (a later consumer starts per {@code share.auto.offset.reset}), and the errors for a group with
 * members, an unknown group and an unknown topic. Each test has a group and a topic of its own.
 */
class ShareGroupOffsetsTest {

    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker(
            "group.share.min.session.timeout.ms", "1000", "group.share.min.heartbeat.interval.ms", "500");

    private Admin admin;

    @BeforeEach
    void connect() {
        admin = cluster.admin();
    }

    @AfterEach
    void disconnect() {
        admin.close();
    }

    @Test
    void listedStartOffsetAdvancesWithAcceptedRecordsAndTheLagIsWhatIsLeft() throws Exception {
        String topic = "offsets-list";
        String group = "offsets-list-group";
        prepare(topic, group, 10);
        consumeAndClose(group, topic, 10);
        awaitEmpty(group);

        produce(topic, 4, "more");
        TopicPartition tp = new TopicPartition(topic, 0);
        SharePartitionOffsetInfo info = offsets(group).get(tp);
        assertEquals(10, info.startOffset(), () -> "offsets: " + info);
        assertEquals(Optional.of(4L), info.lag(), "14 records, 10 accepted");
        assertTrue(info.leaderEpoch().isPresent());

        Map<TopicPartition, SharePartitionOffsetInfo> asked = admin.listShareGroupOffsets(Map.of(group,
                new ListShareGroupOffsetsSpec().topicPartitions(List.of(tp)))).partitionsToOffsetInfo(group).get();
        assertEquals(10, asked.get(tp).startOffset());
    }

    @Test
    void alteringAnEmptyGroupToAnEarlierOffsetRedeliversFromThereOnTheSameLeader() throws Exception {
        String topic = "offsets-alter";
        String group = "offsets-alter-group";
        prepare(topic, group, 10);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), consumeAndClose(group, topic, 10));
        awaitEmpty(group);

        TopicPartition tp = new TopicPartition(topic, 0);
        admin.alterShareGroupOffsets(group, Map.of(tp, 3L)).all().get();
        assertEquals(3, offsets(group).get(tp).startOffset());

        // The broker led the share-partition with start offset 10: the consumer must get 3.. again.
        assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L, 9L), consumeAndClose(group, topic, 7));
        awaitEmpty(group);
        assertEquals(10, offsets(group).get(tp).startOffset());
    }

    @Test
    void alteringAGroupThatDoesNotExistCreatesItWithThatStart() throws Exception {
        String topic = "offsets-new";
        String group = "offsets-new-group";
        prepare(topic, group, 10);
        TopicPartition tp = new TopicPartition(topic, 0);

        admin.alterShareGroupOffsets(group, Map.of(tp, 7L)).all().get();
        assertEquals(7, offsets(group).get(tp).startOffset());
        assertEquals(GroupState.EMPTY, admin.describeShareGroups(List.of(group)).describedGroups().get(group).get()
                .groupState());
        assertEquals(List.of(7L, 8L, 9L), consumeAndClose(group, topic, 3));
    }

    @Test
    void deletedOffsetsStartAgainPerAutoOffsetReset() throws Exception {
        String topic = "offsets-delete";
        String group = "offsets-delete-group";
        prepare(topic, group, 5);
        consumeAndClose(group, topic, 5);
        awaitEmpty(group);
        TopicPartition tp = new TopicPartition(topic, 0);
        assertEquals(5, offsets(group).get(tp).startOffset());

        admin.deleteShareGroupOffsets(group, Set.of(topic)).all().get();
        assertNull(offsets(group).get(tp), "no share state is listed after deletion");

        // share.auto.offset.reset=earliest: everything again.
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), consumeAndClose(group, topic, 5));
    }

    @Test
    void aDeletedShareGroupCreatedAgainStartsAfresh() throws Exception {
        String topic = "offsets-regroup";
        String group = "offsets-regroup-group";
        prepare(topic, group, 5);
        consumeAndClose(group, topic, 5);
        awaitEmpty(group);

        admin.deleteShareGroups(List.of(group)).all().get();
        ExecutionException gone = assertThrows(ExecutionException.class,
                () -> admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo(group).get());
        assertInstanceOf(GroupIdNotFoundException.class, gone.getCause());

        setEarliest(group);
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), consumeAndClose(group, topic, 5));
    }

    @Test
    void offsetsOfAGroupWithMembersCannotBeAlteredOrDeleted() throws Exception {
        String topic = "offsets-busy";
        String group = "offsets-busy-group";
        prepare(topic, group, 3);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of(topic));
            List<Long> got = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> got.add(record.offset()));
                assertEquals(3, got.size());
            });
            ExecutionException alter = assertThrows(ExecutionException.class,
                    () -> admin.alterShareGroupOffsets(group, Map.of(tp, 0L)).all().get());
            assertInstanceOf(GroupNotEmptyException.class, alter.getCause());
            ExecutionException delete = assertThrows(ExecutionException.class,
                    () -> admin.deleteShareGroupOffsets(group, Set.of(topic)).all().get());
            assertInstanceOf(GroupNotEmptyException.class, delete.getCause());
        }
    }

    @Test
    void unknownGroupsAndTopicsAreAnsweredWithTheirErrors() throws Exception {
        String topic = "offsets-errors";
        String group = "offsets-errors-group";
        prepare(topic, group, 1);

        ExecutionException list = assertThrows(ExecutionException.class,
                () -> admin.listShareGroupOffsets(Map.of("no-such-group", new ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo("no-such-group").get());
        assertInstanceOf(GroupIdNotFoundException.class, list.getCause());
        ExecutionException delete = assertThrows(ExecutionException.class,
                () -> admin.deleteShareGroupOffsets("no-such-group", Set.of(topic)).all().get());
        assertInstanceOf(GroupIdNotFoundException.class, delete.getCause());

        ExecutionException alter = assertThrows(ExecutionException.class, () -> admin.alterShareGroupOffsets(group,
                Map.of(new TopicPartition("no-such-topic", 0), 0L)).all().get());
        assertInstanceOf(UnknownTopicOrPartitionException.class, alter.getCause());
        ExecutionException partition = assertThrows(ExecutionException.class, () -> admin.alterShareGroupOffsets(
                group, Map.of(new TopicPartition(topic, 5), 0L)).all().get());
        assertInstanceOf(UnknownTopicOrPartitionException.class, partition.getCause());

        // The broker is still serving.
        admin.alterShareGroupOffsets(group, Map.of(new TopicPartition(topic, 0), 0L)).all().get();
        assertEquals(0, offsets(group).get(new TopicPartition(topic, 0)).startOffset());
    }

    // ---------------------------------------------------------------------------------------------------------

    private void prepare(String topic, String group, int records) throws Exception {
        cluster.createTopic(topic, 1);
        setEarliest(group);
        produce(topic, records, "job");
    }

    private void setEarliest(String group) throws Exception {
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                        AlterConfigOp.OpType.SET)))).all().get();
    }

    private void produce(String topic, int count, String prefix) {
        try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, prefix + "-" + i));
            }
        }
    }

    private Map<TopicPartition, SharePartitionOffsetInfo> offsets(String group) throws Exception {
        return admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                .partitionsToOffsetInfo(group).get();
    }

    private void awaitEmpty(String group) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertEquals(GroupState.EMPTY,
                admin.describeShareGroups(List.of(group)).describedGroups().get(group).get().groupState()));
    }

    /** Receives {@code count} records (accepting them), then closes the consumer; the offsets received, in order. */
    private List<Long> consumeAndClose(String group, String topic, int count) {
        List<Long> offsets = new ArrayList<>();
        try (KafkaShareConsumer<String, String> consumer = consumer(group)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    if (offsets.size() < count) {
                        offsets.add(record.offset());
                    }
                }
                consumer.commitSync();
                assertEquals(count, offsets.size(), () -> "offsets received: " + offsets);
            });
        }
        return offsets;
    }

    private KafkaShareConsumer<String, String> consumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        return new KafkaShareConsumer<>(props);
    }
}
