package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the Java consumer's fetches behave against the broker: a long poll on an empty partition is answered as soon
 * as a record arrives, a position below a moved log start offset is reset by {@code auto.offset.reset}, and the
 * sessionless full fetch responses are ones the client accepts.
 */
class FetchBehaviourTest {

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private Admin admin;

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
    void aLongPollOnAnEmptyPartitionIsAnsweredByARecordProducedLater() throws Exception {
        admin.createTopics(List.of(new NewTopic("quiet", 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition("quiet", 0);
        // The broker may hold each fetch for 25 s; the record must arrive well before, so only being woken up by
        // the new record can deliver it within the deadline below.
        KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "25000",
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "40000");
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            assertTrue(consumer.poll(Duration.ofMillis(500)).isEmpty(), "nothing there yet");
            // The consumer's fetch is now waiting in the broker.

            producer.send(new ProducerRecord<>("quiet", 0, "k", "wake up")).get();

            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            await(Duration.ofSeconds(10)).untilAsserted(() -> assertTrue(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                return !received.isEmpty();
            }, () -> "the record delivered to the waiting fetch"));
            assertEquals("wake up", received.get(0).value());
            assertEquals(0L, received.get(0).offset());
        } finally {
            // The consumer has sent its next fetch, which the broker holds for up to 25 s; the response to the
            // request closing the fetch session queues behind it on the connection, as with Kafka. Do not wait.
            consumer.close(CloseOptions.timeout(Duration.ofMillis(100)));
        }
    }

    @Test
    void aPositionBelowTheDeletedRecordsIsResetToTheNewStartWithEarliest() throws Exception {
        TopicPartition tp = trimmedTopic("reset-earliest");
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 2); // below the log start offset, 6, now: the broker answers OFFSET_OUT_OF_RANGE
            List<ConsumerRecord<String, String>> read = Records.readFromPositionToEnd(consumer, List.of(tp)).get(0);
            assertEquals(List.of(6L, 7L, 8L, 9L), read.stream().map(ConsumerRecord::offset).toList());
            assertEquals(List.of("v6", "v7", "v8", "v9"), read.stream().map(ConsumerRecord::value).toList());
        }
    }

    @Test
    void aPositionBelowTheDeletedRecordsFailsThePollWithoutAResetPolicy() throws Exception {
        TopicPartition tp = trimmedTopic("reset-none");
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 2);
            AtomicReference<OffsetOutOfRangeException> failure = new AtomicReference<>();
            await().untilAsserted(() -> assertTrue(() -> {
                try {
                    consumer.poll(Duration.ofMillis(100));
                    return false;
                } catch (OffsetOutOfRangeException e) {
                    failure.set(e);
                    return true;
                }
            }, () -> "the poll failing with OffsetOutOfRangeException"));
            assertEquals(Map.of(tp, 2L), failure.get().offsetOutOfRangePartitions());
        }
    }

    @Test
    void theConsumerAcceptsEveryFetchResponseWhileReading() throws Exception {
        admin.createTopics(List.of(new NewTopic("sessionless", 4, (short) 1))).all().get();
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < 400; i++) {
                producer.send(new ProducerRecord<>("sessionless", i % 4, "k" + i, "v" + i));
            }
            producer.flush();
        }
        try (LogCapture fetchSessions = new LogCapture("org.apache.kafka.clients.FetchSessionHandler", Level.INFO);
             KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                     ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "7",
                     ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "300")) {
            Map<Integer, List<ConsumerRecord<String, String>>> read =
                    Records.readToEnd(consumer, Records.partitions("sessionless", 4));
            read.values().forEach(records -> assertEquals(100, records.size()));
            // A response the client does not accept is logged and dropped, and the client starts over.
            assertEquals(List.of(), fetchSessions.linesContaining("invalid"));
            assertEquals(List.of(), fetchSessions.linesContaining("unable to process"));
        }
    }

    /** A one-partition topic with 10 records, v0 to v9, of which those before offset 6 are deleted. */
    private TopicPartition trimmedTopic(String topic) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(6))).all().get();
        return tp;
    }
}
