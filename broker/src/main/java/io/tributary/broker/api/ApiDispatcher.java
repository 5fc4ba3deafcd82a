package io.tributary.broker.api;

import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.group.GroupCoordinator;
import io.tributary.broker.network.RequestContext;
import io.tributary.broker.network.RequestHandler;
import io.tributary.broker.quota.ByteRateQuotas;
import io.tributary.broker.replication.ReplicaManager;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.txn.TransactionCoordinator;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.AlterShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.DeleteShareGroupStateRequest;
import org.apache.kafka.common.requests.DescribeShareGroupOffsetsRequest;
import org.apache.kafka.common.requests.InitializeShareGroupStateRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateSummaryRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.ReadShareGroupStateRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareGroupDescribeRequest;
import org.apache.kafka.common.requests.ShareGroupHeartbeatRequest;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.WriteShareGroupStateRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.utils.Time;

/**
 * The broker's {@link RequestHandler}: sends each request to the handler of its API family. Called on the network
 * layer's request-handler threads; handlers that wait (acks=all, long-poll fetch, topic creation) return futures.
 */
public final class ApiDispatcher implements RequestHandler {

    private static final EnumSet<ApiKeys> IMPLEMENTED = EnumSet.of(
            ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.PRODUCE, ApiKeys.FETCH, ApiKeys.LIST_OFFSETS,
            ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DESCRIBE_CONFIGS,
            ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.DESCRIBE_CLUSTER, ApiKeys.INIT_PRODUCER_ID,
            ApiKeys.DELETE_RECORDS, ApiKeys.OFFSET_FOR_LEADER_EPOCH, ApiKeys.FIND_COORDINATOR, ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
            ApiKeys.DESCRIBE_GROUPS, ApiKeys.LIST_GROUPS, ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE,
            ApiKeys.ELECT_LEADERS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.LIST_PARTITION_REASSIGNMENTS,
            ApiKeys.DESCRIBE_LOG_DIRS, ApiKeys.WRITE_TXN_MARKERS, ApiKeys.DESCRIBE_PRODUCERS,
            ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.DESCRIBE_TRANSACTIONS,
            ApiKeys.LIST_TRANSACTIONS, ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE,
            ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_GROUP_DESCRIBE, ApiKeys.READ_SHARE_GROUP_STATE,
            ApiKeys.WRITE_SHARE_GROUP_STATE, ApiKeys.DELETE_SHARE_GROUP_STATE, ApiKeys.READ_SHARE_GROUP_STATE_SUMMARY,
            ApiKeys.INITIALIZE_SHARE_GROUP_STATE, ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS,
            ApiKeys.ALTER_SHARE_GROUP_OFFSETS, ApiKeys.DELETE_SHARE_GROUP_OFFSETS, ApiKeys.SASL_HANDSHAKE,
            ApiKeys.SASL_AUTHENTICATE, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
            ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.CREATE_ACLS, ApiKeys.DESCRIBE_ACLS, ApiKeys.DELETE_ACLS);

    private final SupportedApis supported = new SupportedApis(IMPLEMENTED);
    private final ClusterView cluster;
    private final ApiVersionsHandler apiVersions = new ApiVersionsHandler(supported);
    private final MetadataHandler metadata;
    private final ProduceHandler produce;
    private final FetchHandler fetch;
    private final ListOffsetsHandler listOffsets;
    private final DeleteRecordsHandler deleteRecords;
    private final OffsetForLeaderEpochHandler offsetForLeaderEpoch;
    private final TopicAdminHandler topicAdmin;
    private final ConfigsHandler configs;
    private final ClusterInfoHandler clusterInfo;
    private final FindCoordinatorHandler findCoordinator;
    private final GroupHandler groups;
    private final TransactionHandler transactions;
    private final ReplicaAdminHandler replicaAdmin;
    private final LogDirsHandler logDirs;
    private final WriteTxnMarkersHandler writeTxnMarkers;
    private final DescribeProducersHandler describeProducers;
    private final ShareHandler share;
    private final ShareStateHandler shareState;
    private final ShareGroupOffsetsHandler shareOffsets;
    private final ScramCredentialsHandler scramCredentials;
    private final AclsHandler acls;
    private final ClientQuotasHandler clientQuotas;
    private final QuotaThrottling throttling;
    /** Null when authorization is off ({@code authorizer.class.name} unset). */
    private final RequestAuthorizer authorization;

    public ApiDispatcher(BrokerConfig config, ClusterView cluster, LogManager logManager,
                         ReplicaManager replicaManager, GroupCoordinator groupCoordinator,
                         TransactionCoordinator transactionCoordinator, ShareServices shares,
                         ByteRateQuotas quotas) {
        this.cluster = cluster;
        this.metadata = new MetadataHandler(config, cluster);
        this.produce = new ProduceHandler(replicaManager, cluster);
        this.fetch = new FetchHandler(replicaManager, cluster);
        this.listOffsets = new ListOffsetsHandler(replicaManager);
        this.deleteRecords = new DeleteRecordsHandler(replicaManager);
        this.offsetForLeaderEpoch = new OffsetForLeaderEpochHandler(replicaManager);
        this.topicAdmin = new TopicAdminHandler(cluster);
        this.configs = new ConfigsHandler(config, cluster);
        this.clusterInfo = new ClusterInfoHandler(cluster);
        this.findCoordinator = new FindCoordinatorHandler(cluster, config);
        this.groups = new GroupHandler(groupCoordinator, cluster);
        this.transactions = new TransactionHandler(transactionCoordinator, groupCoordinator, cluster);
        this.replicaAdmin = new ReplicaAdminHandler(cluster);
        this.logDirs = new LogDirsHandler(logManager, config.logDirs);
        this.writeTxnMarkers = new WriteTxnMarkersHandler(replicaManager, groupCoordinator, Time.SYSTEM);
        this.describeProducers = new DescribeProducersHandler(replicaManager);
        this.share = new ShareHandler(shares.partitions(), shares.settings(), cluster, Time.SYSTEM);
        this.shareState = new ShareStateHandler(shares.coordinator());
        this.scramCredentials = new ScramCredentialsHandler(cluster.scramCredentials());
        this.acls = new AclsHandler(cluster.aclStore(), cluster.authorizer());
        this.clientQuotas = new ClientQuotasHandler(cluster.clientQuotas());
        this.throttling = new QuotaThrottling(quotas);
        this.authorization = cluster.authorizer().map(a -> new RequestAuthorizer(a, cluster)).orElse(null);
        this.shareOffsets = new ShareGroupOffsetsHandler(groupCoordinator, shares.persister(), cluster,
                new PartitionEnds(replicaManager, cluster, shares.channel()));
    }

    @Override
    public boolean isSupported(ApiKeys api, short version) {
        return supported.isSupported(api, version);
    }

    @Override
    public CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request) {
        if (authorization == null) {
            return dispatch(context, request);
        }
        return authorization.handle(context, request, this::dispatch);
    }

    private CompletableFuture<AbstractResponse> dispatch(RequestContext context, AbstractRequest request) {
        ApiKeys api = context.header().apiKey();
        return switch (api) {
            case API_VERSIONS -> done(apiVersions.handle(context.header()));
            // On a SASL listener the network layer answers these before authentication; here they come on a
            // listener without SASL, or after authentication: Kafka answers ILLEGAL_SASL_STATE.
            case SASL_HANDSHAKE -> done(new SaslHandshakeResponse(new SaslHandshakeResponseData()
                    .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())));
            case DESCRIBE_USER_SCRAM_CREDENTIALS -> done(scramCredentials.describe(
                    (DescribeUserScramCredentialsRequest) request));
            case ALTER_USER_SCRAM_CREDENTIALS -> offRequestThread(api, () -> done(scramCredentials.alter(
                    (AlterUserScramCredentialsRequest) request)));
            case CREATE_ACLS -> offRequestThread(api, () -> done(acls.create((CreateAclsRequest) request)));
            case DESCRIBE_ACLS -> done(acls.describe((DescribeAclsRequest) request));
            case DELETE_ACLS -> offRequestThread(api, () -> done(acls.delete((DeleteAclsRequest) request)));
            case DESCRIBE_CLIENT_QUOTAS -> done(clientQuotas.describe((DescribeClientQuotasRequest) request));
            case ALTER_CLIENT_QUOTAS -> offRequestThread(api, () -> done(clientQuotas.alter(
                    (AlterClientQuotasRequest) request)));
            case SASL_AUTHENTICATE -> done(new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                    .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("SaslAuthenticate on a connection that is not authenticating with SASL")));
            case METADATA -> done(metadata.handle(context.listenerName(), (MetadataRequest) request));
            case PRODUCE -> throttling.produce(context, (ProduceRequest) request, produce::handle);
            case FETCH -> throttling.fetch(context, (FetchRequest) request, fetch::handle);
            case LIST_OFFSETS -> done(listOffsets.handle((ListOffsetsRequest) request));
            case DELETE_RECORDS -> done(deleteRecords.handle((DeleteRecordsRequest) request));
            case OFFSET_FOR_LEADER_EPOCH -> done(offsetForLeaderEpoch.handle((OffsetsForLeaderEpochRequest) request));
            case CREATE_TOPICS -> offRequestThread(api, () -> topicAdmin.createTopics((CreateTopicsRequest) request));
            case DELETE_TOPICS -> offRequestThread(api, () -> topicAdmin.deleteTopics((DeleteTopicsRequest) request));
            case CREATE_PARTITIONS -> offRequestThread(api,
                    () -> topicAdmin.createPartitions((CreatePartitionsRequest) request));
            case DESCRIBE_CONFIGS -> done(configs.describe((DescribeConfigsRequest) request));
            case INCREMENTAL_ALTER_CONFIGS -> offRequestThread(api,
                    () -> configs.incrementalAlter((IncrementalAlterConfigsRequest) request));
            case DESCRIBE_CLUSTER -> done(clusterInfo.describeCluster(context.listenerName(), (DescribeClusterRequest) request));
            case INIT_PRODUCER_ID -> offRequestThread(api,
                    () -> transactions.initProducerId((InitProducerIdRequest) request));
            case ADD_PARTITIONS_TO_TXN -> transactions.addPartitionsToTxn((AddPartitionsToTxnRequest) request);
            case ADD_OFFSETS_TO_TXN -> transactions.addOffsetsToTxn((AddOffsetsToTxnRequest) request);
            case END_TXN -> transactions.endTxn((EndTxnRequest) request);
            case DESCRIBE_TRANSACTIONS -> done(transactions.describeTransactions(
                    (DescribeTransactionsRequest) request));
            case LIST_TRANSACTIONS -> done(transactions.listTransactions((ListTransactionsRequest) request));
            case FIND_COORDINATOR -> done(findCoordinator.handle(context.listenerName(), (FindCoordinatorRequest) request));
            case JOIN_GROUP -> groups.joinGroup(context, (JoinGroupRequest) request);
            case SYNC_GROUP -> groups.syncGroup((SyncGroupRequest) request);
            case HEARTBEAT -> done(groups.heartbeat((HeartbeatRequest) request));
            case LEAVE_GROUP -> done(groups.leaveGroup((LeaveGroupRequest) request));
            case OFFSET_COMMIT -> groups.offsetCommit((OffsetCommitRequest) request);
            case OFFSET_FETCH -> done(groups.offsetFetch((OffsetFetchRequest) request));
            case DESCRIBE_GROUPS -> done(groups.describeGroups((DescribeGroupsRequest) request));
            case LIST_GROUPS -> done(groups.listGroups((ListGroupsRequest) request));
            case DELETE_GROUPS -> shareOffsets.deleteGroups((DeleteGroupsRequest) request, groups::deleteGroups);
            case OFFSET_DELETE -> groups.offsetDelete((OffsetDeleteRequest) request);
            case TXN_OFFSET_COMMIT -> groups.txnOffsetCommit((TxnOffsetCommitRequest) request);
            case SHARE_GROUP_HEARTBEAT -> groups.shareGroupHeartbeat(context, (ShareGroupHeartbeatRequest) request);
            case SHARE_GROUP_DESCRIBE -> done(groups.shareGroupDescribe((ShareGroupDescribeRequest) request));
            case ELECT_LEADERS -> replicaAdmin.electLeaders((ElectLeadersRequest) request);
            case ALTER_PARTITION_REASSIGNMENTS -> replicaAdmin.alterReassignments(
                    (AlterPartitionReassignmentsRequest) request);
            case LIST_PARTITION_REASSIGNMENTS -> done(replicaAdmin.listReassignments(
                    (ListPartitionReassignmentsRequest) request));
            case DESCRIBE_LOG_DIRS -> done(logDirs.describe((DescribeLogDirsRequest) request));
            case WRITE_TXN_MARKERS -> writeTxnMarkers.handle((WriteTxnMarkersRequest) request);
            case DESCRIBE_PRODUCERS -> done(describeProducers.handle((DescribeProducersRequest) request));
            case SHARE_FETCH -> share.shareFetch(context, (ShareFetchRequest) request);
            case SHARE_ACKNOWLEDGE -> share.shareAcknowledge((ShareAcknowledgeRequest) request);
            case READ_SHARE_GROUP_STATE -> shareState.read((ReadShareGroupStateRequest) request);
            case WRITE_SHARE_GROUP_STATE -> shareState.write((WriteShareGroupStateRequest) request);
            case DELETE_SHARE_GROUP_STATE -> shareState.delete((DeleteShareGroupStateRequest) request);
            case READ_SHARE_GROUP_STATE_SUMMARY -> shareState.readSummary(
                    (ReadShareGroupStateSummaryRequest) request);
            case INITIALIZE_SHARE_GROUP_STATE -> shareState.initialize((InitializeShareGroupStateRequest) request);
            case DESCRIBE_SHARE_GROUP_OFFSETS -> shareOffsets.describe((DescribeShareGroupOffsetsRequest) request,
                    context.header().apiVersion());
            case ALTER_SHARE_GROUP_OFFSETS -> shareOffsets.alter((AlterShareGroupOffsetsRequest) request);
            case DELETE_SHARE_GROUP_OFFSETS -> shareOffsets.delete((DeleteShareGroupOffsetsRequest) request);
            default -> CompletableFuture.failedFuture(new UnsupportedVersionException("API " + api
                    + " is not implemented by this broker"));
        };
    }

    /**
     * Handles a request whose work writes to ZooKeeper on the admin thread: a slow or unreachable ZooKeeper must not
     * hold a request-handler thread (produce and fetch of every client run on them). While ZooKeeper is unreachable
     * the request is answered at once with its error response for REQUEST_TIMED_OUT, which clients retry.
     */
    private CompletableFuture<AbstractResponse> offRequestThread(ApiKeys api,
            java.util.function.Supplier<CompletableFuture<AbstractResponse>> handling) {
        return cluster.adminWork(api.name, handling).thenCompose(response -> response);
    }

    private static CompletableFuture<AbstractResponse> done(AbstractResponse response) {
        return CompletableFuture.completedFuture(response);
    }
}
