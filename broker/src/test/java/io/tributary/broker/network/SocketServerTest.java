package io.tributary.broker.network;

import static io.tributary.broker.network.FakeHandler.CLUSTER_ID;
import static io.tributary.testsupport.Waits.await;
import static org.apache.kafka.common.protocol.ApiKeys.API_VERSIONS;
import static org.apache.kafka.common.protocol.ApiKeys.DESCRIBE_CLUSTER;
import static org.apache.kafka.common.protocol.ApiKeys.FETCH;
import static org.apache.kafka.common.protocol.ApiKeys.LIST_OFFSETS;
import static org.apache.kafka.common.protocol.ApiKeys.METADATA;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.netty.channel.epoll.Epoll;
import io.tributary.broker.BrokerConfig;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.utils.Time;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The server end to end, over real sockets on 127.0.0.1, with a {@link FakeHandler} behind it. */
class SocketServerTest {

    private static final int MAX_REQUEST_BYTES = 64 * 1024;
    private static final short METADATA_VERSION = METADATA.latestVersion(false);
    private static final short FETCH_VERSION = FETCH.latestVersion(false);
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

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

    private void start() {
        start(Map.of(), Transport.best());
    }

    private void start(Map<String, String> overrides, Transport transport) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:0");
        properties.put(BrokerConfig.NUM_NETWORK_THREADS, "2");
        properties.put(BrokerConfig.NUM_IO_THREADS, "2");
        properties.put(BrokerConfig.SOCKET_REQUEST_MAX_BYTES, String.valueOf(MAX_REQUEST_BYTES));
        properties.putAll(overrides);
        server = new SocketServer(BrokerConfig.parse(properties), handler, transport, Time.SYSTEM);
        port = server.start().get("PLAINTEXT");
        assertEquals(port, server.boundPort("PLAINTEXT"));
        handler.advertise(port);
    }

    private TestClient connect() throws IOException {
        return track(TestClient.connect(port));
    }

    private TestClient track(TestClient client) {
        clients.add(client);
        return client;
    }

    private static ApiVersionsRequest apiVersionsRequest(short version) {
        ApiVersionsRequestData data = new ApiVersionsRequestData();
        if (version >= 3) {
            data.setClientSoftwareName("tributary-test").setClientSoftwareVersion("1.0");
        }
        return new ApiVersionsRequest(data, version);
    }

    /** An ApiVersions round trip: the connection is open and in step. */
    private static void assertServes(TestClient client) throws IOException {
        ApiVersionsResponse response = client.roundTrip(apiVersionsRequest(API_VERSIONS.latestVersion(false)));
        assertEquals(Errors.NONE.code(), response.data().errorCode());
    }

    private static MetadataRequest metadataRequest() {
        return new MetadataRequest(new MetadataRequestData().setTopics(List.of()), METADATA_VERSION);
    }

    private static FetchRequest fetchRequest() {
        return new FetchRequest(new FetchRequestData().setMaxWaitMs(0).setMinBytes(1), FETCH_VERSION);
    }

    private static FetchResponse fetchResponse(BaseRecords records) {
        return FetchResponse.of(new FetchResponseData().setResponses(List.of(
                new FetchResponseData.FetchableTopicResponse().setTopicId(TOPIC_ID).setPartitions(List.of(
                        new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(100)
                                .setRecords(records))))));
    }

    private static MemoryRecords fetchedRecords(FetchResponse response) {
        return (MemoryRecords) FetchResponse.recordsOrFail(response.data().responses().get(0).partitions().get(0));
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    @Test
    void apiVersionsIsAnsweredAtEveryVersionOnARequestHandlerThread() throws IOException {
        start();
        TestClient client = connect();
        for (short version = API_VERSIONS.oldestVersion(); version <= API_VERSIONS.latestVersion(false); version++) {
            // v0-v2 have request header v1; v3+ are flexible, with header v2. The response header is v0 for all.
            ApiVersionsResponse response = client.roundTrip(apiVersionsRequest(version));
            assertEquals(Errors.NONE.code(), response.data().errorCode(), "v" + version);
            assertEquals(METADATA_VERSION, response.data().apiKeys().find(METADATA.id).maxVersion(), "v" + version);
        }
        for (FakeHandler.Call call : handler.calls) {
            assertTrue(call.thread().startsWith("tributary-request-handler"), call.thread());
            RequestContext context = call.context();
            assertEquals("127.0.0.1:" + port + "-127.0.0.1:" + client.localPort() + "-0", context.connectionId());
            assertEquals(InetAddress.getLoopbackAddress(), context.clientAddress());
            assertEquals("PLAINTEXT", context.listenerName());
            assertEquals(TestClient.CLIENT_ID, context.header().clientId());
        }
    }

    @Test
    void apiVersionsAtAVersionFromTheFutureIsAnsweredAtVersionZeroWithUnsupportedVersionAndEveryApi()
            throws IOException {
        start();
        TestClient client = connect();
        client.sendFrame(TestClient.handWrittenRequest(API_VERSIONS.id, 127, 42, true, TestClient.apiVersionsV3Body()));

        ByteBuffer frame = client.receiveFrame();
        assertEquals(42, ResponseHeader.parse(frame, (short) 0).correlationId());
        ApiVersionsResponse response = ApiVersionsResponse.parse(new ByteBufferAccessor(frame), (short) 0);
        assertFalse(frame.hasRemaining());
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.data().errorCode());
        assertEquals(API_VERSIONS.latestVersion(false), response.data().apiKeys().find(API_VERSIONS.id).maxVersion());
        assertNotNull(response.data().apiKeys().find(METADATA.id));
        assertNotNull(response.data().apiKeys().find(DESCRIBE_CLUSTER.id));

        FakeHandler.Call call = handler.calls.get(0);
        assertEquals(127, call.context().header().apiVersion());
        assertEquals(0, call.request().version());
        assertTrue(((ApiVersionsRequest) call.request()).hasUnsupportedRequestVersion());
        // A real client retries with the highest version in the list, on the same connection.
        assertServes(client);
    }

    @Test
    void pipelinedRequestsCompletedInReverseOrderAreAnsweredInRequestOrder() throws IOException {
        Map<Integer, CompletableFuture<AbstractResponse>> parked = new ConcurrentHashMap<>();
        handler.on(METADATA, (context, request) ->
                parked.computeIfAbsent(context.header().correlationId(), id -> new CompletableFuture<>()));
        start();
        TestClient client = connect();
        List<RequestHeader> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sent.add(client.send(metadataRequest()));
        }
        await().untilAsserted(() -> assertTrue(() -> parked.size() == 5,
                () -> "5 requests at the handler, got " + parked.keySet()));

        for (int i = sent.size() - 1; i >= 0; i--) {
            parked.get(sent.get(i).correlationId()).complete(handler.metadata(METADATA_VERSION));
        }
        for (RequestHeader header : sent) {
            MetadataResponse response = client.receive(header); // fails on any other correlation id
            assertEquals(CLUSTER_ID, response.clusterId());
        }
    }

    @Test
    void requestsAnsweredWithNullSendNothingButHoldBackTheResponsesBehindThem() throws IOException {
        Map<Integer, CompletableFuture<AbstractResponse>> parked = new ConcurrentHashMap<>();
        handler.on(METADATA, (context, request) ->
                parked.computeIfAbsent(context.header().correlationId(), id -> new CompletableFuture<>()));
        start();
        TestClient client = connect();
        RequestHeader first = client.send(metadataRequest());
        RequestHeader fireAndForget = client.send(metadataRequest());
        RequestHeader third = client.send(metadataRequest());
        await().untilAsserted(() -> assertTrue(() -> parked.size() == 3,
                () -> "3 requests at the handler, got " + parked.keySet()));

        parked.get(third.correlationId()).complete(handler.metadata(METADATA_VERSION));
        parked.get(first.correlationId()).complete(handler.metadata(METADATA_VERSION));
        assertEquals(CLUSTER_ID, client.<MetadataResponse>receive(first).clusterId());
        assertEquals(0, Waits.quiet(() -> available(client), Duration.ofMillis(200)),
                "the third response must wait for the second request to complete, though it sends nothing");

        parked.get(fireAndForget.correlationId()).complete(null);
        assertEquals(CLUSTER_ID, client.<MetadataResponse>receive(third).clusterId());
        assertServes(client); // nothing was written for the null response, or this would not parse
    }

    private static int available(TestClient client) {
        try {
            return client.available();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void requestOverSocketRequestMaxBytesClosesThatConnectionAndNoOther() throws IOException {
        start();
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();
            assertServes(bystander);
            TestClient offender = connect();
            offender.sendRaw(ByteBuffer.allocate(4 + 100).putInt(MAX_REQUEST_BYTES + 1).array());

            offender.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + offender.localPort() + "-",
                    "exceeds socket.request.max.bytes " + MAX_REQUEST_BYTES);
            assertServes(bystander);
            await().untilAsserted(() -> assertTrue(() -> server.connectionCount() == 1,
                    () -> server.connectionCount() + " connections"));
        }
    }

    @Test
    void bytesThatAreNotKafkaRequestsCloseTheConnectionWithALogLine() throws IOException {
        start();
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();

            TestClient http = connect();
            http.sendRaw("GET / HTTP/1.1\r\nHost: broker\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            http.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + http.localPort() + "-", "47455420");

            TestClient negative = connect();
            negative.sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe});
            negative.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + negative.localPort() + "-", "is negative");

            TestClient tiny = connect();
            tiny.sendFrame(ByteBuffer.wrap(new byte[] {0, 3}));
            tiny.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + tiny.localPort() + "-", "too short for a request header");

            assertServes(bystander);
        }
    }

    @Test
    void truncatedRequestClosesTheConnectionWithALogLine() throws IOException {
        start();
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();
            MetadataRequest request = new MetadataRequest(new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName("orders"))), METADATA_VERSION);
            ByteBuffer whole = request.serializeWithHeader(new RequestHeader(METADATA, METADATA_VERSION, "c", 9));

            TestClient truncatedBody = connect();
            truncatedBody.sendFrame(ByteBuffer.wrap(Arrays.copyOf(bytes(whole), whole.remaining() - 6)));
            truncatedBody.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + truncatedBody.localPort() + "-",
                    "malformed METADATA v" + METADATA_VERSION + " request (correlation id 9");

            TestClient truncatedHeader = connect();
            truncatedHeader.sendFrame(ByteBuffer.wrap(Arrays.copyOf(bytes(whole), 7)));
            truncatedHeader.awaitClosedByServer();
            logs.awaitLine("WARN", "-127.0.0.1:" + truncatedHeader.localPort() + "-",
                    "malformed METADATA v" + METADATA_VERSION + " request header");

            assertServes(bystander);
        }
    }

    @Test
    void unknownApiKeyClosesTheConnectionWithALogLineNamingKeyAndVersion() throws IOException {
        start();
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();
            TestClient client = connect();
            client.sendFrame(TestClient.handWrittenRequest(9999, 3, 1, false, new byte[0]));
            client.awaitClosedByServer();
            logs.awaitLine("INFO", "-127.0.0.1:" + client.localPort() + "-", "unknown API key 9999 (version 3)");
            assertServes(bystander);
        }
    }

    @Test
    void versionTheCodecCannotReadClosesTheConnectionWithALogLineNamingApiAndVersion() throws IOException {
        start();
        try (LogCapture logs = new LogCapture()) {
            TestClient bystander = connect();
            TestClient client = connect();
            client.sendFrame(TestClient.handWrittenRequest(METADATA.id, 999, 1, true, new byte[] {1, 0, 0, 0}));
            client.awaitClosedByServer();
            logs.awaitLine("INFO", "-127.0.0.1:" + client.localPort() + "-", "METADATA (key 3) version 999");
            assertServes(bystander);
        }
    }

    @Test
    void versionTheHandlerDoesNotSupportIsAnsweredUnsupportedVersionWithoutCallingIt() throws IOException {
        handler.supportFrom(DESCRIBE_CLUSTER, (short) 1);
        start();
        TestClient client = connect();
        DescribeClusterResponse refused =
                client.roundTrip(new DescribeClusterRequest(new DescribeClusterRequestData(), (short) 0));
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), refused.data().errorCode());
        assertEquals(0, handler.callsOf(DESCRIBE_CLUSTER));

        DescribeClusterResponse answered =
                client.roundTrip(new DescribeClusterRequest(new DescribeClusterRequestData(), (short) 1));
        assertEquals(Errors.NONE.code(), answered.data().errorCode());
        assertEquals(CLUSTER_ID, answered.data().clusterId());
    }

    @Test
    void handlerFailuresAreAnsweredWithErrorResponsesAndTheConnectionStaysOpen() throws IOException {
        start();
        TestClient client = connect();
        DescribeClusterRequest request = new DescribeClusterRequest(new DescribeClusterRequestData(), (short) 1);

        handler.on(DESCRIBE_CLUSTER, (context, r) -> {
            throw new IllegalStateException("a bug in the handler");
        });
        DescribeClusterResponse thrown = client.roundTrip(request);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(), thrown.data().errorCode());

        handler.on(DESCRIBE_CLUSTER, (context, r) ->
                CompletableFuture.failedFuture(new ClusterAuthorizationException("not for you")));
        DescribeClusterResponse failed = client.roundTrip(request);
        assertEquals(Errors.CLUSTER_AUTHORIZATION_FAILED.code(), failed.data().errorCode());

        assertServes(client);
    }

    @Test
    void aResponseThatDoesNotFitItsVersionIsAnsweredUnknownServerError() throws IOException {
        // ListOffsets v2 has no leader epoch: serializing a non-default one fails, as a handler bug would.
        handler.on(LIST_OFFSETS, (context, request) -> CompletableFuture.completedFuture(new ListOffsetsResponse(
                new ListOffsetsResponseData().setTopics(List.of(new ListOffsetsTopicResponse().setName("orders")
                        .setPartitions(List.of(new ListOffsetsPartitionResponse().setPartitionIndex(0)
                                .setOffset(5).setTimestamp(-1).setLeaderEpoch(7))))))));
        start();
        TestClient client = connect();
        ListOffsetsRequest request = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(new ListOffsetsTopic().setName("orders").setPartitions(List.of(
                        new ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1)))))
                .build((short) 2);

        ListOffsetsResponse response = client.roundTrip(request);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(),
                response.data().topics().get(0).partitions().get(0).errorCode());
        assertServes(client);
    }

    @Test
    void aClientThatSendsABurstAndReadsNothingHasAtMostSixteenRequestsTakenIn() throws IOException {
        int responseRecordBytes = 256 * 1024;
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.allocate(responseRecordBytes));
        handler.on(FETCH, (context, request) -> CompletableFuture.completedFuture(fetchResponse(records)));
        start(Map.of(BrokerConfig.SOCKET_SEND_BUFFER_BYTES, "16384"), Transport.best());
        TestClient client = track(TestClient.connect(port, 16384));

        int requests = 100;
        List<RequestHeader> sent = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            sent.add(client.send(fetchRequest()));
        }
        await().untilAsserted(() -> assertTrue(() -> handler.handled.get() > 0,
                () -> "the first fetch at the handler"));
        int handledWhileNotReading = Waits.quiet(handler.handled::get, Duration.ofMillis(500));
        // In flight at most 16, plus what the water mark (512 KiB) and both 32 KiB socket buffers let through.
        int bound = ConnectionInitializer.MAX_IN_FLIGHT_PER_CONNECTION + 4;
        assertTrue(handledWhileNotReading <= bound,
                handledWhileNotReading + " of " + requests + " requests handled for a client that reads nothing");

        for (RequestHeader header : sent) {
            FetchResponse response = client.receive(header);
            assertEquals(responseRecordBytes, fetchedRecords(response).sizeInBytes());
        }
        assertEquals(requests, handler.handled.get());
    }

    @Test
    void aClientThatStopsReadingIsNotReadOnceItsQueuedResponsesPassTheHighWaterMark() throws IOException {
        int responseRecordBytes = 256 * 1024;
        MemoryRecords records = MemoryRecords.readableRecords(ByteBuffer.allocate(responseRecordBytes));
        handler.on(FETCH, (context, request) -> CompletableFuture.completedFuture(fetchResponse(records)));
        start(Map.of(BrokerConfig.SOCKET_SEND_BUFFER_BYTES, "16384"), Transport.best());
        TestClient client = track(TestClient.connect(port, 16384));

        // One request at a time, each once the previous was handled: every response is written at once, so no
        // request waits in flight and only the queued bytes can stop the reading.
        List<RequestHeader> sent = new ArrayList<>();
        while (sent.size() < 40) {
            sent.add(client.send(fetchRequest()));
            try {
                await(Duration.ofMillis(500)).until(() -> handler.handled.get() == sent.size());
            } catch (ConditionTimeoutException notHandled) {
                break;
            }
        }
        int handled = handler.handled.get();
        // 512 KiB high water mark: the third 256 KiB response passes it (the socket buffers hold about 64 KiB).
        assertTrue(handled < sent.size() && handled <= 5,
                handled + " responses of " + responseRecordBytes + " bytes queued for a client that reads nothing");

        for (RequestHeader header : sent) {
            assertEquals(responseRecordBytes, fetchedRecords(client.receive(header)).sizeInBytes());
        }
        assertEquals(sent.size(), handler.handled.get());
    }

    @Test
    void connectionsResumeReadingWhenAFullHandlerQueueDrains() throws IOException {
        start(Map.of(BrokerConfig.NUM_IO_THREADS, "1", BrokerConfig.QUEUED_MAX_REQUESTS, "1"), Transport.best());
        List<TestClient> connections = List.of(connect(), connect(), connect());
        Map<TestClient, List<RequestHeader>> sent = new HashMap<>();
        for (TestClient client : connections) {
            List<RequestHeader> headers = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                headers.add(client.send(metadataRequest()));
            }
            sent.put(client, headers);
        }
        for (TestClient client : connections) {
            for (RequestHeader header : sent.get(client)) {
                assertEquals(CLUSTER_ID, client.<MetadataResponse>receive(header).clusterId());
            }
        }
        assertEquals(30, handler.callsOf(METADATA));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void fetchedRecordsGoFromTheSegmentFileToTheClientAndLeaveTheFileOpen(Transport transport, @TempDir Path dir)
            throws IOException {
        assumeTrue(transport != Transport.EPOLL || Epoll.isAvailable(), "no native epoll here");
        Path file = dir.resolve("00000000000000000000.log");
        try (FileRecords segment = FileRecords.open(file.toFile())) {
            for (int batch = 0; batch < 3; batch++) {
                segment.append(MemoryRecords.withRecords(batch * 10L, Compression.NONE,
                        new SimpleRecord(("key-" + batch).getBytes(StandardCharsets.UTF_8),
                                new byte[1000 + batch]),
                        new SimpleRecord(null, ("value-" + batch).getBytes(StandardCharsets.UTF_8))));
            }
            segment.flush();
            int firstBatchBytes = segment.batches().iterator().next().sizeInBytes();
            FileRecords slice = segment.slice(firstBatchBytes, segment.sizeInBytes() - firstBatchBytes);
            handler.on(FETCH, (context, request) -> CompletableFuture.completedFuture(fetchResponse(slice)));
            start(Map.of(), transport);
            TestClient client = connect();

            byte[] onDisk = Arrays.copyOfRange(Files.readAllBytes(file), firstBatchBytes, segment.sizeInBytes());
            for (int fetch = 0; fetch < 2; fetch++) { // the second fetch finds the file still open
                MemoryRecords received = fetchedRecords(client.roundTrip(fetchRequest()));
                assertArrayEquals(onDisk, bytes(received.buffer()));
                List<Long> baseOffsets = new ArrayList<>();
                for (RecordBatch batch : received.batches()) {
                    batch.ensureValid();
                    baseOffsets.add(batch.baseOffset());
                }
                assertEquals(List.of(10L, 20L), baseOffsets);
            }
            assertTrue(segment.channel().isOpen(), "the segment's FileChannel was closed by the network layer");
        }
    }

    @Test
    void closeAnswersTheRequestInFlightBeforeClosingItsConnection() throws Exception {
        handler.on(METADATA, (context, request) -> CompletableFuture.supplyAsync(
                () -> handler.metadata(request.version()),
                CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS)));
        start();
        TestClient client = connect();
        RequestHeader slow = client.send(metadataRequest());
        await().untilAsserted(() -> assertTrue(() -> handler.callsOf(METADATA) == 1,
                () -> "the request at the handler"));

        CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        assertEquals(CLUSTER_ID, client.<MetadataResponse>receive(slow).clusterId());
        client.awaitClosedByServer();
        closing.get(10, TimeUnit.SECONDS);

        assertEquals(0, server.connectionCount());
        assertThrows(IOException.class, () -> TestClient.connect(port).close());
        assertThrows(IllegalStateException.class, () -> server.boundPort("PLAINTEXT"));
        server.close(); // again: nothing happens
        assertThrows(IllegalStateException.class, server::start);
    }

    @Test
    void eventLoopsAreAliveWhileRunningAndNotOnceClosed() {
        start();
        assertTrue(server.eventLoopsAlive(java.time.Duration.ofSeconds(5)));
        server.close();
        assertFalse(server.eventLoopsAlive(java.time.Duration.ofSeconds(5)));
    }

    @Test
    void listenerThatCannotBindFailsStartAndLeavesNothingRunning() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            SocketServer failing = new SocketServer(BrokerConfig.parse(Map.of(BrokerConfig.LISTENERS,
                    "PLAINTEXT://127.0.0.1:" + taken.getLocalPort())), handler);
            UncheckedIOException refused = assertThrows(UncheckedIOException.class, failing::start);
            assertTrue(refused.getMessage().contains("PLAINTEXT://127.0.0.1:" + taken.getLocalPort()),
                    refused.getMessage());
            assertThrows(IllegalStateException.class, failing::start);
            failing.close();
        }
    }

    @Test
    void theKafkaJavaAdminClientDescribesTheCluster() throws Exception {
        start();
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        try (Admin admin = Admin.create(properties)) {
            DescribeClusterResult cluster = admin.describeCluster();
            assertEquals(CLUSTER_ID, cluster.clusterId().get(15, TimeUnit.SECONDS));
            assertEquals(List.of(new Node(0, "127.0.0.1", port)), List.copyOf(cluster.nodes().get()));
            assertEquals(0, cluster.controller().get().id());
            admin.close(Duration.ofSeconds(5));
        }
        assertTrue(handler.callsOf(DESCRIBE_CLUSTER) >= 1, "describeCluster used DescribeCluster, not Metadata");
    }
}
