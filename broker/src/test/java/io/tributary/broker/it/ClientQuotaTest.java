package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas on two in-process brokers in one ZooKeeper, with the official Java client: the Admin API's
 * alterClientQuotas and describeClientQuotas (what kafka-configs.sh sends), the znode shared with SCRAM credentials,
 * and the produce and fetch byte-rate quotas throttling real clients. Every quota is set after the brokers started,
 * so each test also shows that a change reaches every broker. Each broker has a listener of its own
 * ({@code ONLY0}, {@code ONLY1}) so that a client bootstrapped there talks to that broker alone.
 *
 * <p>Rates are only bounded from above: a loaded machine makes clients slower, never faster.
 */
class ClientQuotaTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_admin=\"admin-secret\";";
    private static final int QUOTA = 100_000;
    private static final int RECORD_BYTES = 10_000;
    private static final int RECORDS = 150;

    @TempDir
    static Path dir;

    private static TestingServer zooKeeper;
    private static final List<Broker> brokers = new ArrayList<>();

    @BeforeAll
    static void startBrokers() throws Exception {
        zooKeeper = new TestingServer(true);
        for (int id = 0; id < 2; id++) {
            brokers.add(Broker.start(BrokerConfig.parse(brokerProperties(id))));
        }
    }

    @AfterAll
    static void stopBrokers() throws IOException {
        for (Broker broker : brokers) {
            broker.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private static Map<String, String> brokerProperties(int id) {
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", Integer.toString(id));
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,ONLY" + id + "://127.0.0.1:0");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,ONLY" + id
                + ":PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256");
        props.put("sasl.jaas.config", JAAS);
        props.put("log.dirs", dir.resolve("logs-" + id).toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/quotas");
        props.put("zookeeper.session.timeout.ms", "6000");
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "1");
        props.putAll(SingleBrokerSettings.of(1));
        return props;
    }

    private static String bootstrap() {
        return "127.0.0.1:" + brokers.get(0).boundPort("PLAINTEXT");
    }

    private static String only(int id) {
        return "127.0.0.1:" + brokers.get(id).boundPort("ONLY" + id);
    }

    private static ClientQuotaEntity user(String name) {
        return new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.USER, name));
    }

    private static ClientQuotaEntity client(String name) {
        return new ClientQuotaEntity(java.util.Collections.singletonMap(ClientQuotaEntity.CLIENT_ID, name));
    }

    private static ClientQuotaEntity userAndClient(String user, String clientId) {
        Map<String, String> parts = new HashMap<>();
        parts.put(ClientQuotaEntity.USER, user);
        parts.put(ClientQuotaEntity.CLIENT_ID, clientId);
        return new ClientQuotaEntity(parts);
    }

    private static ClientQuotaAlteration set(ClientQuotaEntity entity, String key, Double value) {
        return new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)));
    }

    private static void alter(ClientQuotaAlteration... alterations) throws Exception {
        try (Admin admin = Clients.admin(bootstrap())) {
            admin.alterClientQuotas(List.of(alterations)).all().get(20, TimeUnit.SECONDS);
        }
    }

    private static Map<ClientQuotaEntity, Map<String, Double>> describe(String bootstrap, ClientQuotaFilter filter)
            throws Exception {
        try (Admin admin = Clients.admin(bootstrap)) {
            return admin.describeClientQuotas(filter).entities().get(20, TimeUnit.SECONDS);
        }
    }

    /** Waits until every broker describes {@code entity} with {@code values}: each learns it from its watch. */
    private static void awaitEveryBroker(ClientQuotaEntity entity, Map<String, Double> values) {
        for (int id = 0; id < brokers.size(); id++) {
            String only = only(id);
            await("broker " + id + " has the quotas of " + entity).until(() -> values.equals(describe(only,
                    ClientQuotaFilter.all()).get(entity)));
        }
    }

    @Test
    void quotasOfUsersClientsAndDefaultsAreSetDescribedAndRemoved() throws Exception {
        try {
            setDescribeAndRemove();
        } finally {
            // The defaults would apply to the other tests' clients (the default user before any client id).
            alter(set(user(null), "producer_byte_rate", null), set(client(null), "consumer_byte_rate", null));
            for (int id = 0; id < brokers.size(); id++) {
                String only = only(id);
                await("broker " + id + " without default quotas").until(() -> {
                    Map<ClientQuotaEntity, Map<String, Double>> all = describe(only, ClientQuotaFilter.all());
                    return !all.containsKey(user(null)) && !all.containsKey(client(null));
                });
            }
        }
    }

    private static void setDescribeAndRemove() throws Exception {
        alter(new ClientQuotaAlteration(user("alice"), List.of(
                        new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0),
                        new ClientQuotaAlteration.Op("consumer_byte_rate", 2048.0))),
                set(client("app-1"), "request_percentage", 150.0),
                set(user(null), "producer_byte_rate", 500.0),
                set(client(null), "consumer_byte_rate", 700.0),
                set(userAndClient("alice", "app-1"), "producer_byte_rate", 300.0));
        awaitEveryBroker(user("alice"), Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0));

        assertEquals(Map.of(user("alice"), Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0)),
                describe(bootstrap(), ClientQuotaFilter.containsOnly(List.of(
                        ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))));
        assertEquals(Map.of(user(null), Map.of("producer_byte_rate", 500.0)),
                describe(bootstrap(), ClientQuotaFilter.containsOnly(List.of(
                        ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER)))));
        assertEquals(Map.of(client("app-1"), Map.of("request_percentage", 150.0),
                        client(null), Map.of("consumer_byte_rate", 700.0)),
                describe(bootstrap(), ClientQuotaFilter.containsOnly(List.of(
                        ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID)))));
        // Not strict: alice's own entity and the one of alice with app-1.
        assertEquals(Map.of(user("alice"), Map.of("producer_byte_rate", 1024.0, "consumer_byte_rate", 2048.0),
                        userAndClient("alice", "app-1"), Map.of("producer_byte_rate", 300.0)),
                describe(bootstrap(), ClientQuotaFilter.contains(List.of(
                        ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))));

        try (Admin admin = Clients.admin(bootstrap())) {
            admin.alterClientQuotas(List.of(set(user("alice"), "producer_byte_rate", 99.0)),
                    new AlterClientQuotasOptions().validateOnly(true)).all().get(20, TimeUnit.SECONDS);
        }
        assertEquals(1024.0, describe(bootstrap(), ClientQuotaFilter.all()).get(user("alice"))
                .get("producer_byte_rate"), "validate_only changes nothing");

        alter(set(user("alice"), "producer_byte_rate", null), set(client(null), "consumer_byte_rate", null));
        awaitEveryBroker(user("alice"), Map.of("consumer_byte_rate", 2048.0));
        assertFalse(describe(bootstrap(), ClientQuotaFilter.all()).containsKey(client(null)),
                "an entity with no quota left is not described");
    }

    @Test
    void anUnknownKeyAWrongValueAndAnIpEntityAreRefusedWithInvalidRequest() throws Exception {
        try (Admin admin = Clients.admin(bootstrap())) {
            ExecutionException unknown = assertThrows(ExecutionException.class, () -> admin.alterClientQuotas(List.of(
                    set(user("bob"), "producer_rate", 10.0))).all().get(20, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, unknown.getCause());
            assertTrue(unknown.getCause().getMessage().contains("producer_rate"), unknown.getCause().getMessage());
            ExecutionException fraction = assertThrows(ExecutionException.class, () -> admin.alterClientQuotas(
                    List.of(set(user("bob"), "producer_byte_rate", 10.5))).all().get(20, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, fraction.getCause());
            ExecutionException ip = assertThrows(ExecutionException.class, () -> admin.alterClientQuotas(List.of(
                    set(new ClientQuotaEntity(Map.of(ClientQuotaEntity.IP, "10.0.0.1")), "connection_creation_rate",
                            10.0))).all().get(20, TimeUnit.SECONDS));
            assertInstanceOf(InvalidRequestException.class, ip.getCause());
        }
        assertFalse(describe(bootstrap(), ClientQuotaFilter.all()).containsKey(user("bob")));
    }

    @Test
    void aUsersQuotasAndScramCredentialShareItsZnodeWithoutLosingEachOther() throws Exception {
        try (Admin admin = Clients.admin(bootstrap())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("frank",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "frank-secret")))
                    .all().get(20, TimeUnit.SECONDS);
        }
        alter(set(user("frank"), "producer_byte_rate", 4096.0),
                set(userAndClient("frank", "frank-app"), "consumer_byte_rate", 8192.0));
        awaitEveryBroker(user("frank"), Map.of("producer_byte_rate", 4096.0));
        try (CuratorFramework zk = CuratorFrameworkFactory.newClient(zooKeeper.getConnectString() + "/quotas",
                new RetryOneTime(100))) {
            zk.start();
            String frank = new String(zk.getData().forPath("/config/users/frank"), StandardCharsets.UTF_8);
            assertTrue(frank.matches("\\{\"version\":1,\"config\":\\{.*\"SCRAM-SHA-256\":\"salt=.*"), frank);
            assertTrue(frank.contains("\"producer_byte_rate\":\"4096\""), frank);
            String frankApp = new String(zk.getData().forPath("/config/users/frank/clients/frank-app"),
                    StandardCharsets.UTF_8);
            assertEquals("{\"version\":1,\"config\":{\"consumer_byte_rate\":\"8192\"}}", frankApp);
        }
        assertScramLogin("frank", "frank-secret");

        // A new password: the quota stays; a new quota: the password stays.
        try (Admin admin = Clients.admin(bootstrap())) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("frank",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "frank-new-secret")))
                    .all().get(20, TimeUnit.SECONDS);
        }
        assertEquals(Map.of("producer_byte_rate", 4096.0),
                describe(bootstrap(), ClientQuotaFilter.all()).get(user("frank")));
        alter(set(user("frank"), "consumer_byte_rate", 1000.0));
        awaitEveryBroker(user("frank"), Map.of("producer_byte_rate", 4096.0, "consumer_byte_rate", 1000.0));
        assertScramLogin("frank", "frank-new-secret");
    }

    private static void assertScramLogin(String user, String password) {
        for (Broker broker : brokers) {
            String sasl = "127.0.0.1:" + broker.boundPort("SASL_PLAINTEXT");
            await(user + " logging in with SCRAM on broker " + broker.config().brokerId).ignoreExceptions()
                    .untilAsserted(() -> {
                        try (Admin admin = Clients.admin(sasl, "security.protocol", "SASL_PLAINTEXT",
                                "sasl.mechanism", "SCRAM-SHA-256", "sasl.jaas.config",
                                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                                        + user + "\" password=\"" + password + "\";")) {
                            assertEquals(2, admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size());
                        }
                    });
        }
    }

    private static void createTopic(String topic) throws Exception {
        try (Admin admin = Clients.admin(bootstrap())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(20, TimeUnit.SECONDS);
        }
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name)).findFirst()
                .map(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .orElseThrow(() -> new AssertionError("no client metric " + name));
    }

    private static void produce(KafkaProducer<String, String> producer, String topic, int records) throws Exception {
        char[] value = new char[RECORD_BYTES];
        Arrays.fill(value, 'q');
        String payload = new String(value);
        for (int i = 0; i < records; i++) {
            producer.send(new ProducerRecord<>(topic, payload));
        }
        producer.flush();
    }

    @Test
    void aProducerOverItsClientIdQuotaIsThrottledAndOneWithoutAQuotaIsNot() throws Exception {
        createTopic("produce-quota");
        alter(set(client("slow-producer"), "producer_byte_rate", (double) QUOTA));
        awaitEveryBroker(client("slow-producer"), Map.of("producer_byte_rate", (double) QUOTA));

        try (KafkaProducer<String, String> slow = Clients.producer(bootstrap(), "client.id", "slow-producer");
             KafkaProducer<String, String> fast = Clients.producer(bootstrap(), "client.id", "fast-producer")) {
            long start = System.nanoTime();
            produce(slow, "produce-quota", RECORDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            double rate = RECORDS * (double) RECORD_BYTES / seconds;
            assertTrue(metric(slow.metrics(), "produce-throttle-time-max") > 0, "the slow producer was throttled");
            assertTrue(rate <= QUOTA * 1.5, "produced at " + rate + " B/s over " + seconds + " s, quota " + QUOTA);
            // The leader's bean, under Kafka's name: the quota is the client id's, so there is no user tag.
            javax.management.ObjectName bean = new javax.management.ObjectName(
                    "kafka.server:type=Produce,client-id=slow-producer");
            javax.management.MBeanServer server = java.lang.management.ManagementFactory.getPlatformMBeanServer();
            assertTrue((Double) server.getAttribute(bean, "byte-rate") > 0, "byte-rate of " + bean);
            assertTrue((Double) server.getAttribute(bean, "throttle-time") > 0, "throttle-time of " + bean);

            produce(fast, "produce-quota", 20);
            assertFalse(metric(fast.metrics(), "produce-throttle-time-max") > 0, "the fast producer was throttled");
        }
    }

    @Test
    void aConsumerOverItsClientIdQuotaIsThrottled() throws Exception {
        createTopic("fetch-quota");
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(), "client.id", "filler")) {
            produce(producer, "fetch-quota", RECORDS);
        }
        alter(set(client("slow-consumer"), "consumer_byte_rate", (double) QUOTA));
        awaitEveryBroker(client("slow-consumer"), Map.of("consumer_byte_rate", (double) QUOTA));

        TopicPartition partition = new TopicPartition("fetch-quota", 0);
        try (KafkaConsumer<String, String> slow = Clients.consumer(bootstrap(), "client.id", "slow-consumer");
             KafkaConsumer<String, String> fast = Clients.consumer(bootstrap(), "client.id", "fast-consumer")) {
            slow.assign(List.of(partition));
            long start = System.nanoTime();
            int[] received = {0};
            await("the slow consumer reading every record").atMost(java.time.Duration.ofSeconds(60)).until(() -> {
                ConsumerRecords<String, String> records = slow.poll(java.time.Duration.ofMillis(100));
                received[0] += records.count();
                return received[0] >= RECORDS;
            });
            double seconds = (System.nanoTime() - start) / 1e9;
            double rate = received[0] * (double) RECORD_BYTES / seconds;
            assertTrue(metric(slow.metrics(), "fetch-throttle-time-max") > 0, "the slow consumer was throttled");
            assertTrue(rate <= QUOTA * 1.5, "fetched at " + rate + " B/s over " + seconds + " s, quota " + QUOTA);

            fast.assign(List.of(partition));
            int[] fastReceived = {0};
            await("the fast consumer reading every record").until(() -> {
                fastReceived[0] += fast.poll(java.time.Duration.ofMillis(100)).count();
                return fastReceived[0] >= RECORDS;
            });
            assertFalse(metric(fast.metrics(), "fetch-throttle-time-max") > 0, "the fast consumer was throttled");
        }
    }

    /**
     * KIP-219 on the wire: a response over the quota carries its throttle time and goes out at once, and the broker
     * then reads nothing more from that connection for that long (a client that ignored the throttle time gains
     * nothing). Timed from below only: a loaded machine makes the second answer later, never earlier.
     */
    @Test
    void theBrokerStopsReadingFromAThrottledConnectionForTheThrottleTime() throws Exception {
        createTopic("raw-quota");
        // RawConnection's client id; 1000 B/s over the 10 s a fresh quota is measured over allows 10000 B at once.
        alter(set(client("raw-client"), "producer_byte_rate", 1000.0));
        awaitEveryBroker(client("raw-client"), Map.of("producer_byte_rate", 1000.0));
        int leader;
        try (Admin admin = Clients.admin(bootstrap())) {
            leader = admin.describeTopics(List.of("raw-quota")).allTopicNames().get(20, TimeUnit.SECONDS)
                    .get("raw-quota").partitions().get(0).leader().id();
        }
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000);
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("raw-quota");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(new byte[11_000]))));
        data.topicData().add(topic);
        short version = 12;
        try (RawConnection raw = new RawConnection(brokers.get(leader).boundPort("PLAINTEXT"))) {
            RequestHeader produce = raw.send(new ProduceRequest.Builder(version, version, data).build(version), 1);
            ProduceResponse response = (ProduceResponse) raw.receive(produce);
            assertEquals(Errors.NONE.code(), response.data().responses().iterator().next().partitionResponses()
                    .get(0).errorCode());
            int throttleMs = response.throttleTimeMs();
            assertTrue(throttleMs > 0, "throttle time " + throttleMs);
            long sent = System.nanoTime();
            RequestHeader versions = raw.send(new ApiVersionsRequest.Builder().build(), 2);
            raw.receive(versions);
            long waitedMs = (System.nanoTime() - sent) / 1_000_000;
            // Less 50 ms: the throttle started when the produce response was written, a little before we sent.
            assertTrue(waitedMs >= throttleMs - 50, "answered after " + waitedMs + " ms, throttled " + throttleMs);

            // acks=0: no response to carry the throttle time, and still no reading for at least as long (with the
            // 11000 B above, a few bytes more are at least 1.1 s over the quota's 10 s allowance; not much more, so
            // that the throttle stays below the connection's read timeout). The broker reads a connection's
            // requests ahead while it handles one, so the request sent right behind the produce may already be in;
            // its answer comes after the produce was handled, and the one sent after that answer waits.
            ProduceRequestData small = new ProduceRequestData().setAcks((short) 0).setTimeoutMs(10_000);
            small.topicData().add(new ProduceRequestData.TopicProduceData().setName("raw-quota"));
            small.topicData().iterator().next().partitionData().add(new ProduceRequestData.PartitionProduceData()
                    .setIndex(0).setRecords(MemoryRecords.withRecords(Compression.NONE,
                            new SimpleRecord(new byte[100]))));
            long sentUnacknowledged = System.nanoTime();
            raw.send(new ProduceRequest.Builder(version, version, small).build(version), 3);
            raw.receive(raw.send(new ApiVersionsRequest.Builder().build(), 4));
            RequestHeader again = raw.send(new ApiVersionsRequest.Builder().build(), 5);
            raw.receive(again);
            long waitedAgainMs = (System.nanoTime() - sentUnacknowledged) / 1_000_000;
            assertTrue(waitedAgainMs >= 1_000, "answered " + waitedAgainMs + " ms after an acks=0 produce over the "
                    + "quota");
        }
    }
}
