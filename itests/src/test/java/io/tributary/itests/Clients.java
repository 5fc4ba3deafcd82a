package io.tributary.itests;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.tributary.jms.TributaryConnectionFactory;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSProducer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What the tests do from outside the server: send with Tributary's JMS provider, produce plain records with the Kafka
 * producer, create topics and read a group's offsets with the Kafka admin client, read topics with the Kafka consumer,
 * call the deployed applications over HTTP, and wait for a condition with a deadline.
 *
 * <p>Test thread only.
 */
public final class Clients {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private Clients() {
    }

    /** Sends each text as a TextMessage to {@code queue}, in order, from one producer. */
    public static void sendToQueue(String queue, List<String> texts) {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(TributaryBroker.bootstrapServers());
        try (JMSContext context = factory.createContext()) {
            JMSProducer producer = context.createProducer();
            for (String text : texts) {
                producer.send(context.createQueue(queue), text);
            }
        }
    }

    /**
     * Produces each text as a plain Kafka record (UTF-8 value, no key, no JMS headers) to {@code partition} of
     * {@code topic} with the record timestamp {@code timestamp} (epoch milliseconds), in order, and waits for each
     * acknowledgement. A JMS consumer receives such records as BytesMessage, or as TextMessage with
     * {@code plainRecordsAsText}.
     */
    public static void produce(String topic, int partition, long timestamp, List<String> texts) {
        Map<String, Object> props = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TributaryBroker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (String text : texts) {
                producer.send(new ProducerRecord<>(topic, partition, timestamp, null,
                        text.getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("producing to " + topic + "-" + partition + " failed", e);
        }
    }

    /** Creates {@code topic} with {@code partitions} partitions (replication factor 1) and the given topic settings. */
    public static void createTopic(String topic, int partitions, Map<String, String> configs) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("creating topic " + topic + " failed", e);
        }
    }

    /** The offsets consumer group {@code group} has committed, by partition; empty when it has none. */
    public static Map<Integer, Long> committedOffsets(String group) {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            Map<Integer, Long> byPartition = new TreeMap<>();
            offsets.forEach((tp, offset) -> {
                if (offset != null) {
                    byPartition.put(tp.partition(), offset.offset());
                }
            });
            return byPartition;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("reading the offsets of group " + group + " failed", e);
        }
    }

    /** The log end offset of each partition of {@code topic}, by partition. */
    public static Map<Integer, Long> endOffsets(String topic) {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> query = new HashMap<>();
            admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                    .forEach(p -> query.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            Map<Integer, Long> end = new TreeMap<>();
            admin.listOffsets(query).all().get(30, TimeUnit.SECONDS)
                    .forEach((partition, info) -> end.put(partition.partition(), info.offset()));
            return end;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("reading the end offsets of " + topic + " failed", e);
        }
    }

    static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TributaryBroker.bootstrapServers()));
    }

    /**
     * Every record of {@code topic} from its start, read (without a consumer group) until {@code done} accepts what was
     * read so far or the deadline passes; then what was read.
     */
    public static List<ConsumerRecord<byte[], byte[]>> readTopic(String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
                                                                Duration timeout) {
        return readTopic(topic, done, timeout, IsolationLevel.READ_UNCOMMITTED);
    }

    /** {@link #readTopic(String, Predicate, Duration)} at the given isolation level. */
    public static List<ConsumerRecord<byte[], byte[]>> readTopic(String topic, Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
                                                                Duration timeout, IsolationLevel isolation) {
        Map<String, Object> props = Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString().toLowerCase(Locale.ROOT),
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TributaryBroker.bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                // A topic nobody has written yet is created empty (as a producer's first send would create it): the
                // caller's assertion then fails on what was read, not on a missing topic.
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, true);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty() && System.nanoTime() < deadline) {
                List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
                partitions = infos == null ? List.of()
                        : infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            if (partitions.isEmpty()) {
                return records;
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (!done.test(records) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    public static String text(ConsumerRecord<byte[], byte[]> record) {
        return record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8);
    }

    public static List<String> texts(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(Clients::text).collect(Collectors.toList());
    }

    /** The body of a GET of {@code path} relative to {@code base}; fails on a status other than 200. */
    public static String get(URL base, String path) {
        return call(HttpRequest.newBuilder(resolve(base, path)).GET().build(), 200);
    }

    /** POSTs {@code body} as text/plain to {@code path} relative to {@code base}; fails on an unexpected status. */
    public static String post(URL base, String path, String body, int expectedStatus) {
        return call(HttpRequest.newBuilder(resolve(base, path)).header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), expectedStatus);
    }

    private static URI resolve(URL base, String path) {
        try {
            return base.toURI().resolve(path);
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(base + " " + path, e);
        }
    }

    /** Sends {@code request} and returns the body; fails on a status other than {@code expectedStatus}. */
    public static String call(HttpRequest request, int expectedStatus) {
        HttpResponse<String> response = send(request);
        if (response.statusCode() != expectedStatus) {
            throw new AssertionError(request.method() + " " + request.uri() + " answered " + response.statusCode()
                    + ": " + response.body());
        }
        return response.body();
    }

    /** Sends {@code request} and returns the response whatever its status; fails only if there is none. */
    public static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Polls {@code value} every 100 ms (Awaitility) until {@code done} accepts it or {@code timeout} passes, and
     * returns the last value either way: the caller asserts on it, so a failure shows what was there.
     */
    public static <T> T await(Supplier<T> value, Predicate<T> done, Duration timeout) {
        AtomicReference<T> last = new AtomicReference<>();
        try {
            Awaitility.await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100))
                    .pollInSameThread().until(() -> {
                        last.set(value.get());
                        return done.test(last.get());
                    });
        } catch (ConditionTimeoutException e) {
            // the caller's assertion on the last value reports it
        }
        return last.get();
    }

    /** The lines of a text body, without a trailing empty one. */
    public static List<String> lines(String body) {
        return body.isEmpty() ? List.of() : List.of(body.split("\n"));
    }
}
