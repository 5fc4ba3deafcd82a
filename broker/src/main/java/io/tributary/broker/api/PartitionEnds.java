package io.tributary.broker.api;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.cluster.BrokerInfo;
import io.tributary.broker.cluster.MetadataSnapshot;
import io.tributary.broker.cluster.PartitionMetadata;
import io.tributary.broker.replication.InterBrokerChannel;
import io.tributary.broker.replication.OffsetResult;
import io.tributary.broker.replication.ReplicaManager;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;

/**
 * The high watermark of a partition, for the lag DescribeShareGroupOffsets answers: from the replica manager when this
 * broker leads the partition, else by ListOffsets (latest, read_uncommitted) to its leader, as Kafka's group
 * coordinator asks it. -1 when it cannot be known now (no leader, the leader unreachable or answering an error): the
 * lag is then answered unknown rather than the describe failed.
 *
 * <p>Any thread; never blocks (remote answers complete on the channel's thread).
 */
final class PartitionEnds {

    private static final long UNKNOWN = -1L;

    private final ReplicaManager replicaManager;
    private final ClusterView cluster;
    /** Carries ListOffsets to other brokers; owned by the broker. */
    private final InterBrokerChannel channel;

    PartitionEnds(ReplicaManager replicaManager, ClusterView cluster, InterBrokerChannel channel) {
        this.replicaManager = replicaManager;
        this.cluster = cluster;
        this.channel = channel;
    }

    CompletableFuture<Long> highWatermark(TopicPartition partition) {
        MetadataSnapshot snapshot = cluster.snapshot();
        Optional<PartitionMetadata> metadata = snapshot.partition(partition).filter(PartitionMetadata::hasLeader);
        if (metadata.isEmpty()) {
            return CompletableFuture.completedFuture(UNKNOWN);
        }
        int leader = metadata.get().leader();
        if (leader == cluster.localBrokerId() || channel == null) {
            OffsetResult end = replicaManager.listOffset(partition, ListOffsetsRequest.LATEST_TIMESTAMP,
                    IsolationLevel.READ_UNCOMMITTED, -1, -1);
            return CompletableFuture.completedFuture(end.error() == Errors.NONE ? end.offset() : UNKNOWN);
        }
        Optional<BrokerInfo> broker = snapshot.broker(leader);
        if (broker.isEmpty()) {
            return CompletableFuture.completedFuture(UNKNOWN);
        }
        Node node = new Node(broker.get().id(), broker.get().host(), broker.get().port(), broker.get().rack());
        ListOffsetsRequest.Builder request = ListOffsetsRequest.Builder
                .forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic().setName(partition.topic())
                        .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                .setPartitionIndex(partition.partition())
                                .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)))));
        return channel.send(node, request).handle((response, failure) -> {
            if (failure != null || response == null || !response.hasResponse()
                    || !(response.responseBody() instanceof ListOffsetsResponse answer)) {
                return UNKNOWN;
            }
            for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : answer.data().topics()) {
                for (ListOffsetsResponseData.ListOffsetsPartitionResponse p : topic.partitions()) {
                    if (topic.name().equals(partition.topic()) && p.partitionIndex() == partition.partition()
                            && p.errorCode() == Errors.NONE.code()) {
                        return p.offset();
                    }
                }
            }
            return UNKNOWN;
        });
    }
}
