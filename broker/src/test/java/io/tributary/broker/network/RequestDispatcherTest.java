package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
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

    private static Request describeClusterRequest(short version) {
        return TestRequests.request(new DescribeClusterRequest(new DescribeClusterRequestData(), version), 1);
    }

    @Test
    void handlerRunsOnARequestHandlerThread() throws Exception {
        AbstractResponse response = dispatcher.dispatch(TestRequests.apiVersions(1)).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), ((ApiVersionsResponse) response).data().errorCode());
        assertTrue(handler.calls.get(0).thread().startsWith("tributary-request-handler"),
                handler.calls.get(0).thread());
    }

    @Test
    void versionTheHandlerDoesNotSupportIsAnsweredWithoutCallingIt() throws Exception {
        handler.supportFrom(ApiKeys.DESCRIBE_CLUSTER, (short) 1);
        DescribeClusterResponse response = describeCluster(dispatcher.dispatch(describeClusterRequest((short) 0)));
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.data().errorCode());
        assertEquals(0, handler.handled.get());
    }

    @Test
    void handlerThatThrowsOrFailsOrReturnsNoFutureIsAnsweredWithAnErrorResponse() throws Exception {
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> {
            throw new IllegalStateException("bug");
        });
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(),
                describeCluster(dispatcher.dispatch(describeClusterRequest((short) 1))).data().errorCode());

        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) ->
                CompletableFuture.failedFuture(new NotControllerException("moved")));
        assertEquals(Errors.NOT_CONTROLLER.code(),
                describeCluster(dispatcher.dispatch(describeClusterRequest((short) 1))).data().errorCode());

        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> null);
        assertEquals(Errors.UNKNOWN_SERVER_ERROR.code(),
                describeCluster(dispatcher.dispatch(describeClusterRequest((short) 1))).data().errorCode());
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
        dispatcher.dispatch(describeClusterRequest((short) 1)); // runs, blocked
        assertTrue(dispatcher.hasCapacity());
        dispatcher.dispatch(describeClusterRequest((short) 1)); // waits for the one thread
        assertFalse(dispatcher.hasCapacity());
        AtomicInteger resumed = new AtomicInteger();
        dispatcher.whenCapacity(resumed::incrementAndGet);
        assertEquals(0, resumed.get());

        release.countDown();
        Await.until(() -> resumed.get() == 1, () -> "the waiting connection resumed");
        Await.until(() -> dispatcher.queued() == 0, () -> "both requests handled, " + dispatcher.queued() + " left");
        assertEquals(1, resumed.get());
    }

    @Test
    void requestsParkedOnAnIncompleteFutureDoNotCountAgainstTheQueue() {
        dispatcher.close(Duration.ofSeconds(1));
        dispatcher = new RequestDispatcher(handler, 1, 1);
        handler.on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> new CompletableFuture<>()); // a long poll
        CompletableFuture<AbstractResponse> parked = dispatcher.dispatch(describeClusterRequest((short) 1));
        Await.until(dispatcher::hasCapacity, () -> "room again once handle() returned");
        assertFalse(parked.isDone());
    }

    @Test
    void afterCloseRequestsAreAnsweredBrokerNotAvailable() throws Exception {
        dispatcher.close(Duration.ofSeconds(1));
        DescribeClusterResponse response = describeCluster(dispatcher.dispatch(describeClusterRequest((short) 1)));
        assertEquals(Errors.BROKER_NOT_AVAILABLE.code(), response.data().errorCode());
        assertTrue(dispatcher.hasCapacity());
    }
}
