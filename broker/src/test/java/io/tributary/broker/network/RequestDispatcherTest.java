package io.tributary.broker.network;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequestDispatcherTest {

    private final FakeHandler handler = new FakeHandler();
    private RequestDispatcher dispatcher = new RequestDispatcher(handler, 2, 10);

    @AfterEach
    void close() {
        dispatcher.close(Duration.ofSeconds(1));
    }

    private static DescribeClusterResponse describeCluster(CompletableFuture<AbstractResponse> response)
            throws Exception {
        return (DescribeClusterResponse) response.get(10, TimeUnit.SECONDS);
    }

    /** Dispatches a request as the only request of a new connection. */
    private CompletableFuture<AbstractResponse> dispatchAlone(Request request) {
        return dispatcher.dispatch(request, dispatcher.newConnectionQueue());
    }

    private static Request describeClusterRequest(short version) {
        return TestRequests.request(new DescribeClusterRequest(new DescribeClusterRequestData(), version), 1);
    }

    @Test
    void handlerRunsOnARequestHandlerThread() throws Exception {
        AbstractResponse response = dispatchAlone(TestRequests.apiVersions(1)).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) response).data().errorCode());
        assertTrue(handler.calls.get(0).thread().startsWith("tributary-request-handler"),
                handler.calls.get(0).thread());
    }

    @Test
    void versionTheHandlerDoesNotSupportIsAnsweredWithoutCallingIt() throws Exception {
        handler.supportFrom(ApiKeys.DESCRIBE_CLUSTER, (short) 1);
        DescribeClusterResponse response = describeCluster(dispatchAlone(describeClusterRequest((short) 0)));
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.data().errorCode());
        assertEquals(0, handler.handled.get());
    }

    @Test
    void handlerThatThrowsOrFailsOrReturnsNoFutureIsAnsweredWithAnErrorResponse() throws Exception {
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> {
            throw new IllegalStateException("bug");
        });
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(),
                describeCluster(dispatchAlone(describeClusterRequest((short) 1))).data().errorCode());

        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) ->
                CompletableFuture.failedFuture(new NotControllerException("moved")));
        assertEquals(Errors.NOT_CONTROLLER.code(),
                describeCluster(dispatchAlone(describeClusterRequest((short) 1))).data().errorCode());

        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> null);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(),
                describeCluster(dispatchAlone(describeClusterRequest((short) 1))).data().errorCode());
    }

    @Test
    void capacityRunsOutAtQueuedMaxRequestsAndComesBackWhenARequestLeaves() throws Exception {
        dispatcher.close(Duration.ofSeconds(1));
        dispatcher = new RequestDispatcher(handler, 1, 2);
        CountDownLatch release = new CountDownLatch(1);
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(null);
        });
        dispatchAlone(describeClusterRequest((short) 1)); // runs, blocked
        assertTrue(dispatcher.hasCapacity());
        dispatchAlone(describeClusterRequest((short) 1)); // waits for the one thread
        assertFalse(dispatcher.hasCapacity());
        AtomicInteger resumed = new AtomicInteger();
        dispatcher.whenCapacity(resumed::incrementAndGet);
        assertEquals(0, resumed.get());

        release.countDown();
        await().untilAsserted(() -> assertTrue(() -> resumed.get() == 1, () -> "the waiting connection resumed"));
        await().untilAsserted(() -> assertTrue(() -> dispatcher.queued() == 0,
                () -> "both requests handled, " + dispatcher.queued() + " left"));
        assertEquals(1, resumed.get());
    }

    @Test
    void requestsParkedOnAnIncompleteFutureDoNotCountAgainstTheQueue() {
        dispatcher.close(Duration.ofSeconds(1));
        dispatcher = new RequestDispatcher(handler, 1, 1);
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> new CompletableFuture<>()); // a long poll
        CompletableFuture<AbstractResponse> parked = dispatchAlone(describeClusterRequest((short) 1));
        await().untilAsserted(() -> assertTrue(dispatcher::hasCapacity, () -> "room again once handle() returned"));
        assertFalse(parked.isDone());
    }

    @Test
    void requestsOfOneConnectionAreHandledOneAtATimeInArrivalOrder() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<Integer> order = new CopyOnWriteArrayList<>();
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                if (context.header().correlationId() == 1) {
                    release.await(10, TimeUnit.SECONDS); // the first holds the connection's later requests back
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.add(context.header().correlationId());
            running.decrementAndGet();
            return CompletableFuture.completedFuture(null);
        });
        RequestDispatcher.ConnectionQueue connection = dispatcher.newConnectionQueue();
        List<CompletableFuture<AbstractResponse>> responses = new ArrayList<>();
        for (int correlationId = 1; correlationId <= 5; correlationId++) {
            Request request = TestRequests.request(
                    new DescribeClusterRequest(new DescribeClusterRequestData(), (short) 1), correlationId);
            responses.add(dispatcher.dispatch(request, connection));
        }
        // Another connection is not held back by the first one's waiting requests: the dispatcher has 2 threads.
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) dispatchAlone(TestRequests.apiVersions(9))
                .get(10, TimeUnit.SECONDS)).data().errorCode());
        assertTrue(order.isEmpty());

        release.countDown();
        CompletableFuture.allOf(responses.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1, 2, 3, 4, 5), order);
        assertEquals(1, mostAtOnce.get(), "never two requests of one connection at once");
    }

    @Test
    void aParkedRequestDoesNotHoldBackItsConnectionsNextRequest() throws Exception {
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> new CompletableFuture<>()); // a long poll
        RequestDispatcher.ConnectionQueue connection = dispatcher.newConnectionQueue();
        CompletableFuture<AbstractResponse> parked =
                dispatcher.dispatch(describeClusterRequest((short) 1), connection);
        AbstractResponse next = dispatcher.dispatch(TestRequests.apiVersions(2), connection).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) next).data().errorCode());
        assertFalse(parked.isDone());
    }

    @Test
    void heartbeatsAndOffsetCommitsOfAnIdleConnectionAreHandledOnTheDispatchingThread() throws Exception {
        answerHeartbeats();
        RequestDispatcher.ConnectionQueue connection = dispatcher.newConnectionQueue();
        CompletableFuture<AbstractResponse> response = dispatcher.dispatch(heartbeatRequest(1), connection);
        assertTrue(response.isDone(), "answered before dispatch returned");
        assertEquals(Errors.NONE.code(), ((HeartbeatResponse) response.get()).data().errorCode());
        assertEquals(Thread.currentThread().getName(), handler.calls.get(0).thread());
        assertEquals(0, dispatcher.queued());

        // The connection is idle again: the next one runs here too, and other requests still go to the pool.
        dispatcher.dispatch(heartbeatRequest(2), connection).get(10, TimeUnit.SECONDS);
        dispatcher.dispatch(TestRequests.apiVersions(3), connection).get(10, TimeUnit.SECONDS);
        assertEquals(Thread.currentThread().getName(), handler.calls.get(1).thread());
        assertTrue(handler.calls.get(2).thread().startsWith("tributary-request-handler"),
                handler.calls.get(2).thread());
        assertTrue(RequestDispatcher.ON_EVENT_LOOP.contains(ApiKeys.OFFSET_COMMIT));
    }

    @Test
    void aHeartbeatBehindAWaitingRequestOfItsConnectionIsHandledAfterItOnThePool() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            order.add(context.header().correlationId());
            return CompletableFuture.completedFuture(null);
        });
        handler.on(ApiKeys.HEARTBEAT, (context, request) -> {
            order.add(context.header().correlationId());
            return CompletableFuture.completedFuture(new HeartbeatResponse(new HeartbeatResponseData()));
        });
        RequestDispatcher.ConnectionQueue connection = dispatcher.newConnectionQueue();
        CompletableFuture<AbstractResponse> first = dispatcher.dispatch(describeClusterRequest((short) 1), connection);
        CompletableFuture<AbstractResponse> heartbeat = dispatcher.dispatch(heartbeatRequest(2), connection);
        assertFalse(heartbeat.isDone());
        assertTrue(order.isEmpty());

        release.countDown();
        CompletableFuture.allOf(first, heartbeat).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1, 2), order);
        assertTrue(handler.calls.get(1).thread().startsWith("tributary-request-handler"),
                handler.calls.get(1).thread());
    }

    private void answerHeartbeats() {
        handler.on(ApiKeys.HEARTBEAT, (context, request) ->
                CompletableFuture.completedFuture(new HeartbeatResponse(new HeartbeatResponseData())));
    }

    private static Request heartbeatRequest(int correlationId) {
        return TestRequests.request(new HeartbeatRequest.Builder(new HeartbeatRequestData()
                .setGroupId("group").setMemberId("member").setGenerationId(1)).build((short) 4), correlationId);
    }

    @Test
    void afterCloseRequestsAreAnsweredBrokerNotAvailable() throws Exception {
        dispatcher.close(Duration.ofSeconds(1));
        DescribeClusterResponse response = describeCluster(dispatchAlone(describeClusterRequest((short) 1)));
        assertEquals(Errors.BROKER_NOT_AVAILABLE.code(), response.data().errorCode());
        assertTrue(dispatcher.hasCapacity());
    }
}
