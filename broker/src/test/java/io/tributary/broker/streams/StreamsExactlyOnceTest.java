package io.tributary.broker.streams;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;

import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams with {@code exactly_once_v2} against the broker: the {@link WordCountApp} in a JVM of its own is
 * SIGKILLed while it processes and started again, and the counts it committed are exact. With the record cache off
 * every occurrence of a word emits the next count, so the committed output of each word must be exactly 1, 2, ..., n
 * with n its number of occurrences: an input processed twice would repeat a count or skip one, a lost one would end
 * short, and output of an aborted transaction would show as a repeat.
 */
class StreamsExactlyOnceTest {

    private static final String INPUT = "lines";
    private static final String OUTPUT = "word-counts";
    private static final List<String> WORDS = List.of("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf");

    @TempDir
    Path dir;

    private InProcessBroker broker;
    private final List<ChildJvm> apps = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        apps.forEach(ChildJvm::kill);
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void wordCountsAreExactAcrossAKilledInstance() throws Exception {
        broker = InProcessBroker.builder(dir.resolve("broker")).start();
        broker.createTopic(INPUT, 2);
        broker.createTopic(OUTPUT, 2);
        Map<String, Long> expected = new TreeMap<>();
        Random random = new Random(7);

        try (KafkaProducer<String, String> producer = producer()) {
            sendLines(producer, 200, random, expected);
            ChildJvm first = app("first").start();
            first.awaitLine("STATE RUNNING", Duration.ofMinutes(2));
            awaitCounts(Map.copyOf(expected));

            // Input keeps arriving while the instance dies: it is killed with transactions open.
            sendLines(producer, 300, random, expected);
            first.kill();
            sendLines(producer, 200, random, expected);

            ChildJvm second = app("second").start();
            second.awaitLine("STATE RUNNING", Duration.ofMinutes(2));
            sendLines(producer, 100, random, expected);
        }
        Map<String, List<Long>> committed = awaitCounts(expected);
        for (Map.Entry<String, List<Long>> word : committed.entrySet()) {
            List<Long> oneToN = new ArrayList<>();
            for (long n = 1; n <= expected.get(word.getKey()); n++) {
                oneToN.add(n);
            }
            assertEquals(oneToN, word.getValue(), "the committed counts of '" + word.getKey() + "'");
        }
    }

    private ChildJvm app(String name) {
        ChildJvm app = new ChildJvm(dir.resolve(name + ".log"), WordCountApp.class, broker.bootstrapServers(),
                dir.resolve("state").toString(), "word-count", INPUT, OUTPUT);
        apps.add(app);
        return app;
    }

    private static void sendLines(KafkaProducer<String, String> producer, int lines, Random random,
                                  Map<String, Long> expected) {
        for (int i = 0; i < lines; i++) {
            StringBuilder line = new StringBuilder();
            int words = 1 + random.nextInt(4);
            for (int w = 0; w < words; w++) {
                String word = WORDS.get(random.nextInt(WORDS.size()));
                line.append(w == 0 ? "" : " ").append(word);
                expected.merge(word, 1L, Long::sum);
            }
            producer.send(new ProducerRecord<>(INPUT, Integer.toString(i), line.toString()));
        }
        producer.flush();
    }

    /**
     * Reads the output with read_committed until every word's last count has reached the expected one (a count that
     * went past it fails the caller's exact comparison).
     */
    private Map<String, List<Long>> awaitCounts(Map<String, Long> expected) {
        Map<String, List<Long>> counts = new HashMap<>();
        try (KafkaConsumer<String, Long> consumer = committedReader()) {
            List<TopicPartition> partitions = List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Waits.await("the committed counts reaching " + expected).atMost(Duration.ofMinutes(3)).until(() -> {
                for (ConsumerRecord<String, Long> record : consumer.poll(Duration.ofMillis(200))) {
                    counts.computeIfAbsent(record.key(), word -> new ArrayList<>()).add(record.value());
                }
                return expected.entrySet().stream().allMatch(word -> {
                    List<Long> seen = counts.get(word.getKey());
                    return seen != null && seen.get(seen.size() - 1) >= word.getValue();
                });
            });
        }
        return counts;
    }

    private KafkaProducer<String, String> producer() {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return new KafkaProducer<>(config);
    }

    private KafkaConsumer<String, Long> committedReader() {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
        return new KafkaConsumer<>(config);
    }
}
