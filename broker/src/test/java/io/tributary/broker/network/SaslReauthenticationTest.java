package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Re-authentication (KIP-368) with {@code connections.max.reauth.ms}: the session lifetime reaches the client, the
 * Java client re-authenticates on its open connection and its requests keep being served, a client that lets its
 * session end is disconnected at its next request, and re-authentication as another user is refused.
 */
class SaslReauthenticationTest {

    private static final long LIFETIME_MS = 1_500;
    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

    private final FakeHandler handler = new FakeHandler();
    private SocketServer server;
    private int port;

    @BeforeEach
    void start() {
        handler.on(ApiKeys.SASL_HANDSHAKE, (context, request) -> CompletableFuture.failedFuture(
                new IllegalStateException("answered by the network layer")));
        handler.on(ApiKeys.SASL_AUTHENTICATE, (context, request) -> CompletableFuture.failedFuture(
                new IllegalStateException("answered by the network layer")));
        Map<String, Object> properties = new HashMap<>();
        properties.put(BrokerConfig.LISTENERS, "SASL_PLAINTEXT://127.0.0.1:0");
        properties.put("security.inter.broker.protocol", "SASL_PLAINTEXT");
        properties.put("sasl.enabled.mechanisms", "PLAIN");
        properties.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        properties.put("listener.name.sasl_plaintext.plain.sasl.jaas.config", JAAS);
        properties.put(BrokerConfig.CONNECTIONS_MAX_REAUTH_MS, Long.toString(LIFETIME_MS));
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "1");
        properties.put(BrokerConfig.NUM_IO_THREADS, "2");
        server = new SocketServer(BrokerConfig.parse(properties), handler, Transport.best(), Time.SYSTEM);
        port = server.start().get("SASL_PLAINTEXT");
        handler.advertise(port);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void theJavaClientReauthenticatesOnItsConnectionAndKeepsBeingServed() throws Exception {
        Map<String, Object> client = new HashMap<>();
        client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        client.put("security.protocol", "SASL_PLAINTEXT");
        client.put("sasl.mechanism", "PLAIN");
        client.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"alice\" password=\"alice-secret\";");
        try (Admin admin = Admin.create(client)) {
            Waits.await("two re-authentications, every request served meanwhile").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                        assertEquals(1, admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size());
                        assertTrue(total(admin.metrics(), "successful-reauthentication-total") >= 2,
                                () -> "re-authentications: " + total(admin.metrics(),
                                        "successful-reauthentication-total"));
                    });
            assertEquals(0, total(admin.metrics(), "failed-reauthentication-total"));
        }
        assertTrue(handler.calls.stream().filter(call -> call.context().header().apiKey() != ApiKeys.API_VERSIONS)
                .allMatch(call -> call.context().principal().equals(
                        new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"))), "every request as alice");
    }

    private static double total(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(entry -> entry.getKey().name().equals(name))
                .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void aClientThatLetsItsSessionEndIsDisconnectedAtItsNextRequest() throws Exception {
        try (TestClient client = TestClient.connect(port)) {
            long authenticatedAt = System.nanoTime();
            SaslAuthenticateResponse answer = login(client, "alice", "alice-secret");
            assertEquals(Errors.NONE, answer.error());
            assertEquals(LIFETIME_MS, answer.data().sessionLifetimeMs(), "the lifetime reaches the client");
            MetadataResponse metadata = client.roundTrip(metadataRequest());
            assertEquals(Errors.NONE, metadata.topLevelError());
            Waits.await("the session's end").atMost(Duration.ofSeconds(10)).until(() ->
                    System.nanoTime() - authenticatedAt > TimeUnit.MILLISECONDS.toNanos(LIFETIME_MS + 200));
            client.send(metadataRequest());
            client.awaitClosedByServer();
        }
    }

    @Test
    void reauthenticationAsTheSameUserRenewsTheSessionAndAsAnotherIsRefused() throws Exception {
        try (TestClient client = TestClient.connect(port)) {
            assertEquals(Errors.NONE, login(client, "alice", "alice-secret").error());
            assertEquals(Errors.NONE, login(client, "alice", "alice-secret").error(), "re-authenticated");
            assertEquals(Errors.NONE, ((MetadataResponse) client.roundTrip(metadataRequest())).topLevelError());
            SaslAuthenticateResponse refused = login(client, "bob", "bob-secret");
            assertEquals(Errors.SASL_AUTHENTICATION_FAILED, refused.error());
            assertTrue(refused.errorMessage().contains("Cannot change principal"), refused.errorMessage());
            client.awaitClosedByServer();
        }
    }

    /** SaslHandshake v1 and one SaslAuthenticate v2 with a PLAIN token. */
    private static SaslAuthenticateResponse login(TestClient client, String user, String password)
            throws IOException {
        SaslHandshakeResponse handshake = client.roundTrip(new SaslHandshakeRequest.Builder(
                new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));
        assertEquals(Errors.NONE, handshake.error());
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        return client.roundTrip(new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                .setAuthBytes(token)).build((short) 2));
    }

    private static MetadataRequest metadataRequest() {
        return new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of())).build((short) 12);
    }
}
