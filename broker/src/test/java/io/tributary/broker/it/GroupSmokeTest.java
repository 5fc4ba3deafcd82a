package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupSmokeTest {

    @TempDir
    Path dataDir;

    @Test
    void subscribeConsumeCommitRestartResume() throws Exception {
        try (TestingServer zk = new TestingServer(true);
             LocalBroker broker = new LocalBroker(zk.getConnectString(), dataDir)) {
            try (Admin admin = Clients.admin(broker.bootstrapServers())) {
                admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get();
            }
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("t", i % 2, null, "v" + i)).get();
                }
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers(),
                    "group.id", "g")) {
                consumer.subscribe(List.of("t"));
                Await.until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        seen.add(r.value());
                    }
                    return seen.size() >= 10;
                }, () -> "10 records, got " + seen);
                consumer.commitSync();
            }
            broker.restart();
            try (Admin admin = Clients.admin(broker.bootstrapServers())) {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("g")
                        .partitionsToOffsetAndMetadata().get();
                assertEquals(5L, offsets.get(new TopicPartition("t", 0)).offset());
                assertEquals(5L, offsets.get(new TopicPartition("t", 1)).offset());
            }
        }
    }
}
