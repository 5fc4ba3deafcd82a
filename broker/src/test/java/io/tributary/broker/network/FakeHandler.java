package io.tributary.broker.network;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * A request handler for tests: a broker with id 0 on 127.0.0.1 that answers ApiVersions truthfully, and Metadata
 * (itself, no topics) and DescribeCluster; tests add or replace answers per API with {@link #on}. Counts and
 * records the requests it handles.
 */
final class FakeHandler implements RequestHandler {

    static final String CLUSTER_ID = "tributary-test-cluster";
    static final int BROKER_ID = 0;

    @FunctionalInterface
    interface Responder {
        CompletableFuture<AbstractResponse> respond(RequestContext context, AbstractRequest request);
    }

    /** One call of {@link #handle}: what came in and on which thread. */
    record Call(RequestContext context, AbstractRequest request, String thread) {
    }

    private final Map<ApiKeys, Responder> responders = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Short> lowestSupported = new ConcurrentHashMap<>();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger handled = new AtomicInteger();
    private volatile int port;

    FakeHandler() {
        on(ApiKeys.API_VERSIONS, (context, request) -> answerApiVersions((ApiVersionsRequest) request));
        on(ApiKeys.METADATA, (context, request) -> CompletableFuture.completedFuture(metadata(request.version())));
        on(ApiKeys.DESCRIBE_CLUSTER, (context, request) -> CompletableFuture.completedFuture(describeCluster()));
    }

    FakeHandler on(ApiKeys api, Responder responder) {
        responders.put(api, responder);
        return this;
    }

    /** Makes versions below {@code version} of {@code api} unsupported. */
    FakeHandler supportFrom(ApiKeys api, short version) {
        lowestSupported.put(api, version);
        return this;
    }

    /** The port this broker advertises in Metadata and DescribeCluster. */
    void advertise(int port) {
        this.port = port;
    }

    long callsOf(ApiKeys api) {
        return calls.stream().filter(call -> call.context().header().apiKey() == api).count();
    }

    @Override
    public boolean isSupported(ApiKeys api, short version) {
        return responders.containsKey(api) && version >= lowestSupported.getOrDefault(api, api.oldestVersion())
                && version <= api.latestVersion(false);
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request) {
        calls.add(new Call(context, request, Thread.currentThread().getName()));
        handled.incrementAndGet();
        return responders.get(context.header().apiKey()).respond(context, request);
    }

    private CompletableFuture<AbstractResponse> answerApiVersions(ApiVersionsRequest request) {
        ApiVersionsResponseData.ApiVersionCollection apis = new ApiVersionsResponseData.ApiVersionCollection();
        responders.keySet().stream().sorted(Comparator.comparingInt(api -> api.id)).forEach(api ->
                api.toApiVersion(false).ifPresent(range -> apis.add(new ApiVersion().setApiKey(api.id)
                        .setMinVersion(lowestSupported.getOrDefault(api, range.minVersion()))
                        .setMaxVersion(range.maxVersion()))));
        Errors error = request.hasUnsupportedRequestVersion() ? Errors.UNSUPPORTED_VERSION : Errors.NONE;
        return CompletableFuture.completedFuture(new ApiVersionsResponse(new ApiVersionsResponseData()
                .setErrorCode(error.code()).setApiKeys(apis)));
    }

    MetadataResponse metadata(short version) {
        MetadataResponseData data = new MetadataResponseData().setClusterId(CLUSTER_ID).setControllerId(BROKER_ID);
        data.brokers().add(new MetadataResponseBroker().setNodeId(BROKER_ID).setHost("127.0.0.1").setPort(port));
        return new MetadataResponse(data, version);
    }

    private DescribeClusterResponse describeCluster() {
        DescribeClusterResponseData data = new DescribeClusterResponseData().setClusterId(CLUSTER_ID)
                .setControllerId(BROKER_ID);
        data.brokers().add(new DescribeClusterBroker().setBrokerId(BROKER_ID).setHost("127.0.0.1").setPort(port));
        return new DescribeClusterResponse(data);
    }
}
