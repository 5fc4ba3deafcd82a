package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that was down while one of its topics was deleted (and another deleted and created again under the same
 * name) deletes those logs when it comes back, and serves the new topic from an empty log: stale data never comes
 * back under a topic's name.
 */
class TopicDeletedWhileDownTest {

    private TestingServer zooKeeper;
    private InProcessBroker controller;
    private InProcessBroker replica;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBrokers() throws Exception {
        zooKeeper = new TestingServer(true);
        controller = new InProcessBroker(zooKeeper.getConnectString(), dataDir.resolve("b0"));
        replica = new InProcessBroker(zooKeeper.getConnectString(), dataDir.resolve("b1"),
                BrokerConfig.BROKER_ID, "1", BrokerConfig.ZOOKEEPER_CONNECT, controller.zooKeeperConnect());
    }

    @AfterEach
    void stopBrokers() throws Exception {
        replica.close();
        controller.close();
        zooKeeper.close();
    }

    private static boolean hasLogDir(InProcessBroker broker, String topic) throws Exception {
        try (Stream<Path> dirs = Files.list(broker.logDir())) {
            return dirs.anyMatch(dir -> dir.getFileName().toString().startsWith(topic + "-0"));
        }
    }

    @Test
    void logsOfTopicsDeletedWhileTheBrokerWasDownAreDeletedWhenItReturns() throws Exception {
        try (Admin admin = Clients.admin(controller.bootstrapServers())) {
            // Both topics live only on broker 1.
            admin.createTopics(List.of(new NewTopic("gone", Map.of(0, List.of(1))),
                    new NewTopic("reborn", Map.of(0, List.of(1))))).all().get();
        }
        try (KafkaProducer<String, String> producer = Clients.producer(controller.bootstrapServers())) {
            producer.send(new ProducerRecord<>("gone", "k", "old-gone")).get();
            producer.send(new ProducerRecord<>("reborn", "k", "old-reborn")).get();
        }
        assertTrue(hasLogDir(replica, "gone"));
        assertTrue(hasLogDir(replica, "reborn"));

        replica.close();
        try (Admin admin = Clients.admin(controller.bootstrapServers())) {
            admin.deleteTopics(List.of("gone", "reborn")).all().get();
            await().untilAsserted(() -> assertTrue(() -> {
                try {
                    return admin.listTopics().names().get().isEmpty();
                } catch (Exception e) {
                    return false;
                }
            }, () -> "the deletions are done"));
            // Created again while broker 1 is down: on the live broker only.
            admin.createTopics(List.of(new NewTopic("reborn", 1, (short) 1))).all().get();
        }

        replica.start();
        await().untilAsserted(() -> assertTrue(() -> {
            try {
                return !hasLogDir(replica, "gone") && !hasLogDir(replica, "reborn");
            } catch (Exception e) {
                return false;
            }
        }, () -> "the logs of the deleted and the recreated topic are gone from the returning broker"));

        try (KafkaProducer<String, String> producer = Clients.producer(controller.bootstrapServers())) {
            producer.send(new ProducerRecord<>("reborn", "k", "new-reborn")).get();
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(controller.bootstrapServers())) {
            TopicPartition tp = new TopicPartition("reborn", 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new ArrayList<>();
            await().untilAsserted(() -> assertTrue(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
                return !values.isEmpty();
            }, () -> "the new topic's record"));
            assertEquals(List.of("new-reborn"), values, "the recreated topic starts from an empty log");
            assertEquals(0L, consumer.beginningOffsets(List.of(tp)).get(tp));
        }
        assertFalse(hasLogDir(replica, "gone"));
        assertFalse(hasLogDir(replica, "reborn"));
    }
}
