package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker with {@code metrics.http.listener} on port 0, scraped and probed over HTTP while the official Java
 * client produces and commits: the JMX exporter's Kafka names with the values JMX has, consumer lag, the JVM's
 * basics, the health probes; a broker without the setting opens no HTTP port; and the request logger at DEBUG.
 */
class HttpListenerTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static TestingServer zooKeeper;
    private static Broker broker;

    @BeforeAll
    static void startBroker(@TempDir Path dir) throws Exception {
        zooKeeper = new TestingServer(true);
        Map<String, String> properties = properties(0, dir);
        properties.put(BrokerConfig.METRICS_HTTP_LISTENER, "127.0.0.1:0");
        broker = Broker.start(BrokerConfig.parse(properties));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    private static Map<String, String> properties(int brokerId, Path dir) {
        Map<String, String> properties = new HashMap<>();
        properties.put("broker.id", Integer.toString(brokerId));
        properties.put("listeners", "PLAINTEXT://127.0.0.1:0");
        properties.put("log.dirs", dir.resolve("logs-" + brokerId).toString());
        properties.put("zookeeper.connect", zooKeeper.getConnectString() + "/http" + brokerId);
        properties.putAll(SingleBrokerSettings.of(1));
        return properties;
    }

    @Test
    void metricsShowMessagesInRequestLatencyAndTheControllerUnderTheExportersNames() throws Exception {
        String topic = "http-orders";
        int records = 40;
        createTopic(topic);
        produce(topic, records);

        await("MessagesIn of the topic in /metrics").until(() -> value(scrape(),
                "kafka_server_brokertopicmetrics_messagesin_total{topic=\"" + topic + "\"}").orElse(-1) == records);
        String metrics = scrape();
        assertTrue(value(metrics, "kafka_server_brokertopicmetrics_messagesin_total").orElse(-1) >= records);
        assertTrue(value(metrics, "kafka_network_requestmetrics_totaltimems{request=\"Produce\",quantile=\"0.99\"}")
                .isPresent(), metrics);
        assertTrue(value(metrics, "kafka_network_requestmetrics_totaltimems_count{request=\"Produce\"}")
                .orElse(0) >= records);
        assertEquals(1.0, value(metrics, "kafka_controller_kafkacontroller_activecontrollercount").orElse(-1));
        assertEquals(0.0, value(metrics, "kafka_server_replicamanager_underreplicatedpartitions").orElse(-1));
        assertTrue(value(metrics, "kafka_log_log_size{topic=\"" + topic + "\",partition=\"0\"}").orElse(0) > 0);
        assertEquals((double) records,
                value(metrics, "kafka_log_log_logendoffset{topic=\"" + topic + "\",partition=\"0\"}").orElse(-1));
        assertTrue(value(metrics, "jvm_memory_used_bytes{area=\"heap\"}").orElse(0) > 0, metrics);
        assertTrue(value(metrics, "jvm_threads_current").orElse(0) > 0);
        assertTrue(metrics.contains("# TYPE kafka_server_brokertopicmetrics_messagesin_total counter\n"));
        assertTrue(get("/metrics").headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
    }

    @Test
    void consumerLagIsTheHighWatermarkMinusTheGroupsCommittedOffset() throws Exception {
        String topic = "http-lagged";
        String group = "http-lag-group";
        int records = 30;
        int committed = 12;
        createTopic(topic);
        produce(topic, records);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(broker.bootstrapServers(), group)) {
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(committed)));
        }
        String labels = "{group=\"" + group + "\",topic=\"" + topic + "\",partition=\"0\"}";
        await("the group's lag in /metrics").until(
                () -> value(scrape(), "kafka_consumergroup_lag" + labels).orElse(-1) == records - committed);
        String metrics = scrape();
        assertEquals((double) committed, value(metrics, "kafka_consumergroup_current_offset" + labels).orElse(-1));
        assertEquals((double) (records - committed),
                value(metrics, "kafka_consumergroup_lag_sum{group=\"" + group + "\"}").orElse(-1));
    }

    @Test
    void shareGroupLagFollowsTheShareStartOffsetOfAPartitionLedHere() throws Exception {
        String topic = "http-shared";
        String group = "http-share-group";
        int records = 10;
        createTopic(topic);
        produce(topic, records);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        String labels = "{group=\"" + group + "\",topic=\"" + topic + "\",partition=\"0\"}";
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(props)) {
            consumer.subscribe(List.of(topic));
            int[] read = {0};
            await("every record delivered to the share consumer").until(() -> {
                read[0] += consumer.poll(Duration.ofMillis(100)).count();
                return read[0] >= records;
            });
            consumer.commitSync(); // acknowledges what was delivered: the start offset moves to the end
            await("the share group's lag at 0 in /metrics").until(() -> {
                String metrics = scrape();
                return value(metrics, "kafka_sharegroup_start_offset" + labels).orElse(-1) == records
                        && value(metrics, "kafka_sharegroup_lag" + labels).orElse(-1) == 0;
            });
        }
    }

    @Test
    void aRunningBrokerIsLiveAndReady() throws Exception {
        await("ready").until(() -> get("/health/ready").statusCode() == 200);
        assertEquals("ready\n", get("/health/ready").body());
        HttpResponse<String> live = get("/health/live");
        assertEquals(200, live.statusCode());
        assertEquals("live\n", live.body());
        assertEquals(404, get("/nothing-here").statusCode());
    }

    @Test
    void withoutTheSettingNoHttpPortIsOpened(@TempDir Path dir) {
        try (Broker plain = Broker.start(BrokerConfig.parse(properties(1, dir)))) {
            assertTrue(plain.httpPort().isEmpty());
        }
        assertTrue(broker.httpPort().isPresent());
    }

    @Test
    void theRequestLoggerAtDebugLogsOneLinePerRequestWithTheClientId() throws Exception {
        String clientId = "request-log-probe";
        try (LogCapture requests = new LogCapture("kafka.request.logger", Level.DEBUG);
             Admin admin = Clients.admin(broker.bootstrapServers(), "client.id", clientId)) {
            admin.describeCluster().nodes().get();
            await("a request line of the client").until(
                    () -> !requests.linesContaining("clientId=" + clientId).isEmpty());
            String line = requests.linesContaining("clientId=" + clientId).get(0);
            assertTrue(line.startsWith("DEBUG Completed request api="), line);
            assertTrue(line.contains("principal=User:ANONYMOUS"), line);
            assertTrue(line.contains(" totalTimeMs="), line);
            assertTrue(line.contains(" connection=127.0.0.1:"), line);
        }
    }

    @Test
    void everyMetricTheGrafanaDashboardQueriesIsScraped() throws Exception {
        String topic = "http-dashboard";
        createTopic(topic);
        produce(topic, 5);
        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(broker.bootstrapServers(),
                "http-dashboard-group")) {
            consumer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(2)));
        }
        String dashboard = Files.readString(Path.of("..", "docs", "grafana", "tributary-broker.json"));
        Set<String> queried = new TreeSet<>();
        Matcher names = Pattern.compile("\\b((?:kafka|jvm)_[a-z0-9_]+)").matcher(dashboard);
        while (names.find()) {
            queried.add(names.group(1));
        }
        assertTrue(queried.size() > 10, queried.toString());
        await("every family of the dashboard in /metrics").until(() -> {
            String metrics = scrape();
            return queried.stream().allMatch(name -> metrics.contains("# TYPE " + name + " "));
        });
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
    }

    private static void produce(String topic, int records) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "key-" + i, "value-" + i)).get();
            }
        }
    }

    private static String scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/metrics");
        assertEquals(200, response.statusCode());
        return response.body();
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + broker.httpPort().orElseThrow() + path);
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the sample {@code series} (name and labels exactly as written), if present. */
    private static OptionalDouble value(String metrics, String series) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                String value = line.substring(series.length() + 1).trim();
                return OptionalDouble.of(value.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(value));
            }
        }
        return OptionalDouble.empty();
    }
}
