package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions against one in-process broker with the official Java producer, consumer and Admin: the coordinator
 * found through FindCoordinator(TRANSACTION), committed and aborted transactions as a read_committed consumer sees
 * them, fencing of a second producer with the same transactional id, the timeout abort, and what
 * {@code Admin.listTransactions/describeTransactions} (kafka-transactions.sh) show.
 */
class TransactionsTest {

    private static final String TOPIC = "payments";

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = InProcessBroker.builder(dir).zooKeeper(zooKeeper.getConnectString()).fixedPort(0)
                .override("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200")
                .start();
        broker.createTopic(TOPIC, 2);
        admin = Clients.admin(broker.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        admin.close();
        broker.close();
        zooKeeper.close();
    }

    private KafkaProducer<String, String> transactional(String transactionalId, String... extra) {
        List<String> settings = new ArrayList<>(List.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "20000"));
        settings.addAll(List.of(extra));
        return Clients.producer(broker.bootstrapServers(), settings.toArray(new String[0]));
    }

    private List<String> readCommitted() {
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                "isolation.level", "read_committed")) {
            List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
            consumer.assign(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            List<String> values = new ArrayList<>();
            await("read_committed consumer reaches the last stable offsets " + ends).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
            return values;
        }
    }

    @Test
    void initTransactionsRegistersTheTransactionalIdWithAdmin() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-init")) {
            producer.initTransactions();
            TransactionDescription description = admin.describeTransactions(List.of("tx-init"))
                    .description("tx-init").get();
            assertEquals(TransactionState.EMPTY, description.state());
            assertEquals(0, description.producerEpoch());
            assertEquals(20_000, description.transactionTimeoutMs());
            assertTrue(description.topicPartitions().isEmpty());
            List<String> listed = admin.listTransactions().all().get().stream()
                    .map(TransactionListing::transactionalId).toList();
            assertEquals(List.of("tx-init"), listed);
        }
    }

    @Test
    void committedTransactionIsSeenByReadCommittedConsumers() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-commit")) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 2, "k" + i, "committed-" + i));
            }
            producer.flush();
            TransactionDescription ongoing = admin.describeTransactions(List.of("tx-commit"))
                    .description("tx-commit").get();
            assertEquals(TransactionState.ONGOING, ongoing.state());
            assertEquals(Set.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)),
                    ongoing.topicPartitions());
            producer.commitTransaction();
        }
        List<String> values = readCommitted();
        assertEquals(10, values.size(), values.toString());
        assertTrue(values.stream().allMatch(v -> v.startsWith("committed-")), values.toString());
        await("the transaction completes").until(() -> admin.describeTransactions(List.of("tx-commit"))
                .description("tx-commit").get().state() == TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void abortedTransactionIsNotSeenByReadCommittedConsumers() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-abort")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "a", "aborted-1"));
            producer.send(new ProducerRecord<>(TOPIC, 1, "b", "aborted-2"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "c", "committed-after-abort"));
            producer.commitTransaction();
        }
        assertEquals(List.of("committed-after-abort"), readCommitted());
    }

    @Test
    void secondProducerWithTheSameIdFencesTheFirstAndAbortsItsTransaction() throws Exception {
        try (KafkaProducer<String, String> first = transactional("tx-fence");
             KafkaProducer<String, String> second = transactional("tx-fence")) {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>(TOPIC, 0, "z", "zombie"));
            first.flush();

            second.initTransactions();
            TransactionDescription description = admin.describeTransactions(List.of("tx-fence"))
                    .description("tx-fence").get();
            assertEquals(TransactionState.EMPTY, description.state());
            assertEquals(2, description.producerEpoch(), "one bump to fence and abort, one for the new producer");

            KafkaException failure = assertThrows(KafkaException.class, () -> {
                first.send(new ProducerRecord<>(TOPIC, 1, "z", "zombie-2"));
                first.commitTransaction();
            });
            assertTrue(failure instanceof ProducerFencedException || failure instanceof InvalidProducerEpochException
                    || failure.getCause() instanceof ProducerFencedException, failure.toString());

            second.beginTransaction();
            second.send(new ProducerRecord<>(TOPIC, 1, "n", "new"));
            second.commitTransaction();
        }
        assertEquals(List.of("new"), readCommitted());
    }

    @Test
    void firstProducerIsFencedEvenWithoutAnOpenTransaction() throws Exception {
        try (KafkaProducer<String, String> first = transactional("tx-fence-idle");
             KafkaProducer<String, String> second = transactional("tx-fence-idle")) {
            first.initTransactions();
            second.initTransactions();
            first.beginTransaction();
            Exception failure = assertThrows(Exception.class, () -> {
                first.send(new ProducerRecord<>(TOPIC, 0, "z", "zombie")).get();
                first.commitTransaction();
            });
            Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
            assertTrue(cause instanceof ProducerFencedException, failure.toString());
        }
    }

    @Test
    void openTransactionSurvivesABrokerRestartAndCommitsAfterIt() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-restart")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "r", "before-restart-0"));
            producer.send(new ProducerRecord<>(TOPIC, 1, "r", "before-restart-1"));
            producer.flush();
            long producerId = admin.describeTransactions(List.of("tx-restart")).description("tx-restart").get()
                    .producerId();

            broker.restart();
            await("the restarted coordinator has loaded the open transaction").until(() -> {
                try {
                    TransactionDescription loaded = admin.describeTransactions(List.of("tx-restart"))
                            .description("tx-restart").get();
                    return loaded.state() == TransactionState.ONGOING && loaded.producerId() == producerId
                            && loaded.topicPartitions().equals(Set.of(new TopicPartition(TOPIC, 0),
                                    new TopicPartition(TOPIC, 1)));
                } catch (ExecutionException e) {
                    return false;
                }
            });
            producer.commitTransaction();
        }
        List<String> values = readCommitted();
        assertEquals(2, values.size(), values.toString());
        assertEquals(Set.of("before-restart-0", "before-restart-1"), Set.copyOf(values));
    }

    @Test
    void addOffsetsToTxnAddsTheGroupsOffsetsPartitionAndOldClientsGetInvalidProducerEpoch() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-offsets")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "o", "with-offsets")).get();
            TransactionDescription ongoing = admin.describeTransactions(List.of("tx-offsets"))
                    .description("tx-offsets").get();
            int offsetsPartition = org.apache.kafka.common.utils.Utils.abs("billing".hashCode()) % 3;
            try (RawConnection raw = new RawConnection(broker.port())) {
                AddOffsetsToTxnRequestData data = new AddOffsetsToTxnRequestData().setTransactionalId("tx-offsets")
                        .setProducerId(ongoing.producerId()).setProducerEpoch((short) ongoing.producerEpoch())
                        .setGroupId("billing");
                AddOffsetsToTxnResponse added = (AddOffsetsToTxnResponse) raw.receive(raw.send(
                        new AddOffsetsToTxnRequest.Builder(data).build(), 1));
                assertEquals(Errors.NONE.code(), added.data().errorCode());
                // A stale epoch: PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH for the versions before it.
                data.setProducerEpoch((short) (ongoing.producerEpoch() - 1));
                AddOffsetsToTxnResponse v1 = (AddOffsetsToTxnResponse) raw.receive(raw.send(
                        new AddOffsetsToTxnRequest.Builder(data).build((short) 1), 2));
                assertEquals(Errors.INVALID_PRODUCER_EPOCH.code(), v1.data().errorCode());
                AddOffsetsToTxnResponse v4 = (AddOffsetsToTxnResponse) raw.receive(raw.send(
                        new AddOffsetsToTxnRequest.Builder(data).build((short) 4), 3));
                assertEquals(Errors.PRODUCER_FENCED.code(), v4.data().errorCode());
            }
            assertEquals(Set.of(new TopicPartition(TOPIC, 0), new TopicPartition("__consumer_offsets",
                    offsetsPartition)), admin.describeTransactions(List.of("tx-offsets")).description("tx-offsets")
                    .get().topicPartitions());
            producer.commitTransaction();
        }
        assertEquals(List.of("with-offsets"), readCommitted());
    }

    @Test
    void hangingTransactionIsAbortedAfterItsTimeout() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("tx-hang",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "1000")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "h", "hanging"));
            producer.flush();
            await("the coordinator aborts the transaction").until(() -> admin.describeTransactions(
                    List.of("tx-hang")).description("tx-hang").get().state() == TransactionState.COMPLETE_ABORT);
            assertThrows(KafkaException.class, producer::commitTransaction);
        }
        assertEquals(List.of(), readCommitted());
    }
}
