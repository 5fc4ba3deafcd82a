package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The partition side of transactions against a real broker, without a transaction coordinator: transactional batches
 * are produced by hand (raw Produce with a transactional id), ended with {@code Admin.abortTransaction} (which sends
 * WriteTxnMarkers to the partition's leader) or a raw WriteTxnMarkers COMMIT, and read with the official consumer in
 * both isolation levels.
 */
class TransactionalDataPathTest {

    private static final long PRODUCER_A = 5_000L;
    private static final long PRODUCER_B = 6_000L;

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private Admin admin;
    private int correlationId;

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @BeforeEach
    void openAdmin() {
        admin = Clients.admin(broker.bootstrapServers());
    }

    @AfterEach
    void closeAdmin() {
        admin.close(Duration.ofSeconds(5));
    }

    @Test
    void readCommittedSkipsAbortedRecordsAndStopsAtAnOpenTransaction() throws Exception {
        broker.createTopic("ledger", 1);
        TopicPartition tp = new TopicPartition("ledger", 0);
        produce(tp, null, MemoryRecords.withRecords(Compression.NONE, records("plain-0", "plain-1"))); // 0-1
        produce(tp, "tx-a", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_A, (short) 0, 0,
                records("a-0", "a-1")));                                                                   // 2-3
        produce(tp, "tx-b", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_B, (short) 3, 0,
                records("b-0")));                                                                          // 4

        assertEquals(2, latest(tp, IsolationLevel.READ_COMMITTED), "the LSO: A's first offset");
        assertEquals(5, latest(tp, IsolationLevel.READ_UNCOMMITTED));
        Map<Long, ProducerState> producers = describeProducers(tp);
        assertEquals(2L, producers.get(PRODUCER_A).currentTransactionStartOffset().getAsLong());
        assertEquals(4L, producers.get(PRODUCER_B).currentTransactionStartOffset().getAsLong());

        try (KafkaConsumer<String, String> committed = consumer("read_committed")) {
            committed.assign(List.of(tp));
            List<String> seen = new ArrayList<>();
            pollUntilPosition(committed, tp, 2, seen);
            assertEquals(List.of("plain-0", "plain-1"), seen);

            admin.abortTransaction(new AbortTransactionSpec(tp, PRODUCER_A, (short) 0, 5)).all().get();  // marker 5
            assertEquals(4, latest(tp, IsolationLevel.READ_COMMITTED), "the LSO: B's first offset");
            pollUntilPosition(committed, tp, 4, seen);
            assertEquals(List.of("plain-0", "plain-1"), seen, "A's aborted records are skipped");

            assertEquals(Errors.NONE, writeMarker(tp, PRODUCER_B, (short) 3, true, 0));                  // marker 6
            assertEquals(7, latest(tp, IsolationLevel.READ_COMMITTED));
            pollUntilPosition(committed, tp, 7, seen);
            assertEquals(List.of("plain-0", "plain-1", "b-0"), seen);
        }
        try (KafkaConsumer<String, String> uncommitted = consumer("read_uncommitted")) {
            uncommitted.assign(List.of(tp));
            List<String> seen = new ArrayList<>();
            pollUntilPosition(uncommitted, tp, 7, seen);
            assertEquals(List.of("plain-0", "plain-1", "a-0", "a-1", "b-0"), seen);
        }
        assertEquals(-1L, describeProducers(tp).get(PRODUCER_A).currentTransactionStartOffset().orElse(-1L));
    }

    @Test
    void fencedMarkersAreRefusedPerPartition() throws Exception {
        broker.createTopic("fenced", 1);
        TopicPartition tp = new TopicPartition("fenced", 0);
        produce(tp, "tx-a", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_A, (short) 2, 0,
                records("a-0")));

        assertEquals(Errors.INVALID_PRODUCER_EPOCH, writeMarker(tp, PRODUCER_A, (short) 1, false, 0));
        assertEquals(Errors.NONE, writeMarker(tp, PRODUCER_A, (short) 2, false, 9));
        assertEquals(Errors.TRANSACTION_COORDINATOR_FENCED, writeMarker(tp, PRODUCER_A, (short) 2, false, 8));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                writeMarker(new TopicPartition("fenced", 7), PRODUCER_A, (short) 2, false, 9));
        // A non-transactional batch during a transaction is refused.
        produce(tp, "tx-b", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_B, (short) 0, 0,
                records("b-0")));
        assertEquals(Errors.INVALID_TXN_STATE, produceError(tp, null,
                MemoryRecords.withIdempotentRecords(Compression.NONE, PRODUCER_B, (short) 0, 1, records("b-1"))));
    }

    @Test
    void abortedTransactionsAreStillSkippedAfterARestart() throws Exception {
        broker.createTopic("durable", 1);
        TopicPartition tp = new TopicPartition("durable", 0);
        produce(tp, "tx-a", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_A, (short) 0, 0,
                records("a-0", "a-1")));                                                                   // 0-1
        admin.abortTransaction(new AbortTransactionSpec(tp, PRODUCER_A, (short) 0, 1)).all().get();        // 2
        produce(tp, null, MemoryRecords.withRecords(Compression.NONE, records("after")));                 // 3
        produce(tp, "tx-b", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_B, (short) 0, 0,
                records("b-0")));                                                                          // 4

        admin.close(Duration.ofSeconds(5));
        broker.restart();
        admin = Clients.admin(broker.bootstrapServers());

        await("the partition led again").untilAsserted(
                () -> assertEquals(4, latest(tp, IsolationLevel.READ_COMMITTED), "B is still open"));
        try (KafkaConsumer<String, String> committed = consumer("read_committed")) {
            committed.assign(List.of(tp));
            List<String> seen = new ArrayList<>();
            pollUntilPosition(committed, tp, 4, seen);
            assertEquals(List.of("after"), seen);
        }
        assertEquals(4L, describeProducers(tp).get(PRODUCER_B).currentTransactionStartOffset().getAsLong());
    }

    @Test
    void aReadCommittedLongPollIsAnsweredWhenTheMarkerMovesTheLastStableOffset() throws Exception {
        broker.createTopic("waiting", 1);
        TopicPartition tp = new TopicPartition("waiting", 0);
        produce(tp, "tx-a", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_A, (short) 0, 0,
                records("a-0")));
        // The broker may hold each fetch for 25 s: only the marker's wake-up delivers the record within the deadline.
        KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "25000",
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "40000");
        try {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertTrue(consumer.poll(Duration.ofMillis(500)).isEmpty(), "nothing below the LSO yet");

            assertEquals(Errors.NONE, writeMarker(tp, PRODUCER_A, (short) 0, true, 0));

            List<String> seen = new ArrayList<>();
            await(Duration.ofSeconds(10)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> seen.add(record.value()));
                assertEquals(List.of("a-0"), seen);
            });
        } finally {
            // Its next fetch is held by the broker for up to 25 s; do not wait for it.
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofMillis(100)));
        }
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        return Clients.consumer(broker.bootstrapServers(), ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
    }

    /** Polls until the consumer's position reaches {@code position}, collecting the values it receives. */
    private static void pollUntilPosition(KafkaConsumer<String, String> consumer, TopicPartition tp, long position,
                                          List<String> seen) {
        await("position " + position + " of " + tp).untilAsserted(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                seen.add(record.value());
            }
            assertEquals(position, consumer.position(tp));
        });
    }

    private long latest(TopicPartition tp, IsolationLevel isolation) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
                .partitionResult(tp).get().offset();
    }

    private Map<Long, ProducerState> describeProducers(TopicPartition tp) throws Exception {
        Map<Long, ProducerState> byId = new java.util.HashMap<>();
        for (ProducerState state : admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers()) {
            byId.put(state.producerId(), state);
        }
        return byId;
    }

    private void produce(TopicPartition tp, String transactionalId, MemoryRecords records) throws Exception {
        assertEquals(Errors.NONE, produceError(tp, transactionalId, records));
    }

    private Errors produceError(TopicPartition tp, String transactionalId, MemoryRecords records) throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000)
                .setTransactionalId(transactionalId);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
                .setRecords(records));
        data.topicData().add(topic);
        short version = 12; // topics by name
        try (RawConnection connection = new RawConnection(broker.port())) {
            RequestHeader header = connection.send(new ProduceRequest.Builder(version, version, data).build(version),
                    ++correlationId);
            ProduceResponseData response = ((ProduceResponse) connection.receive(header)).data();
            return Errors.forCode(response.responses().iterator().next().partitionResponses().get(0).errorCode());
        }
    }

    private Errors writeMarker(TopicPartition tp, long producerId, short epoch, boolean commit, int coordinatorEpoch)
            throws Exception {
        WriteTxnMarkersRequestData data = new WriteTxnMarkersRequestData();
        data.markers().add(new WriteTxnMarkersRequestData.WritableTxnMarker().setProducerId(producerId)
                .setProducerEpoch(epoch).setTransactionResult(commit).setCoordinatorEpoch(coordinatorEpoch)
                .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName(tp.topic())
                        .setPartitionIndexes(List.of(tp.partition())))));
        short version = 1;
        try (RawConnection connection = new RawConnection(broker.port())) {
            RequestHeader header = connection.send(new WriteTxnMarkersRequest.Builder(data).build(version),
                    ++correlationId);
            WriteTxnMarkersResponseData response = ((WriteTxnMarkersResponse) connection.receive(header)).data();
            return Errors.forCode(response.markers().get(0).topics().get(0).partitions().get(0).errorCode());
        }
    }

    private static SimpleRecord[] records(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }
}
