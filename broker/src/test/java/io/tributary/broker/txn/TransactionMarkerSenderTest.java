package io.tributary.broker.txn;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;

import io.tributary.broker.txn.TransactionMarkerSender.Route;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest.TxnMarkerEntry;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The marker sender against two fake partition leaders (sockets speaking ApiVersions and WriteTxnMarkers, answering
 * what the test says): one request per destination, a partition retried at its new leader, a deleted topic given up,
 * a job abandoned when its coordinator is deposed or fenced.
 */
class TransactionMarkerSenderTest {

    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    private final Map<TopicPartition, Route> routes = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicInteger lookups = new java.util.concurrent.atomic.AtomicInteger();
    private FakeLeader one;
    private FakeLeader two;
    private TransactionMarkerSender sender;

    @BeforeEach
    void start() throws IOException {
        one = new FakeLeader(1);
        two = new FakeLeader(2);
        sender = new TransactionMarkerSender(0, tp -> {
            lookups.incrementAndGet();
            return routes.getOrDefault(tp, Route.NO_LEADER);
        }, Time.SYSTEM);
    }

    @AfterEach
    void stop() throws IOException {
        sender.close();
        one.close();
        two.close();
    }

    private static TransactionMarkers.Job job(Set<TopicPartition> partitions, AtomicBoolean current) {
        return new TransactionMarkers.Job("tx", 42L, (short) 3, 7, TransactionResult.COMMIT, partitions,
                current::get);
    }

    @Test
    void markersGoToEachLeaderInOneRequest() throws Exception {
        routes.put(A0, one.route());
        routes.put(A1, one.route());
        routes.put(B0, two.route());
        CompletableFuture<Boolean> done = sender.write(job(Set.of(A0, A1, B0), new AtomicBoolean(true)));
        assertTrue(done.get(20, TimeUnit.SECONDS));

        assertEquals(1, one.requests.size());
        TxnMarkerEntry entry = one.requests.get(0).get(0);
        assertEquals(Set.of(A0, A1), Set.copyOf(entry.partitions()));
        assertEquals(42L, entry.producerId());
        assertEquals((short) 3, entry.producerEpoch());
        assertEquals(7, entry.coordinatorEpoch());
        assertEquals(TransactionResult.COMMIT, entry.transactionResult());
        assertEquals(List.of(List.of(B0)), two.requests.stream()
                .map(request -> request.get(0).partitions()).toList());
    }

    @Test
    void partitionAnsweredNotLeaderIsRetriedAtItsNewLeader() throws Exception {
        routes.put(A0, one.route());
        one.answer = (producerId, tp) -> {
            routes.put(A0, two.route()); // the leadership moved meanwhile
            return Errors.NOT_LEADER_OR_FOLLOWER;
        };
        CompletableFuture<Boolean> done = sender.write(job(Set.of(A0), new AtomicBoolean(true)));
        assertTrue(done.get(20, TimeUnit.SECONDS));
        assertEquals(1, one.requests.size());
        assertEquals(1, two.requests.size());
    }

    @Test
    void partitionWithoutLeaderWaitsForOne() throws Exception {
        CompletableFuture<Boolean> done = sender.write(job(Set.of(A0), new AtomicBoolean(true)));
        await("a few rounds without a leader").until(() -> lookups.get() >= 3);
        assertFalse(done.isDone());
        routes.put(A0, two.route());
        assertTrue(done.get(20, TimeUnit.SECONDS));
    }

    @Test
    void deletedTopicIsGivenUp() throws Exception {
        routes.put(A0, one.route());
        routes.put(B0, Route.DELETED);
        assertTrue(sender.write(job(Set.of(A0, B0), new AtomicBoolean(true))).get(20, TimeUnit.SECONDS));
        assertEquals(List.of(List.of(A0)), one.requests.stream().map(r -> r.get(0).partitions()).toList());
    }

    @Test
    void jobIsAbandonedOnceItsCoordinatorNoLongerLeads() throws Exception {
        routes.put(A0, one.route());
        one.answer = (producerId, tp) -> Errors.NOT_ENOUGH_REPLICAS;
        AtomicBoolean current = new AtomicBoolean(true);
        CompletableFuture<Boolean> done = sender.write(job(Set.of(A0), current));
        await("retried").until(() -> one.requests.size() >= 2);
        current.set(false);
        assertFalse(done.get(20, TimeUnit.SECONDS));
    }

    @Test
    void fencedCoordinatorAbandonsTheJob() throws Exception {
        routes.put(A0, one.route());
        one.answer = (producerId, tp) -> Errors.TRANSACTION_COORDINATOR_FENCED;
        assertFalse(sender.write(job(Set.of(A0), new AtomicBoolean(true))).get(20, TimeUnit.SECONDS));
    }

    @Test
    void closeAbandonsWhatIsLeft() throws Exception {
        CompletableFuture<Boolean> done = sender.write(job(Set.of(A0), new AtomicBoolean(true)));
        sender.close();
        assertFalse(done.get(20, TimeUnit.SECONDS));
        sender.close();
        assertFalse(sender.write(job(Set.of(A0), new AtomicBoolean(true))).get(1, TimeUnit.SECONDS));
    }

    /** A partition leader that answers ApiVersions and WriteTxnMarkers on a socket; records every marker request. */
    private static final class FakeLeader implements AutoCloseable {
        final int id;
        final ServerSocket server;
        final List<List<TxnMarkerEntry>> requests = new CopyOnWriteArrayList<>();
        final List<Socket> sockets = new CopyOnWriteArrayList<>();
        volatile BiFunction<Long, TopicPartition, Errors> answer = (producerId, tp) -> Errors.NONE;

        FakeLeader(int id) throws IOException {
            this.id = id;
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::accept, "fake-leader-" + id);
            acceptor.setDaemon(true);
            acceptor.start();
        }

        Route route() {
            return new Route(false, new Node(id, "127.0.0.1", server.getLocalPort()));
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    sockets.add(socket);
                    Thread connection = new Thread(() -> serve(socket), "fake-leader-" + id + "-connection");
                    connection.setDaemon(true);
                    connection.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket socket) {
            try (socket; DataInputStream in = new DataInputStream(socket.getInputStream());
                 DataOutputStream out = new DataOutputStream(socket.getOutputStream())) {
                while (true) {
                    byte[] frame = new byte[in.readInt()];
                    in.readFully(frame);
                    ByteBuffer buffer = ByteBuffer.wrap(frame);
                    RequestHeader header = RequestHeader.parse(buffer);
                    AbstractResponse response;
                    if (header.apiKey() == ApiKeys.API_VERSIONS) {
                        ApiVersionsResponseData.ApiVersionCollection apis =
                                new ApiVersionsResponseData.ApiVersionCollection();
                        apis.add(ApiVersionsResponse.toApiVersion(ApiKeys.API_VERSIONS));
                        apis.add(ApiVersionsResponse.toApiVersion(ApiKeys.WRITE_TXN_MARKERS));
                        response = new ApiVersionsResponse(new ApiVersionsResponseData().setApiKeys(apis));
                    } else {
                        WriteTxnMarkersRequest request = (WriteTxnMarkersRequest) AbstractRequest.parseRequest(
                                header.apiKey(), header.apiVersion(), new ByteBufferAccessor(buffer)).request;
                        requests.add(request.markers());
                        Map<Long, Map<TopicPartition, Errors>> errors = new HashMap<>();
                        for (TxnMarkerEntry entry : request.markers()) {
                            for (TopicPartition tp : entry.partitions()) {
                                errors.computeIfAbsent(entry.producerId(), p -> new HashMap<>())
                                        .put(tp, answer.apply(entry.producerId(), tp));
                            }
                        }
                        response = new WriteTxnMarkersResponse(errors);
                    }
                    ResponseHeader responseHeader = header.toResponseHeader();
                    ByteBuffer head = MessageUtil.toByteBufferAccessor(responseHeader.data(),
                            responseHeader.headerVersion()).buffer();
                    ByteBuffer body = MessageUtil.toByteBufferAccessor(response.data(), header.apiVersion()).buffer();
                    out.writeInt(head.remaining() + body.remaining());
                    out.write(head.array(), head.arrayOffset() + head.position(), head.remaining());
                    out.write(body.array(), body.arrayOffset() + body.position(), body.remaining());
                    out.flush();
                }
            } catch (IOException e) {
                // The client went away, or the test closed the fake.
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
