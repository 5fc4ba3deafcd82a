package io.tributary.broker.it;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.BrokerProcess;
import io.tributary.testsupport.Clients;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper goes away for a while (shorter than the broker's session): administrative requests that must write to it
 * fail with a retriable error instead of holding request-handler threads, and produce and fetch of existing partitions
 * go on undisturbed, although the broker has only two request-handler threads and more administrative requests than
 * that arrive at once. When ZooKeeper is back, administration works again.
 */
class ZooKeeperOutageTest {

    private static final String TOPIC = "steady";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;

    @Test
    void produceAndFetchGoOnWhileZooKeeperIsAwayAndAdministrationFailsFast() throws Exception {
        TestingServer zooKeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
        BrokerProcess broker = new BrokerProcess(dir,
                "broker.id", "0",
                "log.dirs", dir.resolve("logs").toString(),
                "zookeeper.connect", zooKeeper.getConnectString() + "/outage",
                // Longer than the outage: the broker keeps its session, registration and leaderships.
                "zookeeper.session.timeout.ms", "30000",
                "offsets.topic.replication.factor", "1",
                "num.io.threads", "2",
                "num.network.threads", "1");
        try {
            broker.start();
            try (Admin admin = Clients.admin(broker.bootstrapServers())) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers());
                 Admin admin = Clients.admin(broker.bootstrapServers(), "default.api.timeout.ms", "5000",
                         "request.timeout.ms", "3000");
                 KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                         "allow.auto.create.topics", "true")) {
                send(producer, "before", sent);

                zooKeeper.stop();
                // More administrative requests than request-handler threads, all at once.
                List<CreateTopicsResult> creations = new ArrayList<>();
                for (int i = 0; i < 6; i++) {
                    creations.add(admin.createTopics(List.of(new NewTopic("new-" + i, 1, (short) 1))));
                }
                for (int i = 0; i < 4; i++) {
                    try {
                        consumer.partitionsFor("auto-" + i, Duration.ofMillis(200)); // asks for auto-creation
                    } catch (TimeoutException expected) {
                        // the topic cannot appear without ZooKeeper
                    }
                }
                send(producer, "during", sent);
                for (CreateTopicsResult creation : creations) {
                    ExecutionException failed = assertThrows(ExecutionException.class,
                            () -> creation.all().get(30, TimeUnit.SECONDS));
                    assertInstanceOf(TimeoutException.class, failed.getCause(), failed.toString());
                }
                send(producer, "still during", sent);

                consumer.assign(List.of(TP));
                consumer.seekToBeginning(List.of(TP));
                List<String> read = new ArrayList<>();
                await(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(() -> {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        read.add(record.value());
                    }
                    return read.size() >= sent.size();
                }, () -> "every record read back while ZooKeeper is away"));
                assertEquals(sent, read);

                zooKeeper.restart();
                await(Duration.ofSeconds(60)).untilAsserted(() -> assertTrue(() -> {
                    try {
                        admin.createTopics(List.of(new NewTopic("after", 1, (short) 1))).all()
                                .get(10, TimeUnit.SECONDS);
                        return true;
                    } catch (Exception e) {
                        return e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException;
                    }
                }, () -> "a topic created once ZooKeeper is back"));
                send(producer, "after", sent);
            }
        } finally {
            broker.kill();
            zooKeeper.close();
        }
    }

    private static void send(KafkaProducer<String, String> producer, String phase, List<String> sent)
            throws Exception {
        for (int i = 0; i < 10; i++) {
            String value = phase + "-" + i;
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", value)).get(20, TimeUnit.SECONDS);
            sent.add(value);
        }
    }
}
