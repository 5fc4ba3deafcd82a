package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions across a leader failover, three brokers as processes: the followers replay the transactional state
 * and write their own transaction indexes, so that after the leader is SIGKILLed the new leader has the same last
 * stable offset, the same open transaction, and still hides the aborted records from read_committed consumers.
 */
class TransactionalFailoverTest {

    private static final long PRODUCER_A = 41L;
    private static final long PRODUCER_B = 42L;
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private int correlationId;

    @Test
    void newLeaderKeepsTheLastStableOffsetAndTheAbortedTransactions() throws Exception {
        TopicPartition tp = new TopicPartition("ledger", 0);
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false, "replica.lag.time.max.ms", "3000")) {
            cluster.startAll();
            cluster.createTopic(tp.topic(), 1, 3, Map.of("min.insync.replicas", "2"));
            cluster.awaitFullIsr(tp.topic(), 1, 3, LIMIT);
            int leader = cluster.leaderOf(tp);
            int port = port(cluster, leader);
            produce(port, tp, "tx-a", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_A,
                    (short) 0, 0, records("a-0", "a-1")));                                                  // 0-1
            produce(port, tp, "tx-b", MemoryRecords.withTransactionalRecords(Compression.NONE, PRODUCER_B,
                    (short) 0, 0, records("b-0")));                                                         // 2
            try (Admin admin = Clients.admin(cluster.bootstrapServers())) {
                admin.abortTransaction(new AbortTransactionSpec(tp, PRODUCER_A, (short) 0, 3)).all().get();  // 3
            }
            produce(port, tp, null, MemoryRecords.withRecords(Compression.NONE, records("after")));       // 4

            cluster.kill(leader);
            await(LIMIT).untilAsserted(() -> {
                int elected = cluster.leaderOf(tp);
                assertNotEquals(leader, elected);
                assertNotEquals(-1, elected);
            });

            try (Admin admin = Clients.admin(cluster.bootstrapServers())) {
                await("the new leader's LSO, B's first offset").untilAsserted(() -> assertEquals(2L,
                        admin.listOffsets(Map.of(tp, OffsetSpec.latest()),
                                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).partitionResult(tp).get()
                                .offset()));
                ProducerState b = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers()
                        .stream().filter(state -> state.producerId() == PRODUCER_B).findFirst().orElseThrow();
                assertEquals(2L, b.currentTransactionStartOffset().getAsLong());
            }
            try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster.bootstrapServers(),
                    ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100")) {
                consumer.assign(List.of(tp));
                List<String> seen = new ArrayList<>();
                pollUntilPosition(consumer, tp, 2, seen);
                assertEquals(List.of(), seen, "A's records are aborted");

                assertEquals(Errors.NONE, commit(port(cluster, cluster.leaderOf(tp)), tp, PRODUCER_B));        // 5
                pollUntilPosition(consumer, tp, 6, seen);
                assertEquals(List.of("b-0", "after"), seen);
            }
        }
    }

    private static int port(ProcessCluster cluster, int id) {
        String[] address = cluster.broker(id).bootstrapServers().split(":");
        return Integer.parseInt(address[1]);
    }

    private static void pollUntilPosition(KafkaConsumer<String, String> consumer, TopicPartition tp, long position,
                                          List<String> seen) {
        await(LIMIT).untilAsserted(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                seen.add(record.value());
            }
            assertEquals(position, consumer.position(tp));
        });
    }

    private void produce(int port, TopicPartition tp, String transactionalId, MemoryRecords records)
            throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000)
                .setTransactionalId(transactionalId);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
                .setRecords(records));
        data.topicData().add(topic);
        short version = 12;
        try (RawConnection connection = new RawConnection(port)) {
            RequestHeader header = connection.send(new ProduceRequest.Builder(version, version, data).build(version),
                    ++correlationId);
            ProduceResponseData response = ((ProduceResponse) connection.receive(header)).data();
            assertEquals(Errors.NONE.code(),
                    response.responses().iterator().next().partitionResponses().get(0).errorCode());
        }
    }

    private Errors commit(int port, TopicPartition tp, long producerId) throws Exception {
        WriteTxnMarkersRequestData data = new WriteTxnMarkersRequestData();
        data.markers().add(new WriteTxnMarkersRequestData.WritableTxnMarker().setProducerId(producerId)
                .setProducerEpoch((short) 0).setTransactionResult(true).setCoordinatorEpoch(3)
                .setTopics(List.of(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic().setName(tp.topic())
                        .setPartitionIndexes(List.of(tp.partition())))));
        try (RawConnection connection = new RawConnection(port)) {
            RequestHeader header = connection.send(new WriteTxnMarkersRequest.Builder(data).build((short) 1),
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
