package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.ProcessCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The share-group offset admin APIs on a cluster of three broker processes, one partition led by each: the group
 * coordinator reaches share coordinators on other brokers (ReadShareGroupStateSummary, InitializeShareGroupState,
 * DeleteShareGroupState over the wire) and reads the lag of partitions other brokers lead (ListOffsets to them).
 */
class ShareGroupOffsetsClusterTest {

    private static final String TOPIC = "spread";
    private static final String GROUP = "spread-workers";

    @TempDir
    Path dir;

    @Test
    void offsetsOfPartitionsLedAndCoordinatedElsewhereAreAlteredListedAndDeleted() throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, 3, false)) {
            cluster.startAll();
            cluster.createTopic(TOPIC, Map.of(0, List.of(1), 1, List.of(2), 2, List.of(3)),
                    Map.of("min.insync.replicas", "1"));
            try (KafkaProducer<String, String> producer = Clients.producer(cluster.bootstrapServers())) {
                for (int partition = 0; partition < 3; partition++) {
                    for (int i = 0; i < 5; i++) {
                        producer.send(new ProducerRecord<>(TOPIC, partition, null, "r" + partition + "-" + i));
                    }
                }
            }
            Map<TopicPartition, Long> two = new HashMap<>();
            for (int partition = 0; partition < 3; partition++) {
                two.put(new TopicPartition(TOPIC, partition), 2L);
            }
            try (Admin admin = cluster.admin()) {
                // The first alteration creates the group and, on the way, __share_group_state.
                await("offsets altered").atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                        admin.alterShareGroupOffsets(GROUP, two).all().get());
                Map<TopicPartition, SharePartitionOffsetInfo> listed = offsets(admin);
                for (TopicPartition tp : two.keySet()) {
                    assertEquals(2L, listed.get(tp).startOffset(), () -> tp + ": " + listed);
                    assertEquals(Optional.of(3L), listed.get(tp).lag(), () -> tp + ": " + listed);
                }
            }

            Set<String> received = new HashSet<>();
            try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props(cluster))) {
                consumer.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(record -> received.add(record.value()));
                    consumer.commitSync();
                    assertEquals(9, received.size(), () -> "received " + received);
                });
            }
            try (Admin admin = cluster.admin()) {
                await("the accepted records listed").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    Map<TopicPartition, SharePartitionOffsetInfo> listed = offsets(admin);
                    for (TopicPartition tp : two.keySet()) {
                        assertEquals(5L, listed.get(tp).startOffset(), () -> tp + ": " + listed);
                        assertEquals(Optional.of(0L), listed.get(tp).lag(), () -> tp + ": " + listed);
                    }
                });

                await("the group empty").atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        admin.deleteShareGroupOffsets(GROUP, Set.of(TOPIC)).all().get());
                assertEquals(Map.of(), offsets(admin));
                admin.deleteShareGroups(List.of(GROUP)).all().get();
            }
        }
    }

    private static Map<TopicPartition, SharePartitionOffsetInfo> offsets(Admin admin) throws Exception {
        Map<TopicPartition, SharePartitionOffsetInfo> listed = new HashMap<>(admin.listShareGroupOffsets(
                Map.of(GROUP, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(GROUP).get());
        listed.values().removeIf(info -> info == null);
        return listed;
    }

    private static Properties props(ProcessCluster cluster) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return props;
    }
}
