package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tributary.broker.Broker;
import io.tributary.broker.BrokerConfig;
import io.tributary.ra.TributaryResourceAdapter;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.SingleBrokerSettings;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Activations against a SASL listener: the adapter's {@code securityProtocol} with the activation's {@code user} and
 * {@code password} delivers (SCRAM-SHA-512, the default mechanism); a wrong password does not stop the deployment,
 * it logs the broker's refusal once and retries with back-off, without ever showing the password.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SecuredActivationTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private TestingServer zooKeeper;
    private Broker broker;
    private TestBootstrapContext context;
    private TributaryResourceAdapter adapter;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        zooKeeper = new TestingServer(true);
        Map<String, String> props = new HashMap<>();
        props.put("broker.id", "0");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "SCRAM-SHA-512");
        props.put("log.dirs", dir.resolve("logs").toString());
        props.put("zookeeper.connect", zooKeeper.getConnectString() + "/secured");
        props.putAll(SingleBrokerSettings.of(1));
        broker = Broker.start(BrokerConfig.parse(props));
        try (Admin admin = Clients.admin("127.0.0.1:" + broker.boundPort("PLAINTEXT"))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("mdb",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "mdb-secret"))).all()
                    .get(30, TimeUnit.SECONDS);
            admin.createTopics(List.of(new NewTopic("secured-orders", 1, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = Clients.producer("127.0.0.1:" + broker.boundPort("PLAINTEXT"))) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>("secured-orders", "order-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        context = new TestBootstrapContext();
        adapter = new TributaryResourceAdapter();
        adapter.setBootstrapServers("127.0.0.1:" + broker.boundPort("SASL_PLAINTEXT"));
        adapter.setSecurityProtocol("SASL_PLAINTEXT");
        adapter.setKafkaProperties("reconnect.backoff.max.ms=500");
        adapter.start(context);
    }

    @AfterAll
    void stop() throws Exception {
        if (adapter != null) {
            adapter.stop();
        }
        if (context != null) {
            context.close();
        }
        if (broker != null) {
            broker.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private TributaryActivationSpec spec(String password) throws Exception {
        TributaryActivationSpec spec = new TributaryActivationSpec();
        spec.setDestination("secured-orders");
        spec.setQueueMode("group");
        spec.setStartAt("earliest");
        spec.setUser("mdb");
        spec.setPassword(password);
        spec.setPlainRecordsAsText(true);
        spec.setResourceAdapter(adapter);
        spec.validate();
        return spec;
    }

    @Test
    void aWrongPasswordIsLoggedOnceAndRetriedAndTheRightOneDelivers() throws Exception {
        Logger inbound = (Logger) LoggerFactory.getLogger("io.tributary.ra.inbound");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        inbound.addAppender(logged);
        try {
            RecordingEndpointFactory refused = new RecordingEndpointFactory(false,
                    context.getTransactionSynchronizationRegistry());
            TributaryActivationSpec wrong = spec("not-the-password");
            adapter.endpointActivation(refused, wrong);
            Waits.await("the refused login logged").atMost(WAIT).until(() -> logged.list.stream()
                    .anyMatch(event -> event.getLevel() == Level.WARN
                            && event.getFormattedMessage().contains("SaslAuthenticationException")));
            adapter.endpointDeactivation(refused, wrong);
            assertEquals(List.of(), refused.attempts(), "nothing delivered with a refused login");
            assertEquals(1, logged.list.stream().filter(event -> event.getLevel() == Level.WARN
                    && event.getFormattedMessage().contains("SaslAuthenticationException")).count(),
                    "logged once, retried quietly");
            assertTrue(logged.list.stream().noneMatch(event -> event.getFormattedMessage()
                    .contains("not-the-password")), "the password is never logged");

            RecordingEndpointFactory delivered = new RecordingEndpointFactory(false,
                    context.getTransactionSynchronizationRegistry());
            TributaryActivationSpec right = spec("mdb-secret");
            adapter.endpointActivation(delivered, right);
            delivered.awaitDelivered(5, WAIT);
            adapter.endpointDeactivation(delivered, right);
            assertEquals(5, delivered.attempts().size());
        } finally {
            inbound.detachAppender(logged);
        }
    }
}
