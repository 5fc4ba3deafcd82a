package io.tributary.broker.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.tributary.testsupport.BrokerProcess;
import io.tributary.testsupport.Clients;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM (an operator's kill, Ctrl-C) shuts a broker process down cleanly: the process exits, the logs are closed
 * with the clean-shutdown marker, the broker is deregistered at once, and the next start recovers nothing and
 * serves every record.
 */
class CleanShutdownTest {

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private BrokerProcess broker;

    @BeforeEach
    void start() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new BrokerProcess(dir,
                "broker.id", "0",
                "log.dirs", dir.resolve("logs").toString(),
                "zookeeper.connect", zooKeeper.getConnectString() + "/clean",
                "num.io.threads", "2",
                "num.network.threads", "1");
    }

    @AfterEach
    void stop() throws Exception {
        try {
            broker.kill();
        } finally {
            zooKeeper.close();
        }
    }

    @Test
    void sigtermClosesTheLogsCleanlyDeregistersAndTheRestartRecoversNothing() throws Exception {
        broker.start();
        List<String> sent = new ArrayList<>();
        try (Admin admin = Clients.admin(broker.bootstrapServers());
             KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
            for (int i = 0; i < 200; i++) {
                producer.send(new ProducerRecord<>("orders", i % 2, "k" + i, "v" + i)).get();
                sent.add("v" + i);
            }
        }

        assertEquals(143, broker.terminate(), "a JVM ended by SIGTERM after its shutdown hooks exits with 128+15");
        String output = broker.output();
        assertTrue(output.contains("Broker 0 shut down"), output);
        assertTrue(Files.exists(dir.resolve("logs").resolve(".tributary_cleanshutdown")),
                "the clean-shutdown marker is written");
        try (CuratorFramework zk = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString(),
                new RetryOneTime(100))) {
            zk.start();
            assertNull(zk.checkExists().forPath("/clean/brokers/ids/0"),
                    "the registration is deleted at shutdown, not left to expire with the session");
        }

        broker.start();
        String restarted = broker.output();
        assertTrue(restarted.contains("(clean shutdown)") && !restarted.contains("recovering"), restarted);
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            Map<Integer, List<ConsumerRecord<String, String>>> byPartition = Records.readToEnd(consumer,
                    Records.partitions("orders", 2));
            byPartition.values().forEach(records -> records.forEach(record -> read.add(record.value())));
        }
        read.sort(null);
        List<String> expected = new ArrayList<>(sent);
        expected.sort(null);
        assertEquals(expected, read);
    }
}
