package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transaction coordinator SIGKILLed after EndTxn's PrepareCommit is replicated and before its markers are
 * written, in a cluster of three broker processes: the next leader of the transaction's {@code __transaction_state}
 * partition loads the decision and writes the markers, so a read_committed consumer sees every record of the
 * committed transaction, on every partition, and never a part of it.
 *
 * <p>How the kill lands in that window: the data topic needs all three replicas in sync
 * ({@code min.insync.replicas=3}) and a broker other than the coordinator is killed before the commit, so no marker
 * can be written while {@code __transaction_state} (two in sync needed) still takes the decision. The commit is
 * acknowledged, the transaction stays PrepareCommit, and its partitions' last stable offsets stay at its first
 * record; then the coordinator is killed, the other broker restarts and the topic is relaxed to two in sync.
 */
class TransactionCoordinatorFailoverTest {

    private static final String TOPIC = "ledger";
    private static final String TRANSACTIONAL_ID = "ledger-writer";
    private static final int RECORDS = 20;
    private static final Duration LIMIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void transactionDecidedByAKilledCoordinatorIsCompletedByTheNextOne() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false)) {
            cluster.startAll();
            cluster.createTopic(TOPIC, 2, 3, Map.of("min.insync.replicas", "3"));
            List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            cluster.awaitFullIsr(TOPIC, 2, 3, LIMIT);

            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers(),
                         ProducerConfig.TRANSACTIONAL_ID_CONFIG, TRANSACTIONAL_ID,
                         ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000",
                         ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
                 Admin admin = cluster.admin()) {
                producer.initTransactions();
                int coordinator = describe(admin).coordinatorId();
                TopicPartition statePartition = new TopicPartition("__transaction_state",
                        Utils.abs(TRANSACTIONAL_ID.hashCode()) % 3);
                cluster.awaitFullIsr("__transaction_state", 3, 3, LIMIT);

                producer.beginTransaction();
                for (int i = 0; i < RECORDS; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % 2, "k" + i, "v" + i));
                }
                producer.flush();

                int blocker = cluster.ids().stream().filter(id -> id != coordinator).findFirst().orElseThrow();
                int survivor = cluster.ids().stream().filter(id -> id != coordinator && id != blocker)
                        .findFirst().orElseThrow();
                cluster.kill(blocker);
                cluster.awaitIsr(statePartition, Set.of(coordinator, survivor), LIMIT);

                producer.commitTransaction();
                TransactionDescription decided = describe(admin);
                assertEquals(TransactionState.PREPARE_COMMIT, decided.state(),
                        "no marker can be written while " + TOPIC + " lacks its third replica");
                assertEquals(Map.of(partitions.get(0), 0L, partitions.get(1), 0L),
                        lastStableOffsets(admin, partitions), "nothing of the transaction is visible yet");

                cluster.kill(coordinator);
                cluster.start(blocker);
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                        List.of(new AlterConfigOp(new ConfigEntry("min.insync.replicas", "2"),
                                AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);

                await("the new coordinator completes the commit").atMost(LIMIT).until(() -> {
                    try {
                        TransactionDescription description = describe(admin);
                        return description.state() == TransactionState.COMPLETE_COMMIT
                                && description.coordinatorId() != coordinator;
                    } catch (Exception e) {
                        return false;
                    }
                });
            }

            List<String> values = readCommitted(cluster.bootstrapServers(), partitions);
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < RECORDS; i++) {
                expected.add("v" + i);
            }
            assertEquals(RECORDS, values.size(), "every record once: " + values);
            assertEquals(expected, new HashSet<>(values));
        }
    }

    private static TransactionDescription describe(Admin admin) throws Exception {
        return admin.describeTransactions(List.of(TRANSACTIONAL_ID)).description(TRANSACTIONAL_ID)
                .get(30, TimeUnit.SECONDS);
    }

    private static Map<TopicPartition, Long> lastStableOffsets(Admin admin, Collection<TopicPartition> partitions)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
        partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        Map<TopicPartition, Long> offsets = new java.util.HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(30, TimeUnit.SECONDS).forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    private static List<String> readCommitted(String bootstrap, List<TopicPartition> partitions) {
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap, "isolation.level",
                "read_committed")) {
            consumer.assign(partitions);
            List<String> values = new ArrayList<>();
            await("read_committed consumer reads the transaction").atMost(LIMIT).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
                return values.size() >= RECORDS;
            });
            return values;
        }
    }
}
