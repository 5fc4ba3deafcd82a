package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

import io.tributary.testsupport.Clients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * What a plain read_committed Kafka consumer reads from a one-partition topic: every value from the start up to a
 * marker that this class writes first (without a transaction), so that "nothing else" is a fact read from the log,
 * not a wait that happened to be long enough. The marker is readable only once every transaction before it has
 * ended, so the read also waits for open transactions to commit or abort.
 *
 * <p>Stateless; any thread.
 */
final class CommittedRecords {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private CommittedRecords() {
    }

    /** The values of {@code topic}'s partition 0 before a new marker, as a read_committed consumer sees them. */
    static List<String> read(String bootstrapServers, String topic) throws Exception {
        String marker = "marker-" + UUID.randomUUID();
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrapServers)) {
            producer.send(new ProducerRecord<>(topic, 0, null, marker)).get();
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.value() != null && record.value().startsWith("marker-")) {
                        if (record.value().equals(marker)) {
                            return values;
                        }
                        continue; // an earlier read's marker
                    }
                    values.add(record.value());
                }
            }
        }
        fail("the marker did not become readable within " + DEADLINE + " (a transaction still open?); read "
                + values.stream().collect(Collectors.joining(", ")));
        return values;
    }
}
