package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authorization with ACLs on three in-process brokers in one ZooKeeper, with the official Java client: SASL PLAIN
 * users {@code alice}, {@code bob} and {@code admin}, {@code super.users=User:admin;User:broker}, where {@code broker}
 * is the brokers' own inter-broker login. Every broker has the shared {@code SASL_PLAINTEXT} listener (also the
 * inter-broker one) and one listener of its own ({@code ONLY0}, {@code ONLY1}, {@code ONLY2}) that no other broker
 * has, so that a client bootstrapped there sees only that broker and a test can tell which broker decided.
 */
class AuthorizationTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"broker\" password=\"broker-secret\" user_broker=\"broker-secret\" "
            + "user_admin=\"admin-secret\" user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

    @TempDir
    static Path dir;

    private static TestingServer zooKeeper;
    private static final List<Broker> brokers = new ArrayList<>();

    @BeforeAll
    static void startBrokers() throws Exception {
        zooKeeper = new TestingServer(true);
        for (int id = 0; id < 3; id++) {
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
        props.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0,ONLY" + id + "://127.0.0.1:0");
        props.put("listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT,ONLY" + id + ":SASL_PLAINTEXT");
        props.put("inter.broker.listener.name", "SASL_PLAINTEXT");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        props.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        props.put("listener.name.only" + id + ".plain.sasl.jaas.config", JAAS);
        props.put("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer");
        props.put("super.users", "User:admin;User:broker");
        props.put("log.dirs", dir.resolve("logs-" + id).toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/acls");
        props.put("zookeeper.session.timeout.ms", "6000");
        props.put("num.io.threads", "2");
        props.put("num.network.threads", "1");
        props.putAll(SingleBrokerSettings.of(1));
        return props;
    }

    private static String bootstrap() {
        return "127.0.0.1:" + brokers.get(0).boundPort("SASL_PLAINTEXT");
    }

    /** The listener only broker {@code id} has: a client bootstrapped here talks to that broker alone. */
    private static String only(int id) {
        return "127.0.0.1:" + brokers.get(id).boundPort("ONLY" + id);
    }

    private static String[] as(String user, String... more) {
        List<String> settings = new ArrayList<>(List.of("security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "PLAIN", "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                        + "\" password=\"" + user + "-secret\";"));
        settings.addAll(List.of(more));
        return settings.toArray(String[]::new);
    }

    private static AclBinding acl(ResourceType type, String name, String user, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }

    /**
     * Creates ACLs and waits until every broker has them: each broker learns of them from its ZooKeeper watch, and a
     * client's next request may go to any broker.
     */
    private static void createAcls(AclBinding... bindings) throws Exception {
        try (Admin admin = Clients.admin(bootstrap(), as("admin"))) {
            admin.createAcls(List.of(bindings)).all().get(30, TimeUnit.SECONDS);
        }
        for (int id = 0; id < brokers.size(); id++) {
            try (Admin admin = Clients.admin(only(id), as("admin"))) {
                await("broker " + id + " has the new ACLs").until(() -> admin.describeAcls(AclBindingFilter.ANY)
                        .values().get(30, TimeUnit.SECONDS).containsAll(List.of(bindings)));
            }
        }
    }

    private static void createTopic(String topic, int replicas, Map<String, String> configs) throws Exception {
        try (Admin admin = Clients.admin(bootstrap(), as("admin"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) replicas).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The first cause of {@code failure} of type {@code type}, failing the test if there is none. */
    private static <T extends Throwable> T causeOf(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return type.cast(cause);
            }
        }
        throw new AssertionError("expected a " + type.getSimpleName() + " in " + failure, failure);
    }

    @Test
    void aliceWithWriteProducesAndBobWithoutIsRefusedWithTopicAuthorizationException() throws Exception {
        createTopic("orders", 1, Map.of());
        createAcls(acl(ResourceType.TOPIC, "orders", "alice", AclOperation.WRITE));
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(), as("alice"))) {
            producer.send(new ProducerRecord<>("orders", "k", "from alice")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(),
                as("bob", "enable.idempotence", "false"))) {
            Exception refused = assertThrows(Exception.class, () -> producer.send(
                    new ProducerRecord<>("orders", "k", "from bob")).get(30, TimeUnit.SECONDS));
            assertEquals(Set.of("orders"), causeOf(refused, TopicAuthorizationException.class).unauthorizedTopics());
        }
    }

    @Test
    void aPrefixedAllowLetsBobCreateAndWriteHisTopicsAndALiteralDenyBeatsIt() throws Exception {
        AclBinding createPrefixed = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "bob-", PatternType.PREFIXED),
                new AccessControlEntry("User:bob", "*", AclOperation.CREATE, AclPermissionType.ALLOW));
        AclBinding writePrefixed = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "bob-", PatternType.PREFIXED),
                new AccessControlEntry("User:bob", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
        AclBinding denyLocked = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "bob-locked",
                PatternType.LITERAL), new AccessControlEntry("User:bob", "*", AclOperation.WRITE,
                AclPermissionType.DENY));
        createAcls(createPrefixed, writePrefixed, denyLocked);
        try (Admin bob = Clients.admin(bootstrap(), as("bob"))) {
            bob.createTopics(List.of(new NewTopic("bob-orders", 1, (short) 1), new NewTopic("bob-locked", 1,
                    (short) 1))).all().get(30, TimeUnit.SECONDS);
            ExecutionException refused = assertThrows(ExecutionException.class, () -> bob.createTopics(
                    List.of(new NewTopic("alice-orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS));
            causeOf(refused, TopicAuthorizationException.class);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(),
                as("bob", "enable.idempotence", "false"))) {
            await("bob-orders has a leader").ignoreExceptions().until(() -> producer.send(
                    new ProducerRecord<>("bob-orders", "k", "v")).get(30, TimeUnit.SECONDS) != null);
            Exception denied = assertThrows(Exception.class, () -> producer.send(
                    new ProducerRecord<>("bob-locked", "k", "v")).get(30, TimeUnit.SECONDS));
            assertEquals(Set.of("bob-locked"), causeOf(denied, TopicAuthorizationException.class)
                    .unauthorizedTopics());
        }
    }

    @Test
    void aShareConsumerNeedsReadOnItsGroupAndTopic() throws Exception {
        createTopic("shared", 1, Map.of());
        try (Admin admin = Clients.admin(bootstrap(), as("admin"))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, "alice-share"),
                    List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                            AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(), as("admin"))) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("shared", "job-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        createAcls(acl(ResourceType.TOPIC, "shared", "alice", AclOperation.READ),
                acl(ResourceType.GROUP, "alice-share", "alice", AclOperation.READ));
        try (KafkaShareConsumer<String, String> alice = shareConsumer("alice", "alice-share")) {
            alice.subscribe(List.of("shared"));
            List<String> read = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read.size() < 5 && System.nanoTime() < deadline) {
                alice.poll(Duration.ofMillis(200)).forEach(record -> read.add(record.value()));
            }
            assertEquals(5, read.size(), "alice reads every record: " + read);
        }
        // bob may read the topic but not use alice's group
        createAcls(acl(ResourceType.TOPIC, "shared", "bob", AclOperation.READ));
        try (KafkaShareConsumer<String, String> bob = shareConsumer("bob", "alice-share")) {
            bob.subscribe(List.of("shared"));
            Exception refused = assertThrows(Exception.class, () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline) {
                    bob.poll(Duration.ofMillis(200));
                }
            });
            causeOf(refused, GroupAuthorizationException.class);
        }
    }

    private static KafkaShareConsumer<String, String> shareConsumer(String user, String group) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        String[] settings = as(user);
        for (int i = 0; i < settings.length; i += 2) {
            props.put(settings[i], settings[i + 1]);
        }
        return new KafkaShareConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    @Test
    void aConsumerThatMayDescribeButNotReadATopicGetsTopicAuthorizationException() throws Exception {
        createTopic("describe-only", 1, Map.of());
        createAcls(acl(ResourceType.TOPIC, "describe-only", "bob", AclOperation.DESCRIBE));
        TopicPartition partition = new TopicPartition("describe-only", 0);
        try (KafkaConsumer<String, String> consumer = Clients.consumer(bootstrap(), as("bob"))) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            Exception refused = assertThrows(Exception.class, () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            });
            assertEquals(Set.of("describe-only"), causeOf(refused, TopicAuthorizationException.class)
                    .unauthorizedTopics());
        }
    }

    @Test
    void metadataHidesFromBobTheTopicsHeMayNotDescribe() throws Exception {
        createTopic("hidden", 1, Map.of());
        createAcls(acl(ResourceType.TOPIC, "hidden", "alice", AclOperation.READ));
        try (Admin bob = Clients.admin(bootstrap(), as("bob"));
             Admin alice = Clients.admin(bootstrap(), as("alice"))) {
            assertFalse(bob.listTopics().names().get(30, TimeUnit.SECONDS).contains("hidden"));
            assertTrue(alice.listTopics().names().get(30, TimeUnit.SECONDS).contains("hidden"),
                    "Read implies Describe");
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> bob.describeTopics(List.of("hidden")).allTopicNames().get(30, TimeUnit.SECONDS));
            causeOf(refused, TopicAuthorizationException.class);
        }
    }

    @Test
    void aliceWithoutGroupReadCannotCommitAndCanOnceGranted() throws Exception {
        createTopic("commits", 1, Map.of());
        createAcls(acl(ResourceType.TOPIC, "commits", "alice", AclOperation.READ));
        TopicPartition partition = new TopicPartition("commits", 0);
        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(bootstrap(), "alice-group",
                as("alice"))) {
            consumer.assign(List.of(partition));
            Exception refused = assertThrows(Exception.class,
                    () -> consumer.commitSync(Map.of(partition, new OffsetAndMetadata(0))));
            assertEquals("alice-group", causeOf(refused, GroupAuthorizationException.class).groupId());
        }
        createAcls(acl(ResourceType.GROUP, "alice-group", "alice", AclOperation.READ));
        try (KafkaConsumer<String, String> consumer = Clients.groupConsumer(bootstrap(), "alice-group",
                as("alice"))) {
            consumer.assign(List.of(partition));
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(0)));
            assertEquals(0, consumer.committed(Set.of(partition)).get(partition).offset());
        }
    }

    @Test
    void aTransactionalProducerWithoutTransactionalIdWriteIsRefused() throws Exception {
        createTopic("txn-orders", 1, Map.of());
        createAcls(acl(ResourceType.TOPIC, "txn-orders", "alice", AclOperation.WRITE));
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(),
                as("alice", "transactional.id", "alice-tx"))) {
            Exception refused = assertThrows(Exception.class, producer::initTransactions);
            causeOf(refused, TransactionalIdAuthorizationException.class);
        }
        createAcls(acl(ResourceType.TRANSACTIONAL_ID, "alice-tx", "alice", AclOperation.WRITE));
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(),
                as("alice", "transactional.id", "alice-tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("txn-orders", "k", "in a transaction"));
            producer.commitTransaction();
        }
    }

    @Test
    void describeAndDeleteAclsRoundTripAndADeletionMadeOnOneBrokerTakesEffectOnAnother() throws Exception {
        createTopic("ledger", 1, Map.of());
        AclBinding bobDescribes = acl(ResourceType.TOPIC, "ledger", "bob", AclOperation.DESCRIBE);
        AclBindingFilter ledgerAcls = new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.TOPIC, "ledger", PatternType.LITERAL),
                AccessControlEntryFilter.ANY);
        try (Admin admin0 = Clients.admin(only(0), as("admin"));
             Admin bobOn1 = Clients.admin(only(1), as("bob"))) {
            admin0.createAcls(List.of(bobDescribes)).all().get(30, TimeUnit.SECONDS);
            assertEquals(List.of(bobDescribes), List.copyOf(admin0.describeAcls(ledgerAcls).values()
                    .get(30, TimeUnit.SECONDS)));
            await("broker 1 lets bob describe ledger").until(() -> describes(bobOn1, "ledger"));

            Collection<AclBinding> deleted = admin0.deleteAcls(List.of(ledgerAcls)).all().get(30, TimeUnit.SECONDS);
            assertEquals(List.of(bobDescribes), List.copyOf(deleted));
            assertTrue(admin0.describeAcls(ledgerAcls).values().get(30, TimeUnit.SECONDS).isEmpty());
            await("broker 1 refuses bob once the ACL is deleted through broker 0")
                    .until(() -> !describes(bobOn1, "ledger"));
        }
    }

    private static boolean describes(Admin admin, String topic) throws Exception {
        try {
            Map<String, TopicDescription> topics = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            return topics.containsKey(topic);
        } catch (ExecutionException e) {
            causeOf(e, TopicAuthorizationException.class);
            return false;
        }
    }

    @Test
    void clientQuotasNeedAlterConfigsOrDescribeConfigsOnTheCluster() throws Exception {
        ClientQuotaAlteration alteration = new ClientQuotaAlteration(new ClientQuotaEntity(Map.of(
                ClientQuotaEntity.USER, "bob")), List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0)));
        try (Admin bob = Clients.admin(bootstrap(), as("bob"))) {
            Exception alter = assertThrows(Exception.class,
                    () -> bob.alterClientQuotas(List.of(alteration)).all().get(30, TimeUnit.SECONDS));
            causeOf(alter, ClusterAuthorizationException.class);
            Exception describe = assertThrows(Exception.class,
                    () -> bob.describeClientQuotas(ClientQuotaFilter.all()).entities().get(30, TimeUnit.SECONDS));
            causeOf(describe, ClusterAuthorizationException.class);
        }
        createAcls(acl(ResourceType.CLUSTER, "kafka-cluster", "bob", AclOperation.ALTER_CONFIGS),
                acl(ResourceType.CLUSTER, "kafka-cluster", "bob", AclOperation.DESCRIBE_CONFIGS));
        try (Admin bob = Clients.admin(bootstrap(), as("bob"))) {
            bob.alterClientQuotas(List.of(alteration)).all().get(30, TimeUnit.SECONDS);
            assertEquals(Map.of("producer_byte_rate", 1024.0), bob.describeClientQuotas(ClientQuotaFilter.all())
                    .entities().get(30, TimeUnit.SECONDS).get(alteration.entity()));
        }
    }

    @Test
    void brokersReplicateWithAuthorizationOnBecauseTheirOwnPrincipalIsASuperUser() throws Exception {
        createTopic("replicated", 3, Map.of("min.insync.replicas", "3"));
        try (KafkaProducer<String, String> producer = Clients.producer(bootstrap(), as("admin"))) {
            for (int i = 0; i < 20; i++) {
                // acks=all with min.insync.replicas=3: each record is acknowledged only once both followers fetched it
                producer.send(new ProducerRecord<>("replicated", "k", "record-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        try (Admin admin = Clients.admin(bootstrap(), as("admin"))) {
            TopicDescription description = admin.describeTopics(List.of("replicated")).allTopicNames()
                    .get(30, TimeUnit.SECONDS).get("replicated");
            assertEquals(3, description.partitions().get(0).isr().size());
        }
    }

    @Test
    void anAuthorizerOtherThanTributarysIsRefusedAtStartUpNamingTheProperty() {
        Map<String, String> props = brokerProperties(9);
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        ConfigException refused = assertThrows(ConfigException.class, () -> BrokerConfig.parse(props));
        assertTrue(refused.getMessage().contains("authorizer.class.name"), refused.getMessage());
    }
}
