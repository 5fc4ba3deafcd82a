package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.TestCertificates;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An SSL listener with {@code ssl.client.auth=required} in front of a {@link FakeHandler}: the client certificate's
 * subject becomes the principal of every request, and a client without a certificate is refused.
 */
class TlsClientAuthTest {

    @TempDir
    static Path dir;

    /** Made once: keytool runs take seconds. */
    private static TestCertificates certs;

    private final FakeHandler handler = new FakeHandler();
    private SocketServer server;
    private int port;

    @BeforeAll
    static void makeCertificates() throws Exception {
        certs = TestCertificates.create(dir);
    }

    @BeforeEach
    void start() {
        Map<String, Object> properties = new HashMap<>();
        properties.put(BrokerConfig.LISTENERS, "SSL://127.0.0.1:0");
        properties.put("security.inter.broker.protocol", "SSL");
        properties.put("ssl.keystore.location", certs.brokerKeyStore.toString());
        properties.put("ssl.keystore.type", "PKCS12");
        properties.put("ssl.keystore.password", TestCertificates.PASSWORD);
        properties.put("ssl.key.password", TestCertificates.PASSWORD);
        properties.put("listener.name.ssl.ssl.client.auth", "required");
        properties.put("ssl.truststore.location", certs.trustStore.toString());
        properties.put("ssl.truststore.type", "PKCS12");
        properties.put("ssl.truststore.password", TestCertificates.PASSWORD);
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "1");
        properties.put(BrokerConfig.NUM_IO_THREADS, "2");
        server = new SocketServer(BrokerConfig.parse(properties), handler, Transport.best(), Time.SYSTEM);
        port = server.start().get("SSL");
        handler.advertise(port);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Map<String, Object> client(boolean withCertificate) {
        Map<String, Object> client = new HashMap<>();
        client.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        client.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        client.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        client.put("security.protocol", "SSL");
        client.put("ssl.truststore.location", certs.trustStore.toString());
        client.put("ssl.truststore.type", "PKCS12");
        client.put("ssl.truststore.password", TestCertificates.PASSWORD);
        if (withCertificate) {
            client.put("ssl.keystore.location", certs.clientKeyStore.toString());
            client.put("ssl.keystore.type", "PKCS12");
            client.put("ssl.keystore.password", TestCertificates.PASSWORD);
            client.put("ssl.key.password", TestCertificates.PASSWORD);
        }
        return client;
    }

    @Test
    void theClientCertificatesSubjectIsThePrincipal() throws Exception {
        try (Admin admin = Admin.create(client(true))) {
            assertEquals(1, admin.describeCluster().nodes().get(15, TimeUnit.SECONDS).size());
        }
        List<FakeHandler.Call> calls = handler.calls;
        assertFalse(calls.isEmpty());
        for (FakeHandler.Call call : calls) {
            assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "CN=app-1,O=Tributary Tests"),
                    call.context().principal(), call.context().header().apiKey().toString());
        }
    }

    @Test
    void aClientWithoutACertificateIsRefused() {
        try (Admin admin = Admin.create(client(false))) {
            ExecutionException failure = assertThrows(ExecutionException.class,
                    () -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS));
            assertInstanceOf(SslAuthenticationException.class, failure.getCause(), failure.toString());
        }
        assertEquals(0, handler.calls.stream().filter(c -> c.context().header().apiKey() != ApiKeys.API_VERSIONS)
                .count());
    }
}
