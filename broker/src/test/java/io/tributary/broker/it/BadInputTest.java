package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import ch.qos.logback.classic.Level;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input on raw sockets against a real broker: oversize and negative frame sizes, garbage, unknown API keys,
 * versions and APIs the broker does not implement, truncated requests and frames. Each is answered (with an error
 * the protocol can carry) or the connection is closed with a log line; and a well-behaved producer and consumer,
 * connected throughout, go on working after every one of them.
 */
class BadInputTest {

    private static final int MAX_REQUEST_BYTES = 1024 * 1024;
    private static final String TOPIC = "steady";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    private KafkaProducer<String, String> producer;
    private KafkaConsumer<String, String> consumer;
    private LogCapture networkLog;
    private final List<String> sent = new ArrayList<>();
    private final List<String> received = new ArrayList<>();

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                "socket.request.max.bytes", Integer.toString(MAX_REQUEST_BYTES));
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @BeforeEach
    void connectWellBehavedClients() throws Exception {
        networkLog = new LogCapture("io.tributary.broker.network", Level.INFO);
        producer = Clients.producer(broker.bootstrapServers());
        consumer = Clients.consumer(broker.bootstrapServers());
        consumer.assign(List.of(TP));
        consumer.seekToEnd(List.of(TP));
        consumer.position(TP);
        stillServing("before");
    }

    @AfterEach
    void closeClients() {
        producer.close(Duration.ofSeconds(5));
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        networkLog.close();
    }

    /** The producer and consumer, on the connections they opened before the bad input, still work. */
    private void stillServing(String after) throws Exception {
        String value = "after " + after;
        producer.send(new ProducerRecord<>(TOPIC, 0, "k", value)).get();
        sent.add(value);
        await().untilAsserted(() -> assertTrue(() -> {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                received.add(record.value());
            }
            return received.size() >= sent.size();
        }, () -> "the consumer receiving '" + value + "'"));
        assertEquals(sent, received);
    }

    @Test
    void anOversizeFrameClosesThatConnectionOnly() throws Exception {
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendBytes(ByteBuffer.allocate(4).putInt(MAX_REQUEST_BYTES + 1).array());
            raw.awaitClosedByBroker("a size prefix above socket.request.max.bytes");
        }
        awaitLogLine("exceeds socket.request.max.bytes");
        stillServing("an oversize frame");

        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0});
            raw.awaitClosedByBroker("a negative size prefix");
        }
        awaitLogLine("is negative");
        stillServing("a negative frame size");
    }

    @Test
    void garbageClosesThatConnectionOnly() throws Exception {
        // An HTTP client on the Kafka port: "GET " read as a size is 1.2 GB.
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendBytes("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            raw.awaitClosedByBroker("an HTTP request");
        }
        awaitLogLine("47455420");
        stillServing("an HTTP request");

        // Random bytes in a well-sized frame.
        Random random = new Random(42);
        for (int i = 0; i < 20; i++) {
            byte[] garbage = new byte[1 + random.nextInt(200)];
            random.nextBytes(garbage);
            try (RawConnection raw = new RawConnection(broker.port())) {
                raw.sendFrame(ByteBuffer.wrap(garbage));
                raw.awaitClosedByBroker("a frame of " + garbage.length + " random bytes " + Arrays.toString(
                        Arrays.copyOf(garbage, Math.min(8, garbage.length))));
            }
        }
        stillServing("frames of random bytes");

        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendFrame(ByteBuffer.allocate(0));
            raw.awaitClosedByBroker("an empty frame");
        }
        stillServing("an empty frame");
    }

    @Test
    void anUnknownApiKeyClosesThatConnectionWithALogLine() throws Exception {
        ByteBuffer header = ByteBuffer.allocate(10);
        header.putShort((short) 999).putShort((short) 0).putInt(7).putShort((short) -1).flip();
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendFrame(header);
            raw.awaitClosedByBroker("API key 999");
        }
        awaitLogLine("unknown API key 999");
        stillServing("an unknown API key");
    }

    @Test
    void badFieldsOfFetchAndListOffsetsAreAnsweredInvalidRequestWithoutAnErrorLine() throws Exception {
        try (LogCapture brokerLog = new LogCapture("io.tributary.broker", Level.INFO);
             RawConnection raw = new RawConnection(broker.port())) {
            Map<TopicPartition, FetchRequest.PartitionData> partition = Map.of(TP, new FetchRequest.PartitionData(
                    org.apache.kafka.common.Uuid.ZERO_UUID, 0, 0, 1024, Optional.empty()));
            FetchRequest unknownIsolation = FetchRequest.Builder.forConsumer((short) 12, 0, 1, partition)
                    .build((short) 12);
            unknownIsolation.data().setIsolationLevel((byte) 7);
            RequestHeader first = raw.send(unknownIsolation, 21);
            assertEquals(Errors.INVALID_REQUEST.code(), ((FetchResponse) raw.receive(first)).data().errorCode());

            FetchRequest negativeMaxBytes = FetchRequest.Builder.forConsumer((short) 12, 0, 1, Map.of(TP,
                    new FetchRequest.PartitionData(org.apache.kafka.common.Uuid.ZERO_UUID, 0, 0, -5,
                            Optional.empty()))).build((short) 12);
            RequestHeader second = raw.send(negativeMaxBytes, 22);
            FetchResponseData answer = ((FetchResponse) raw.receive(second)).data();
            assertEquals(Errors.INVALID_REQUEST.code(), answer.responses().get(0).partitions().get(0).errorCode());

            ListOffsetsRequest listOffsets = ListOffsetsRequest.Builder.forConsumer(false,
                    IsolationLevel.READ_COMMITTED).setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                    .setName(TOPIC).setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                            .setPartitionIndex(0).setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))))
                    .build((short) 7);
            listOffsets.data().setIsolationLevel((byte) 9);
            RequestHeader third = raw.send(listOffsets, 23);
            AbstractResponse refused = raw.receive(third);
            assertTrue(refused.errorCounts().containsKey(Errors.INVALID_REQUEST), refused.toString());

            assertEquals(List.of(), brokerLog.lines().stream().filter(line -> line.startsWith("ERROR")).toList(),
                    "a client's mistake is no server error");
        }
        stillServing("fields out of range");
    }

    @Test
    void anApiTheBrokerDoesNotImplementIsAnsweredUnsupportedVersion() throws Exception {
        try (RawConnection raw = new RawConnection(broker.port())) {
            // The KIP-848 consumer group protocol is not implemented (the classic one is).
            ConsumerGroupDescribeRequest describe = new ConsumerGroupDescribeRequest.Builder(
                    new ConsumerGroupDescribeRequestData().setGroupIds(List.of("group"))).build((short) 0);
            RequestHeader header = raw.send(describe, 11);
            AbstractResponse response = raw.receive(header);
            assertTrue(response.errorCounts().containsKey(Errors.UNSUPPORTED_VERSION), response.toString());

            // The connection stays usable.
            RequestHeader next = raw.send(new ApiVersionsRequest.Builder().build((short) 3), 12);
            assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) raw.receive(next)).data().errorCode());
        }
        stillServing("an unimplemented API");
    }

    @Test
    void unsupportedVersionsAreAnsweredForApiVersionsAndCloseTheConnectionOtherwise() throws Exception {
        // ApiVersions at a version from the future (flexible header: no client id, no tagged fields; then a body
        // the broker must not try to read): answered at v0 with UNSUPPORTED_VERSION and the real ranges.
        ByteBuffer apiVersions = ByteBuffer.allocate(15);
        apiVersions.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 99).putInt(21).putShort((short) -1)
                .put((byte) 0).putInt(0x12345678).flip();
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendFrame(apiVersions);
            RequestHeader asV0 = new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, "raw-client", 21);
            ApiVersionsResponse response = (ApiVersionsResponse) raw.receive(asV0);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.data().errorCode());
            assertTrue(response.data().apiKeys().find(ApiKeys.PRODUCE.id) != null, "the supported APIs are listed");
        }
        stillServing("ApiVersions v99");

        // Metadata at a version the codec cannot read: no response format exists for it, so the connection closes.
        ByteBuffer metadata = ByteBuffer.allocate(10);
        metadata.putShort(ApiKeys.METADATA.id).putShort((short) 99).putInt(22).putShort((short) -1).flip();
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendFrame(metadata);
            raw.awaitClosedByBroker("Metadata v99");
        }
        awaitLogLine("METADATA", "version 99");
        stillServing("Metadata v99");
    }

    @Test
    void truncatedRequestsCloseThatConnectionOnly() throws Exception {
        MetadataRequest request = new MetadataRequest(new MetadataRequestData()
                .setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))), (short) 12);
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 12, "raw-client", 31);
        ByteBuffer whole = request.serializeWithHeader(header);

        // The whole request works on a fresh connection.
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendFrame(whole.duplicate());
            MetadataResponse response = (MetadataResponse) raw.receive(header);
            assertEquals(1, response.topicMetadata().size());
        }
        // Cut short inside the body, or inside the header: each frame is complete, the request in it is not.
        for (int length : new int[] {whole.remaining() - 3, whole.remaining() / 2, 6}) {
            ByteBuffer truncated = ByteBuffer.wrap(Arrays.copyOf(whole.array(), length));
            try (RawConnection raw = new RawConnection(broker.port())) {
                raw.sendFrame(truncated);
                raw.awaitClosedByBroker("a Metadata request cut to " + length + " bytes");
            }
        }
        awaitLogLine("malformed METADATA v12");
        stillServing("truncated requests");

        // A frame that never completes: the client announces more than it sends and hangs up, or stays silent.
        try (RawConnection raw = new RawConnection(broker.port())) {
            raw.sendBytes(ByteBuffer.allocate(4).putInt(100).array());
            raw.sendBytes(Arrays.copyOf(whole.array(), 10));
        }
        try (RawConnection silent = new RawConnection(broker.port())) {
            silent.sendBytes(ByteBuffer.allocate(4).putInt(MAX_REQUEST_BYTES).array());
            silent.sendBytes(new byte[1000]);
            stillServing("incomplete frames");
        }
    }

    @Test
    void manyBadConnectionsAtOnceLeaveTheBrokerServing() throws Exception {
        List<RawConnection> bad = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                RawConnection raw = new RawConnection(broker.port());
                bad.add(raw);
                raw.sendBytes(new byte[] {0x7f, 0x7f, 0x7f, 0x7f, 1, 2, 3});
            }
            for (RawConnection raw : bad) {
                raw.awaitClosedByBroker("an oversize frame among many");
            }
        } finally {
            for (RawConnection raw : bad) {
                raw.close();
            }
        }
        stillServing("50 bad connections");
    }

    private void awaitLogLine(String... parts) {
        await().untilAsserted(() -> assertTrue(
                () -> networkLog.lines().stream().anyMatch(line -> Arrays.stream(parts).allMatch(line::contains)),
                () -> "a log line with " + Arrays.toString(parts) + " in " + networkLog.lines()));
    }
}
