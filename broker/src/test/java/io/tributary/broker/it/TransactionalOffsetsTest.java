package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;

import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets committed inside transactions with the official Java clients (KIP-98, KIP-447): the producer's
 * {@code sendOffsetsToTransaction} followed by a commit makes them the group's committed offsets, an abort does
 * not; a read_committed consumer resumes from them after a broker restart; and a consume-transform-produce loop in a
 * child JVM SIGKILLed inside a transaction, then replaced, leaves every input record exactly once in the output as
 * read_committed reads it.
 */
class TransactionalOffsetsTest {

    private static final String INPUT = "orders";
    private static final String OUTPUT = "invoices";
    private static final String GROUP = "billing";
    private static final TopicPartition IN_0 = new TopicPartition(INPUT, 0);
    private static final TopicPartition IN_1 = new TopicPartition(INPUT, 1);

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private final List<ChildJvm> processors = new ArrayList<>();

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                "transaction.state.log.replication.factor", "1", "transaction.state.log.min.isr", "1",
                "transaction.state.log.num.partitions", "3");
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(INPUT, 2, (short) 1), new NewTopic(OUTPUT, 2, (short) 1)))
                    .all().get();
        }
    }

    @AfterEach
    void stop() throws Exception {
        processors.forEach(ChildJvm::kill);
        broker.close();
        zooKeeper.close();
    }

    private KafkaProducer<String, String> transactionalProducer(String transactionalId) {
        return Clients.producer(broker.bootstrapServers(), ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }

    private KafkaConsumer<String, String> readCommittedConsumer(String... extra) {
        List<String> settings = new ArrayList<>(List.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        settings.addAll(List.of(extra));
        return Clients.groupConsumer(broker.bootstrapServers(), GROUP, settings.toArray(String[]::new));
    }

    /** The offsets the read_committed consumer of the group is given: it retries while a transaction is open. */
    private Map<TopicPartition, Long> stableCommitted(Collection<TopicPartition> partitions) {
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer()) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            consumer.committed(Set.copyOf(partitions)).forEach((tp, committed) -> {
                if (committed != null) {
                    offsets.put(tp, committed.offset());
                }
            });
            return offsets;
        }
    }

    private void produceInput(int count) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(INPUT, i % 2, "k" + i, Integer.toString(i)));
            }
            producer.flush();
        }
    }

    @Test
    void offsetsSentToACommittedTransactionBecomeTheGroupsCommittedOffsets() throws Exception {
        try (KafkaProducer<String, String> producer = transactionalProducer("billing-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(OUTPUT, "k", "v"));
            producer.sendOffsetsToTransaction(Map.of(IN_0, new OffsetAndMetadata(7L, "after 6"),
                    IN_1, new OffsetAndMetadata(3L)), new ConsumerGroupMetadata(GROUP));
            try (Admin admin = Clients.admin(broker.bootstrapServers())) {
                assertEquals(Map.of(), Groups.committed(admin, GROUP), "not before the commit");
            }
            producer.commitTransaction();
        }

        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            await("the committed transaction's offsets listed").until(
                    () -> Groups.committed(admin, GROUP).equals(Map.of(IN_0, 7L, IN_1, 3L)));
            assertEquals("after 6", Groups.committedWithMetadata(admin, GROUP).get(IN_0).metadata());
        }
        assertEquals(Map.of(IN_0, 7L, IN_1, 3L), stableCommitted(List.of(IN_0, IN_1)));
    }

    @Test
    void offsetsSentToAnAbortedTransactionAreNotCommitted() throws Exception {
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer()) {
            consumer.commitSync(Map.of(IN_0, new OffsetAndMetadata(2L)));
        }
        try (KafkaProducer<String, String> producer = transactionalProducer("billing-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(IN_0, new OffsetAndMetadata(9L), IN_1, new OffsetAndMetadata(4L)),
                    new ConsumerGroupMetadata(GROUP));
            producer.abortTransaction();
        }

        // requireStable: answered once the abort marker is applied, not before.
        assertEquals(Map.of(IN_0, 2L), stableCommitted(List.of(IN_0, IN_1)));
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            assertEquals(Map.of(IN_0, 2L), Groups.committed(admin, GROUP));
        }
    }

    @Test
    void aReadCommittedConsumerResumesFromTheTransactionalOffsetsAfterARestart() throws Exception {
        produceInput(20);
        try (KafkaConsumer<String, String> consumer = readCommittedConsumer(
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "3");
             KafkaProducer<String, String> producer = transactionalProducer("billing-tx")) {
            producer.initTransactions();
            consumer.subscribe(List.of(INPUT));
            int processed = 0;
            while (processed < 6) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (records.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> record : records) {
                    producer.send(new ProducerRecord<>(OUTPUT, record.key(), TransformProcess.transform(record)));
                    offsets.put(new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                producer.commitTransaction();
                processed += records.count();
            }
        }
        Map<TopicPartition, Long> before = stableCommitted(List.of(IN_0, IN_1));
        assertTrue(before.values().stream().mapToLong(Long::longValue).sum() >= 6, before.toString());

        broker.restart();

        assertEquals(before, stableCommitted(List.of(IN_0, IN_1)), "the transactional offsets survive");
        try (KafkaConsumer<String, String> resumed = readCommittedConsumer()) {
            resumed.subscribe(List.of(INPUT));
            Map<TopicPartition, Long> first = new HashMap<>();
            await("the resumed consumer's first records").until(() -> {
                for (ConsumerRecord<String, String> record : resumed.poll(Duration.ofMillis(100))) {
                    first.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
                }
                return first.keySet().containsAll(before.keySet());
            });
            before.forEach((tp, offset) -> assertEquals(offset, first.get(tp), tp + " resumes where committed"));
        }
    }

    @Test
    void aConsumeTransformProduceLoopKilledInsideATransactionOutputsEveryInputExactlyOnce() throws Exception {
        int inputs = 600;
        produceInput(inputs);

        // The first processor commits a few transactions, then stops with one open (records sent, offsets sent to
        // it) and is SIGKILLed there: a zombie whose transaction the next processor's initTransactions must abort.
        ChildJvm first = startProcessor("processor-1", 5);
        first.awaitLine(TransformProcess.STOPPED_IN_TRANSACTION, Duration.ofSeconds(60));
        first.kill();

        ChildJvm second = startProcessor("processor-2", -1);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            await("the second processor through the input").atMost(Duration.ofSeconds(120)).until(() -> {
                if (!second.isAlive()) {
                    throw new AssertionError("the second processor exited:\n" + second.tail());
                }
                return Groups.committed(admin, GROUP).equals(Map.of(IN_0, inputs / 2L, IN_1, inputs / 2L));
            });
        }

        Map<String, Integer> seen = new TreeMap<>();
        try (KafkaConsumer<String, String> reader = Clients.consumer(broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")) {
            List<TopicPartition> outputs = List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1));
            Records.readAllToEnd(reader, outputs).values().forEach(records -> records.forEach(
                    record -> seen.merge(record.value(), 1, Integer::sum)));
        }
        // The differences only: a list of 600 records makes an unreadable failure message.
        List<String> missing = IntStream.range(0, inputs).mapToObj(i -> "processed-" + i)
                .filter(value -> !seen.containsKey(value)).toList();
        Map<String, Integer> repeated = new TreeMap<>(seen);
        repeated.values().removeIf(count -> count == 1);
        assertEquals(List.of(), missing, "inputs missing from the committed output");
        assertEquals(Map.of(), repeated, "inputs more than once in the committed output");
        assertEquals(inputs, seen.size(), "nothing else in the committed output: " + seen.keySet());
    }

    private ChildJvm startProcessor(String name, long stopInside) throws IOException {
        ChildJvm processor = new ChildJvm(dataDir.resolve(name + ".log"), TransformProcess.class,
                broker.bootstrapServers(), INPUT, OUTPUT, GROUP, "billing-processor", Long.toString(stopInside));
        processors.add(processor);
        return processor.start();
    }
}
