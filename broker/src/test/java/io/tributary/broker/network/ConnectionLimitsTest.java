package io.tributary.broker.network;

import static io.tributary.broker.network.FakeHandler.CLUSTER_ID;
import static io.tributary.testsupport.Waits.await;
import static org.apache.kafka.common.protocol.ApiKeys.API_VERSIONS;
import static org.apache.kafka.common.protocol.ApiKeys.METADATA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Waits;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits on connections and on the memory of requests, end to end over real sockets on 127.0.0.1 with a
 * {@link FakeHandler} behind the server: {@code max.connections}, {@code max.connections.per.ip} and its overrides,
 * {@code connections.max.idle.ms} (idle connections and requests that arrive too slowly) and
 * {@code queued.max.request.bytes}. After each, a normal client is still served.
 */
class ConnectionLimitsTest {

    private static final short API_VERSIONS_VERSION = API_VERSIONS.latestVersion(false);
    private static final short METADATA_VERSION = METADATA.latestVersion(false);

    private final FakeHandler handler = new FakeHandler();
    private final List<TestClient> clients = new ArrayList<>();
    private SocketServer server;
    private int port;

    @AfterEach
    void closeEverything() throws IOException {
        for (TestClient client : clients) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(Map<String, String> overrides) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "2");
        properties.put(BrokerConfig.NUM_IO_THREADS, "2");
        properties.putAll(overrides);
        server = new SocketServer(BrokerConfig.parse(properties), handler, Transport.best(), Time.SYSTEM);
        port = server.start().get("PLAINTEXT");
        handler.advertise(port);
    }

    private TestClient connect() throws IOException {
        return track(TestClient.connect(port));
    }

    private TestClient connectFrom(InetAddress address) throws IOException {
        return track(TestClient.connectFrom(address, port));
    }

    private TestClient track(TestClient client) {
        clients.add(client);
        return client;
    }

    private static ApiVersionsRequest apiVersionsRequest() {
        return new ApiVersionsRequest(new ApiVersionsRequestData().setClientSoftwareName("tributary-test")
                .setClientSoftwareVersion("1.0"), API_VERSIONS_VERSION);
    }

    /** An ApiVersions round trip: the connection is open and in step. */
    private static void assertServes(TestClient client) throws IOException {
        ApiVersionsResponse response = client.roundTrip(apiVersionsRequest());
        assertEquals(Errors.NONE.code(), response.data().errorCode());
    }

    /** A client connecting now is served. */
    private void assertANewClientIsServed() throws IOException {
        assertServes(connect());
    }

    private static long millisSince(long nanoTime) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanoTime);
    }

    @Test
    void aConnectionBeyondMaxConnectionsIsClosedAsSoonAsAcceptedWithAWarningAndTheOthersKeepServing()
            throws IOException {
        start(Map.of(BrokerConfig.MAX_CONNECTIONS, "3"));
        try (LogCapture logs = new LogCapture()) {
            List<TestClient> admitted = List.of(connect(), connect(), connect());
            for (TestClient client : admitted) {
                assertServes(client);
            }

            TestClient refused = connect(); // the TCP handshake succeeds: the kernel completes it before the accept
            refused.awaitClosedByServer();
            logs.awaitLine("WARN", "Closing connection from 127.0.0.1:" + refused.localPort(),
                    "max.connections is 3");
            for (TestClient client : admitted) {
                assertServes(client);
            }
            assertEquals(3, server.connectionCount());

            admitted.get(0).close();
            await().untilAsserted(() -> assertTrue(() -> server.connectionCount() == 2,
                    () -> server.connectionCount() + " connections"));
            assertANewClientIsServed();
        }
    }

    @Test
    void connectionsFromOneAddressBeyondMaxConnectionsPerIpAreClosedAndAnOverrideGivesAHostItsOwnLimit()
            throws IOException {
        InetAddress local = InetAddress.getByName("127.0.0.1");
        InetAddress other = InetAddress.getByName("127.0.0.2");
        assumeTrue(canBind(other), "127.0.0.2 is not a local address here");
        start(Map.of(BrokerConfig.MAX_CONNECTIONS_PER_IP, "2",
                BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, "127.0.0.2:3"));
        try (LogCapture logs = new LogCapture()) {
            List<TestClient> fromLocal = List.of(connectFrom(local), connectFrom(local));
            List<TestClient> fromOther = List.of(connectFrom(other), connectFrom(other), connectFrom(other));
            for (TestClient client : fromLocal) {
                assertServes(client);
            }
            for (TestClient client : fromOther) {
                assertServes(client);
            }

            TestClient thirdFromLocal = connectFrom(local);
            thirdFromLocal.awaitClosedByServer();
            logs.awaitLine("WARN", "Closing connection from 127.0.0.1:" + thirdFromLocal.localPort(),
                    "max.connections.per.ip is 2, and 127.0.0.1 has 2 connections");
            TestClient fourthFromOther = connectFrom(other);
            fourthFromOther.awaitClosedByServer();
            logs.awaitLine("WARN", "Closing connection from 127.0.0.2:" + fourthFromOther.localPort(),
                    "max.connections.per.ip.overrides allows 127.0.0.2 3 connections");

            for (TestClient client : fromOther) {
                assertServes(client);
            }
            fromLocal.get(0).close();
            await().untilAsserted(() -> assertTrue(() -> server.connectionCount() == 4,
                    () -> server.connectionCount() + " connections"));
            assertANewClientIsServed();
        }
    }

    private static boolean canBind(InetAddress address) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(address, 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void anIdleConnectionIsClosedAfterConnectionsMaxIdleMsButOneAwaitingItsResponseIsNot() throws IOException {
        long idleMs = 300;
        CompletableFuture<AbstractResponse> parked = new CompletableFuture<>();
        handler.on(METADATA, (context, request) -> parked);
        start(Map.of(BrokerConfig.CONNECTIONS_MAX_IDLE_MS, String.valueOf(idleMs)));
        try (LogCapture logs = new LogCapture(Level.DEBUG)) {
            TestClient waiting = connect();
            RequestHeader longPoll = waiting.send(new MetadataRequest(new MetadataRequestData().setTopics(List.of()),
                    METADATA_VERSION));
            await().untilAsserted(() -> assertTrue(() -> handler.callsOf(METADATA) == 1,
                    () -> "the request at the handler"));

            TestClient idle = connect();
            assertServes(idle);
            long answered = System.nanoTime();
            idle.awaitClosedByServer();
            long idleFor = millisSince(answered);
            // The server's idle time starts when it wrote the response, a moment before the client read it.
            assertTrue(idleFor >= idleMs - 50, "closed after " + idleFor + " ms");
            logs.awaitLine("DEBUG", "-127.0.0.1:" + idle.localPort() + "-", "idle for 300 ms");

            assertFalse(waiting.closedByServerWithin(Duration.ofMillis(3 * idleMs)),
                    "a connection owed a response is not idle");
            parked.complete(handler.metadata(METADATA_VERSION));
            assertEquals(CLUSTER_ID, waiting.<MetadataResponse>receive(longPoll).clusterId());
            waiting.awaitClosedByServer(); // answered, it is idle like any other
            await().untilAsserted(() -> assertTrue(() -> server.connectionCount() == 0,
                    () -> server.connectionCount() + " connections"));
            assertANewClientIsServed();
        }
    }

    @Test
    void aRequestThatArrivesTooSlowlyIsClosedAfterConnectionsMaxIdleMsThoughItsClientNeverFallsSilent()
            throws IOException {
        long timeoutMs = 1000;
        start(Map.of(BrokerConfig.CONNECTIONS_MAX_IDLE_MS, String.valueOf(timeoutMs)));
        try (LogCapture logs = new LogCapture()) {
            TestClient slow = connect();
            long started = System.nanoTime();
            slow.sendRaw(ByteBuffer.allocate(4).putInt(10_000).array());
            boolean closed = false;
            int sent = 0;
            // A byte every 100 ms: never silent for a tenth of the timeout, and 10,000 bytes would take 17 minutes.
            while (!closed && millisSince(started) < Waits.DEADLINE.toMillis()) {
                try {
                    slow.sendRaw(new byte[] {0});
                    sent++;
                } catch (IOException e) {
                    closed = true; // reset by the server
                    break;
                }
                closed = slow.closedByServerWithin(Duration.ofMillis(100));
            }
            long elapsed = millisSince(started);
            assertTrue(closed, "still open after " + elapsed + " ms and " + sent + " bytes");
            assertTrue(elapsed >= timeoutMs, "closed after " + elapsed + " ms");
            logs.awaitLine("WARN", "-127.0.0.1:" + slow.localPort() + "-",
                    "a request has not arrived in full 1000 ms after its first byte (connections.max.idle.ms)");
            await().untilAsserted(() -> assertTrue(() -> server.queuedRequestBytes() == 0,
                    () -> server.queuedRequestBytes() + " bytes held"));
            assertANewClientIsServed();
        }
    }

    @Test
    void framesAnnouncingLargeSizesReserveNoMoreThanThePoolWhileTheRestWaitTheirTurn() throws Exception {
        int frameSize = 1024 * 1024;
        long pool = 2L * frameSize + frameSize / 2;
        int largeClients = 12;
        start(Map.of(BrokerConfig.SOCKET_REQUEST_MAX_BYTES, String.valueOf(4 * frameSize),
                BrokerConfig.QUEUED_MAX_REQUEST_BYTES, String.valueOf(pool)));
        List<TestClient> large = new ArrayList<>();
        List<RequestHeader> headers = new ArrayList<>();
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < largeClients; i++) {
            // A valid ApiVersions request padded to 1 MiB (the server ignores bytes after a request's body).
            RequestHeader header = new RequestHeader(API_VERSIONS, API_VERSIONS_VERSION, TestClient.CLIENT_ID, 7);
            ByteBuffer request = apiVersionsRequest().serializeWithHeader(header);
            byte[] wire = new byte[4 + frameSize];
            ByteBuffer.wrap(wire).putInt(frameSize).put(request);
            TestClient client = connect();
            client.sendRaw(Arrays.copyOf(wire, 4 + 1024)); // the size and the first KiB, then nothing for now
            large.add(client);
            headers.add(header);
            frames.add(wire);
        }

        await().untilAsserted(() -> assertTrue(() -> server.queuedRequestBytes() == 2L * frameSize,
                () -> server.queuedRequestBytes() + " bytes reserved; expected two frames"));
        assertEquals(2 * frameSize, Waits.quiet(() -> (int) server.queuedRequestBytes(), Duration.ofMillis(300)),
                "two 1 MiB frames fit in the 2.5 MiB pool, and the other ten connections wait");
        TestClient normal = connect();
        assertServes(normal); // a small request fits in what is left

        ExecutorService senders = Executors.newFixedThreadPool(largeClients);
        try {
            List<Future<ApiVersionsResponse>> answers = new ArrayList<>();
            for (int i = 0; i < largeClients; i++) {
                TestClient client = large.get(i);
                byte[] wire = frames.get(i);
                RequestHeader header = headers.get(i);
                answers.add(senders.submit(() -> {
                    client.sendRaw(Arrays.copyOfRange(wire, 4 + 1024, wire.length)); // blocks while not read
                    return client.receive(header);
                }));
            }
            AtomicLong mostReserved = new AtomicLong();
            await().untilAsserted(() -> assertTrue(() -> {
                mostReserved.accumulateAndGet(server.queuedRequestBytes(), Math::max);
                return answers.stream().allMatch(Future::isDone);
            }, () -> "every large request answered"));
            assertTrue(mostReserved.get() <= pool, mostReserved.get() + " bytes reserved, over the pool of " + pool);
            for (Future<ApiVersionsResponse> answer : answers) {
                assertEquals(Errors.NONE.code(), answer.get().data().errorCode());
            }
        } finally {
            senders.shutdownNow();
        }
        await().untilAsserted(() -> assertTrue(() -> server.queuedRequestBytes() == 0,
                () -> server.queuedRequestBytes() + " bytes held"));
        assertServes(normal);
    }

    @Test
    void aFrameLargerThanTheWholePoolClosesItsConnectionWithAWarning() throws IOException {
        int pool = 1024 * 1024;
        start(Map.of(BrokerConfig.SOCKET_REQUEST_MAX_BYTES, String.valueOf(4 * pool),
                BrokerConfig.QUEUED_MAX_REQUEST_BYTES, String.valueOf(pool)));
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();
            assertServes(bystander);
            TestClient offender = connect();
            offender.sendRaw(ByteBuffer.allocate(4 + 100).putInt(pool + 1).array());

            offender.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + offender.localPort() + "-",
                    "exceeds queued.max.request.bytes " + pool);
            // The bystander's request holds its bytes until the server is done with it, which can be just after
            // the client has read the answer.
            await().untilAsserted(() -> assertTrue(() -> server.queuedRequestBytes() == 0,
                    () -> server.queuedRequestBytes() + " bytes held"));
            assertServes(bystander);
            assertANewClientIsServed();
        }
    }
}
