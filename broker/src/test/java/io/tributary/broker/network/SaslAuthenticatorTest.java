package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The SASL stage of a SASL_PLAINTEXT listener in front of a {@link FakeHandler}: the principal a request carries,
 * the v0 handshake with bare tokens, and an unknown mechanism.
 */
class SaslAuthenticatorTest {

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_alice=\"alice-secret\";";

    private final FakeHandler handler = new FakeHandler();
    private SocketServer server;
    private int port;

    @BeforeEach
    void start() {
        // Advertised, so that the Java client finds the SASL versions it needs in ApiVersions.
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
    void requestsAfterPlainAuthenticationCarryTheUsersPrincipal() throws Exception {
        Map<String, Object> client = new HashMap<>();
        client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        client.put("security.protocol", "SASL_PLAINTEXT");
        client.put("sasl.mechanism", "PLAIN");
        client.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"alice\" password=\"alice-secret\";");
        try (Admin admin = Admin.create(client)) {
            assertEquals(1, admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size());
        }
        List<FakeHandler.Call> described = handler.calls.stream()
                .filter(call -> call.context().header().apiKey() == ApiKeys.DESCRIBE_CLUSTER
                        || call.context().header().apiKey() == ApiKeys.METADATA).toList();
        assertTrue(!described.isEmpty(), "the admin client's requests reached the handler");
        for (FakeHandler.Call call : described) {
            assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), call.context().principal());
        }
        // The Java client asks ApiVersions twice: before authenticating (to learn the SASL versions) and after.
        FakeHandler.Call first = handler.calls.get(0);
        assertEquals(ApiKeys.API_VERSIONS, first.context().header().apiKey());
        assertEquals(KafkaPrincipal.ANONYMOUS, first.context().principal(), "ApiVersions before authentication");
    }

    @Test
    void aVersion0HandshakeTakesBareTokens() throws IOException {
        try (TestClient client = TestClient.connect(port)) {
            client.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN"))
                    .build((short) 0));
            assertEquals(Errors.NONE, handshakeAnswer(client.receiveFrame()).error());
            client.sendFrame(ByteBuffer.wrap("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8)));
            assertEquals(0, client.receiveFrame().remaining(), "PLAIN's empty final challenge, as a bare frame");
            client.send(new MetadataRequest.Builder(new MetadataRequestData().setTopics(List.of()))
                    .build((short) 12));
            client.receiveFrame();
        }
        FakeHandler.Call metadata = handler.calls.stream()
                .filter(call -> call.context().header().apiKey() == ApiKeys.METADATA).findFirst().orElseThrow();
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice"), metadata.context().principal());
    }

    @Test
    void anUnknownMechanismIsAnsweredWithTheEnabledOnesThenTheConnectionCloses() throws IOException {
        try (TestClient client = TestClient.connect(port)) {
            client.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("GSSAPI"))
                    .build((short) 1));
            SaslHandshakeResponse answer = handshakeAnswer(client.receiveFrame());
            assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM, answer.error());
            assertEquals(List.of("PLAIN"), answer.data().mechanisms());
            client.awaitClosedByServer();
        }
    }

    private static SaslHandshakeResponse handshakeAnswer(ByteBuffer frame) {
        ResponseHeader.parse(frame, ApiKeys.SASL_HANDSHAKE.responseHeaderVersion((short) 0));
        return (SaslHandshakeResponse) AbstractResponse.parseResponse(ApiKeys.SASL_HANDSHAKE,
                new ByteBufferAccessor(frame), (short) 0);
    }
}
