package io.tributary.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.tributary.broker.cluster.BrokerConfigAdmin;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.ProducerIdManager;
import io.tributary.broker.cluster.TopicAdmin;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

/** ElectLeaders answers at every version it is asked in, also when the whole election fails. */
class ReplicaAdminHandlerTest {

    /**
     * Found by the protocol fuzzer: an ElectLeaders v0 whose timeout ran out was answered with a top-level error code,
     * a field v0 does not have; the response could not be serialized, and the client got UNKNOWN_SERVER_ERROR with an
     * ERROR line on the broker. At v0 the error goes on each partition, from v1 on at the top.
     */
    @Test
    void aFailedElectionIsAnsweredInAFormEveryVersionCanCarry() throws Exception {
        for (short version = 0; version <= ApiKeys.ELECT_LEADERS.latestVersion(); version++) {
            ElectLeadersResponse timedOut = elect(new CompletableFuture<>(), version, 1);
            assertFailedWith(Errors.REQUEST_TIMED_OUT, roundTrip(timedOut, version), version);

            ElectLeadersResponse notController = elect(CompletableFuture.failedFuture(
                    new NotControllerException("broker 0 is not the controller")), version, 1000);
            assertFailedWith(Errors.NOT_CONTROLLER, roundTrip(notController, version), version);
        }
    }

    private static void assertFailedWith(Errors error, ElectLeadersResponse response, short version) {
        if (version >= 1) {
            assertEquals(error.code(), response.data().errorCode(), "v" + version);
        }
        List<Short> partitionErrors = response.data().replicaElectionResults().stream()
                .flatMap(topic -> topic.partitionResult().stream()).map(p -> p.errorCode()).toList();
        assertEquals(List.of(error.code(), error.code()), partitionErrors, "v" + version + ": each partition");
    }

    private static ElectLeadersResponse elect(CompletableFuture<Map<TopicPartition, ApiError>> outcome,
                                              short version, int timeoutMs) throws Exception {
        ElectLeadersRequest request = new ElectLeadersRequest.Builder(ElectionType.PREFERRED,
                List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1)), timeoutMs).build(version);
        ReplicaAdminHandler handler = new ReplicaAdminHandler(new ElectionOnlyCluster(outcome));
        return (ElectLeadersResponse) handler.electLeaders(request).get(10, TimeUnit.SECONDS);
    }

    /** Serializes the response at {@code version} (this throws for a field the version lacks) and reads it back. */
    private static ElectLeadersResponse roundTrip(AbstractResponse response, short version) {
        RequestHeader requestHeader = new RequestHeader(ApiKeys.ELECT_LEADERS, version, "client", 7);
        ResponseHeader header = requestHeader.toResponseHeader();
        ByteBuffer bytes = RequestUtils.serialize(header.data(), header.headerVersion(), response.data(), version);
        return (ElectLeadersResponse) AbstractResponse.parseResponse(bytes, requestHeader);
    }

    /** A cluster whose controller answers elections with a given outcome; nothing else is used. */
    private record ElectionOnlyCluster(CompletableFuture<Map<TopicPartition, ApiError>> outcome)
            implements ClusterView {

        @Override
        public CompletableFuture<Map<TopicPartition, ApiError>> electLeaders(boolean unclean,
                                                                           Optional<Set<TopicPartition>> partitions) {
            return outcome;
        }

        @Override
        public MetadataSnapshot snapshot() {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> CompletableFuture<T> adminWork(String what, Supplier<T> work) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int localBrokerId() {
            return 0;
        }

        @Override
        public boolean isRegistered() {
            return true;
        }

        @Override
        public TopicAdmin topicAdmin() {
            throw new UnsupportedOperationException();
        }

        @Override
        public ProducerIdManager producerIds() {
            throw new UnsupportedOperationException();
        }

        @Override
        public String clusterId() {
            return "cluster";
        }

        @Override
        public BrokerConfigAdmin brokerConfigs() {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.tributary.broker.cluster.GroupConfigs groupConfigs() {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.tributary.broker.cluster.ScramCredentialStore scramCredentials() {
            throw new UnsupportedOperationException();
        }

        @Override
        public io.tributary.broker.cluster.ClientQuotaStore clientQuotas() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Map<TopicPartition, ApiError>> alterPartitionReassignments(
                Map<TopicPartition, Optional<List<Integer>>> targets) {
            throw new UnsupportedOperationException();
        }
    }
}
