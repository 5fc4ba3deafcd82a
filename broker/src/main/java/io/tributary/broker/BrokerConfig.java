package io.tributary.broker;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import io.tributary.broker.cluster.ZkClientSecurity;
import io.tributary.broker.group.GroupConfig;
import io.tributary.broker.quota.QuotaConfig;
import io.tributary.broker.replication.ReplicationConfig;
import io.tributary.broker.security.AuthorizerConfig;
import io.tributary.broker.security.SecurityConfig;
import io.tributary.broker.share.ShareConfig;
import io.tributary.broker.share.ShareCoordinatorConfig;
import io.tributary.broker.storage.LogCleaner;
import io.tributary.broker.storage.LogConfig;
import io.tributary.broker.storage.LogManager;
import io.tributary.broker.txn.TransactionConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidList;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

/**
 * The broker's configuration: Kafka's broker property names and defaults ({@code server.properties}), parsed and
 * validated once at start-up. Everything else reads the typed fields and the derived objects
 * ({@link #defaultLogConfig()}, {@link #logManagerConfig()}); nothing reads raw properties after this.
 *
 * <p>An unknown name, or a value of the wrong type or out of range, is refused with a {@link ConfigException} that
 * names the property and what it accepts. Where Kafka has alternative units for one setting
 * ({@code log.retention.hours}/{@code minutes}/{@code ms}, {@code log.roll.hours}/{@code ms}), the finest unit given
 * wins, as in Kafka. Immutable; safe to share between threads.
 */
public final class BrokerConfig {

    public static final String BROKER_ID = "broker.id";
    public static final String LISTENERS = "listeners";
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    public static final String LOG_DIRS = "log.dirs";
    public static final String LOG_DIR = "log.dir";
    public static final String CONNECTIONS_MAX_REAUTH_MS = "connections.max.reauth.ms";
    public static final String ZOOKEEPER_CONNECT = "zookeeper.connect";
    public static final String ZOOKEEPER_SESSION_TIMEOUT_MS = "zookeeper.session.timeout.ms";
    public static final String ZOOKEEPER_CONNECTION_TIMEOUT_MS = "zookeeper.connection.timeout.ms";
    public static final String NUM_PARTITIONS = "num.partitions";
    public static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
    public static final String DELETE_TOPIC_ENABLE = "delete.topic.enable";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String REPLICA_LAG_TIME_MAX_MS = "replica.lag.time.max.ms";
    public static final String NUM_REPLICA_FETCHERS = "num.replica.fetchers";
    public static final String REPLICA_FETCH_WAIT_MAX_MS = "replica.fetch.wait.max.ms";
    public static final String REPLICA_FETCH_MIN_BYTES = "replica.fetch.min.bytes";
    public static final String REPLICA_FETCH_MAX_BYTES = "replica.fetch.max.bytes";
    public static final String REPLICA_FETCH_RESPONSE_MAX_BYTES = "replica.fetch.response.max.bytes";
    public static final String REPLICA_FETCH_BACKOFF_MS = "replica.fetch.backoff.ms";
    public static final String REPLICA_SOCKET_TIMEOUT_MS = "replica.socket.timeout.ms";
    public static final String REPLICA_SOCKET_RECEIVE_BUFFER_BYTES = "replica.socket.receive.buffer.bytes";
    public static final String REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS =
            "replica.high.watermark.checkpoint.interval.ms";
    public static final String CONTROLLED_SHUTDOWN_ENABLE = "controlled.shutdown.enable";
    public static final String CONTROLLED_SHUTDOWN_MAX_RETRIES = "controlled.shutdown.max.retries";
    public static final String CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS = "controlled.shutdown.retry.backoff.ms";
    public static final String AUTO_LEADER_REBALANCE_ENABLE = "auto.leader.rebalance.enable";
    public static final String LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS = "leader.imbalance.check.interval.seconds";
    public static final String LEADER_IMBALANCE_PER_BROKER_PERCENTAGE = "leader.imbalance.per.broker.percentage";
    public static final String BROKER_FAILURE_DETECTION_ENABLE = "broker.failure.detection.enable";
    public static final String MESSAGE_MAX_BYTES = "message.max.bytes";
    public static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";
    public static final String SOCKET_SEND_BUFFER_BYTES = "socket.send.buffer.bytes";
    public static final String SOCKET_RECEIVE_BUFFER_BYTES = "socket.receive.buffer.bytes";
    public static final String NUM_NETWORK_THREADS = "num.network.threads";
    public static final String NUM_IO_THREADS = "num.io.threads";
    public static final String QUEUED_MAX_REQUESTS = "queued.max.requests";
    public static final String QUOTA_WINDOW_NUM = "quota.window.num";
    public static final String QUOTA_WINDOW_SIZE_SECONDS = "quota.window.size.seconds";
    public static final String QUEUED_MAX_REQUEST_BYTES = "queued.max.request.bytes";
    public static final String MAX_CONNECTIONS = "max.connections";
    public static final String MAX_CONNECTIONS_PER_IP = "max.connections.per.ip";
    public static final String MAX_CONNECTIONS_PER_IP_OVERRIDES = "max.connections.per.ip.overrides";
    public static final String CONNECTIONS_MAX_IDLE_MS = "connections.max.idle.ms";
    public static final String BROKER_RACK = "broker.rack";
    public static final String METRICS_HTTP_LISTENER = "metrics.http.listener";

    public static final String LOG_SEGMENT_BYTES = "log.segment.bytes";
    public static final String LOG_ROLL_HOURS = "log.roll.hours";
    public static final String LOG_ROLL_MS = "log.roll.ms";
    public static final String LOG_RETENTION_HOURS = "log.retention.hours";
    public static final String LOG_RETENTION_MINUTES = "log.retention.minutes";
    public static final String LOG_RETENTION_MS = "log.retention.ms";
    public static final String LOG_RETENTION_BYTES = "log.retention.bytes";
    public static final String LOG_CLEANUP_POLICY = "log.cleanup.policy";
    public static final String LOG_INDEX_INTERVAL_BYTES = "log.index.interval.bytes";
    public static final String LOG_INDEX_SIZE_MAX_BYTES = "log.index.size.max.bytes";
    public static final String LOG_FLUSH_INTERVAL_MESSAGES = "log.flush.interval.messages";
    public static final String LOG_FLUSH_INTERVAL_MS = "log.flush.interval.ms";
    public static final String LOG_PREALLOCATE = "log.preallocate";
    public static final String LOG_MESSAGE_TIMESTAMP_TYPE = "log.message.timestamp.type";
    public static final String LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "log.message.timestamp.before.max.ms";
    public static final String LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS = "log.message.timestamp.after.max.ms";
    public static final String LOG_SEGMENT_DELETE_DELAY_MS = "log.segment.delete.delay.ms";
    public static final String LOG_CLEANER_ENABLE = "log.cleaner.enable";
    public static final String LOG_CLEANER_DELETE_RETENTION_MS = "log.cleaner.delete.retention.ms";
    public static final String LOG_CLEANER_MIN_COMPACTION_LAG_MS = "log.cleaner.min.compaction.lag.ms";
    public static final String LOG_CLEANER_MIN_CLEANABLE_RATIO = "log.cleaner.min.cleanable.ratio";
    public static final String LOG_CLEANER_IO_MAX_BYTES_PER_SECOND = "log.cleaner.io.max.bytes.per.second";
    public static final String LOG_CLEANER_BACKOFF_MS = "log.cleaner.backoff.ms";
    public static final String LOG_CLEANER_DEDUPE_BUFFER_SIZE = "log.cleaner.dedupe.buffer.size";
    public static final String LOG_CLEANER_IO_BUFFER_SIZE = "log.cleaner.io.buffer.size";
    public static final String LOG_RETENTION_CHECK_INTERVAL_MS = "log.retention.check.interval.ms";
    public static final String LOG_FLUSH_SCHEDULER_INTERVAL_MS = "log.flush.scheduler.interval.ms";
    public static final String LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS = "log.flush.offset.checkpoint.interval.ms";
    public static final String NUM_RECOVERY_THREADS_PER_DATA_DIR = "num.recovery.threads.per.data.dir";
    public static final String PRODUCER_ID_EXPIRATION_MS = "producer.id.expiration.ms";

    public static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";
    public static final String OFFSETS_TOPIC_SEGMENT_BYTES = "offsets.topic.segment.bytes";
    public static final String OFFSETS_LOAD_BUFFER_SIZE = "offsets.load.buffer.size";
    public static final String OFFSETS_RETENTION_MINUTES = "offsets.retention.minutes";
    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS = "offsets.retention.check.interval.ms";
    public static final String OFFSETS_COMMIT_TIMEOUT_MS = "offsets.commit.timeout.ms";
    public static final String OFFSET_METADATA_MAX_BYTES = "offset.metadata.max.bytes";
    public static final String GROUP_MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
    public static final String GROUP_MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
    public static final String GROUP_INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
    public static final String GROUP_MAX_SIZE = "group.max.size";

    public static final String GROUP_SHARE_RECORD_LOCK_DURATION_MS = "group.share.record.lock.duration.ms";
    public static final String GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS = "group.share.min.record.lock.duration.ms";
    public static final String GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS = "group.share.max.record.lock.duration.ms";
    public static final String GROUP_SHARE_DELIVERY_COUNT_LIMIT = "group.share.delivery.count.limit";
    public static final String GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS = "group.share.partition.max.record.locks";
    public static final String GROUP_SHARE_SESSION_TIMEOUT_MS = "group.share.session.timeout.ms";
    public static final String GROUP_SHARE_MIN_SESSION_TIMEOUT_MS = "group.share.min.session.timeout.ms";
    public static final String GROUP_SHARE_MAX_SESSION_TIMEOUT_MS = "group.share.max.session.timeout.ms";
    public static final String GROUP_SHARE_HEARTBEAT_INTERVAL_MS = "group.share.heartbeat.interval.ms";
    public static final String GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS = "group.share.min.heartbeat.interval.ms";
    public static final String GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS = "group.share.max.heartbeat.interval.ms";
    public static final String GROUP_SHARE_MAX_SIZE = "group.share.max.size";
    public static final String GROUP_SHARE_MAX_SHARE_SESSIONS = "group.share.max.share.sessions";
    public static final String SHARE_COORDINATOR_STATE_TOPIC_NUM_PARTITIONS =
            "share.coordinator.state.topic.num.partitions";
    public static final String SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR =
            "share.coordinator.state.topic.replication.factor";
    public static final String SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR = "share.coordinator.state.topic.min.isr";
    public static final String SHARE_COORDINATOR_STATE_TOPIC_SEGMENT_BYTES =
            "share.coordinator.state.topic.segment.bytes";

    public static final String TRANSACTION_STATE_LOG_NUM_PARTITIONS = "transaction.state.log.num.partitions";
    public static final String TRANSACTION_STATE_LOG_REPLICATION_FACTOR = "transaction.state.log.replication.factor";
    public static final String TRANSACTION_STATE_LOG_MIN_ISR = "transaction.state.log.min.isr";
    public static final String TRANSACTION_STATE_LOG_SEGMENT_BYTES = "transaction.state.log.segment.bytes";
    public static final String TRANSACTION_MAX_TIMEOUT_MS = "transaction.max.timeout.ms";
    public static final String TRANSACTIONAL_ID_EXPIRATION_MS = "transactional.id.expiration.ms";
    public static final String TRANSACTION_ABORT_TIMED_OUT_CLEANUP_INTERVAL_MS =
            "transaction.abort.timed.out.transaction.cleanup.interval.ms";
    public static final String TRANSACTION_REMOVE_EXPIRED_CLEANUP_INTERVAL_MS =
            "transaction.remove.expired.transaction.cleanup.interval.ms";

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(BROKER_ID, Type.INT, 0, atLeast(0), Importance.HIGH,
                    "This broker's id, unique in the cluster.")
            .define(LISTENERS, Type.LIST, "PLAINTEXT://127.0.0.1:9092", Importance.HIGH,
                    "Where the broker listens: NAME://host:port, comma-separated; each name's security protocol is "
                            + "in listener.security.protocol.map.")
            .define(ADVERTISED_LISTENERS, Type.LIST, null, Importance.HIGH,
                    "Addresses given to clients in metadata; defaults to listeners.")
            .define(LOG_DIRS, Type.LIST, null, Importance.HIGH,
                    "Directories of the partition logs, comma-separated.")
            .define(LOG_DIR, Type.STRING, "./data/logs", Importance.HIGH,
                    "The log directory when log.dirs is not set.")
            .define(ZOOKEEPER_CONNECT, Type.STRING, null, Importance.HIGH,
                    "host:port[,host:port...][/chroot] of the ZooKeeper ensemble; unset starts an embedded one.")
            .define(ZOOKEEPER_SESSION_TIMEOUT_MS, Type.INT, 18_000, atLeast(1), Importance.HIGH,
                    "ZooKeeper session timeout.")
            .define(ZOOKEEPER_CONNECTION_TIMEOUT_MS, Type.INT, null, Importance.HIGH,
                    "How long to wait for a ZooKeeper connection; defaults to the session timeout.")
            .define(CONNECTIONS_MAX_REAUTH_MS, Type.LONG, 0L, atLeast(0), Importance.MEDIUM,
                    "The lifetime of a SASL session; the client re-authenticates before it ends, else its connection"
                            + " is closed at its next request. 0: sessions last as long as their connection.")
            .define(ZkClientSecurity.SET_ACL, Type.BOOLEAN, false, Importance.HIGH,
                    "Create znodes writable by this broker's ZooKeeper identity only (SASL or TLS certificate).")
            .define(ZkClientSecurity.SSL_CLIENT_ENABLE, Type.BOOLEAN, false, Importance.HIGH,
                    "Connect to ZooKeeper over TLS.")
            .define(ZkClientSecurity.CLIENT_CNXN_SOCKET, Type.STRING, null, Importance.MEDIUM,
                    "The ZooKeeper client's socket class; TLS needs (and defaults to) ClientCnxnSocketNetty.")
            .define(ZkClientSecurity.SSL_KEYSTORE_LOCATION, Type.STRING, null, Importance.MEDIUM,
                    "The broker's certificate and key for TLS to ZooKeeper.")
            .define(ZkClientSecurity.SSL_KEYSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM,
                    "The password of zookeeper.ssl.keystore.location.")
            .define(ZkClientSecurity.SSL_KEYSTORE_TYPE, Type.STRING, null, Importance.MEDIUM,
                    "JKS or PKCS12; unset, from the file name.")
            .define(ZkClientSecurity.SSL_TRUSTSTORE_LOCATION, Type.STRING, null, Importance.MEDIUM,
                    "The certificates ZooKeeper's certificate must chain to.")
            .define(ZkClientSecurity.SSL_TRUSTSTORE_PASSWORD, Type.PASSWORD, null, Importance.MEDIUM,
                    "The password of zookeeper.ssl.truststore.location.")
            .define(ZkClientSecurity.SSL_TRUSTSTORE_TYPE, Type.STRING, null, Importance.MEDIUM,
                    "JKS or PKCS12; unset, from the file name.")
            .define(ZkClientSecurity.SSL_PROTOCOL, Type.STRING, null, Importance.LOW,
                    "The TLS protocol to ZooKeeper; unset, the ZooKeeper 3.9 client's (TLSv1.3, which ZooKeeper 3.9"
                            + " servers prefer; Kafka 3.x's default was TLSv1.2).")
            .define(ZkClientSecurity.SSL_ENABLED_PROTOCOLS, Type.LIST, null, Importance.LOW,
                    "The TLS protocols to ZooKeeper that may be negotiated.")
            .define(ZkClientSecurity.SSL_CIPHER_SUITES, Type.LIST, null, Importance.LOW,
                    "The cipher suites to ZooKeeper that may be negotiated.")
            .define(ZkClientSecurity.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, Type.STRING, "HTTPS", Importance.LOW,
                    "HTTPS checks that ZooKeeper's certificate names its host; empty does not.")
            .define(ZkClientSecurity.SSL_CRL_ENABLE, Type.BOOLEAN, false, Importance.LOW,
                    "Check certificate revocation lists for ZooKeeper's certificate.")
            .define(ZkClientSecurity.SSL_OCSP_ENABLE, Type.BOOLEAN, false, Importance.LOW,
                    "Check ZooKeeper's certificate with OCSP.")
            .define(NUM_PARTITIONS, Type.INT, 1, atLeast(1), Importance.MEDIUM,
                    "Partitions of an automatically created topic.")
            .define(DEFAULT_REPLICATION_FACTOR, Type.INT, 1, atLeast(1), Importance.MEDIUM,
                    "Replication factor of an automatically created topic.")
            .define(MIN_INSYNC_REPLICAS, Type.INT, 1, atLeast(1), Importance.HIGH,
                    "In-sync replicas needed for an acks=all produce to succeed.")
            .define(AUTO_CREATE_TOPICS_ENABLE, Type.BOOLEAN, true, Importance.HIGH,
                    "Create a topic when a client asks for metadata of one that does not exist.")
            .define(DELETE_TOPIC_ENABLE, Type.BOOLEAN, true, Importance.HIGH,
                    "Allow topic deletion.")
            .define(UNCLEAN_LEADER_ELECTION_ENABLE, Type.BOOLEAN, false, Importance.HIGH,
                    "Elect a leader outside the ISR as a last resort, at the risk of losing data.")
            .define(REPLICA_LAG_TIME_MAX_MS, Type.LONG, 30_000L, atLeast(1), Importance.HIGH,
                    "A follower that has not caught up for this long leaves the ISR.")
            .define(NUM_REPLICA_FETCHERS, Type.INT, 1, atLeast(1), Importance.HIGH,
                    "Fetcher threads per source broker that replicate its partitions to this one.")
            .define(REPLICA_FETCH_WAIT_MAX_MS, Type.INT, 500, atLeast(0), Importance.MEDIUM,
                    "How long a follower's fetch waits at the leader for new records.")
            .define(REPLICA_FETCH_MIN_BYTES, Type.INT, 1, atLeast(1), Importance.MEDIUM,
                    "Bytes a follower's fetch waits for at the leader.")
            .define(REPLICA_FETCH_MAX_BYTES, Type.INT, 1024 * 1024, atLeast(0), Importance.MEDIUM,
                    "Bytes a follower fetches per partition (at least one batch).")
            .define(REPLICA_FETCH_RESPONSE_MAX_BYTES, Type.INT, 10 * 1024 * 1024, atLeast(0), Importance.MEDIUM,
                    "Bytes of one follower fetch response (at least one batch).")
            .define(REPLICA_FETCH_BACKOFF_MS, Type.INT, 1_000, atLeast(0), Importance.MEDIUM,
                    "Pause of a follower's fetching of a partition after an error.")
            .define(REPLICA_SOCKET_TIMEOUT_MS, Type.INT, 30_000, atLeast(1), Importance.HIGH,
                    "How long a follower waits for its leader's answer (beyond replica.fetch.wait.max.ms).")
            .define(REPLICA_SOCKET_RECEIVE_BUFFER_BYTES, Type.INT, 64 * 1024, atLeast(-1), Importance.HIGH,
                    "SO_RCVBUF of follower connections; -1 for the OS default.")
            .define(REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, Type.LONG, 5_000L, atLeast(1), Importance.HIGH,
                    "How often the high watermarks are written to replication-offset-checkpoint.")
            .define(CONTROLLED_SHUTDOWN_ENABLE, Type.BOOLEAN, true, Importance.MEDIUM,
                    "On SIGTERM, move leaderships to other replicas before stopping.")
            .define(CONTROLLED_SHUTDOWN_MAX_RETRIES, Type.INT, 3, atLeast(0), Importance.MEDIUM,
                    "Attempts at moving the leaderships away before stopping anyway.")
            .define(CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS, Type.LONG, 5_000L, atLeast(0), Importance.MEDIUM,
                    "How long each attempt of a controlled shutdown waits.")
            .define(AUTO_LEADER_REBALANCE_ENABLE, Type.BOOLEAN, true, Importance.HIGH,
                    "Move leaderships back to preferred replicas when a broker's share is off balance.")
            .define(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS, Type.LONG, 300L, atLeast(1), Importance.HIGH,
                    "How often the controller checks leader balance.")
            .define(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, Type.INT, 10, between(0, 100), Importance.HIGH,
                    "Share of a broker's preferred partitions led elsewhere that triggers a rebalance.")
            .define(BROKER_FAILURE_DETECTION_ENABLE, Type.BOOLEAN, true, Importance.HIGH,
                    "Tributary's: declare a broker dead as soon as its process is gone (its connections reset and "
                            + "its port refuses), instead of waiting for its ZooKeeper session to expire.")
            .define(MESSAGE_MAX_BYTES, Type.INT, 1024 * 1024 + 12, atLeast(0), Importance.HIGH,
                    "Largest record batch a topic accepts unless it sets max.message.bytes.")
            .define(SOCKET_REQUEST_MAX_BYTES, Type.INT, 100 * 1024 * 1024, atLeast(1), Importance.HIGH,
                    "Largest request; a larger one closes the connection.")
            .define(SOCKET_SEND_BUFFER_BYTES, Type.INT, 100 * 1024, atLeast(-1), Importance.HIGH,
                    "SO_SNDBUF of client connections; -1 for the OS default.")
            .define(SOCKET_RECEIVE_BUFFER_BYTES, Type.INT, 100 * 1024, atLeast(-1), Importance.HIGH,
                    "SO_RCVBUF of client connections; -1 for the OS default.")
            .define(NUM_NETWORK_THREADS, Type.INT, 3, atLeast(1), Importance.HIGH,
                    "Network event-loop threads.")
            .define(NUM_IO_THREADS, Type.INT, 8, atLeast(1), Importance.HIGH,
                    "Threads that handle requests.")
            .define(QUEUED_MAX_REQUESTS, Type.INT, 500, atLeast(1), Importance.MEDIUM,
                    "Requests queued for the handler threads before the network stops reading.")
            .define(QUOTA_WINDOW_NUM, Type.INT, 11, atLeast(1), Importance.LOW,
                    "Samples kept in memory for client quotas: the rate is measured over this many windows.")
            .define(QUOTA_WINDOW_SIZE_SECONDS, Type.INT, 1, atLeast(1), Importance.LOW,
                    "The time span of each sample for client quotas.")
            .define(QUEUED_MAX_REQUEST_BYTES, Type.LONG, -1L, Importance.MEDIUM,
                    "Bytes of requests being received or waiting for a handler thread; a connection whose next "
                            + "request does not fit is not read until it does, and a request larger than this closes "
                            + "its connection. -1 (or 0): unbounded.")
            .define(MAX_CONNECTIONS, Type.INT, Integer.MAX_VALUE, atLeast(0), Importance.MEDIUM,
                    "Client connections open at once over all listeners; one more is closed as soon as accepted.")
            .define(MAX_CONNECTIONS_PER_IP, Type.INT, Integer.MAX_VALUE, atLeast(0), Importance.MEDIUM,
                    "Client connections open at once from one IP address; one more is closed as soon as accepted.")
            .define(MAX_CONNECTIONS_PER_IP_OVERRIDES, Type.STRING, "", Importance.MEDIUM,
                    "max.connections.per.ip for particular hosts: host:count, comma-separated; host names are "
                            + "resolved at start-up.")
            .define(CONNECTIONS_MAX_IDLE_MS, Type.LONG, 600_000L, Importance.MEDIUM,
                    "Close a connection that has moved no bytes and owed no response for this long, and one whose "
                            + "request has not arrived in full this long after its first byte; -1: never.")
            .define(METRICS_HTTP_LISTENER, Type.STRING, null, Importance.MEDIUM,
                    "host:port of the HTTP listener that serves /metrics (Prometheus) and /health/live, "
                            + "/health/ready; unset: none. Port 0 binds any free port.")
            .define(BROKER_RACK, Type.STRING, null, Importance.MEDIUM,
                    "Rack of this broker, reported in metadata.")
            .define(LOG_SEGMENT_BYTES, Type.INT, 1024 * 1024 * 1024, atLeast(64), Importance.HIGH,
                    "Default segment.bytes.")
            .define(LOG_ROLL_HOURS, Type.INT, 168, atLeast(1), Importance.HIGH, "Default segment.ms, in hours.")
            .define(LOG_ROLL_MS, Type.LONG, null, Importance.HIGH, "Default segment.ms.")
            .define(LOG_RETENTION_HOURS, Type.INT, 168, Importance.HIGH, "Default retention.ms, in hours.")
            .define(LOG_RETENTION_MINUTES, Type.INT, null, Importance.HIGH, "Default retention.ms, in minutes.")
            .define(LOG_RETENTION_MS, Type.LONG, null, Importance.HIGH,
                    "Default retention.ms; -1 keeps data forever.")
            .define(LOG_RETENTION_BYTES, Type.LONG, -1L, Importance.HIGH, "Default retention.bytes.")
            .define(LOG_CLEANUP_POLICY, Type.LIST, "delete", ValidList.in("delete", "compact"), Importance.MEDIUM,
                    "Default cleanup.policy.")
            .define(LOG_INDEX_INTERVAL_BYTES, Type.INT, 4096, atLeast(0), Importance.MEDIUM,
                    "Default index.interval.bytes.")
            .define(LOG_INDEX_SIZE_MAX_BYTES, Type.INT, 10 * 1024 * 1024, atLeast(64), Importance.MEDIUM,
                    "Default segment.index.bytes.")
            .define(LOG_FLUSH_INTERVAL_MESSAGES, Type.LONG, Long.MAX_VALUE, atLeast(1), Importance.HIGH,
                    "Default flush.messages.")
            .define(LOG_FLUSH_INTERVAL_MS, Type.LONG, null, Importance.HIGH, "Default flush.ms.")
            .define(LOG_PREALLOCATE, Type.BOOLEAN, false, Importance.MEDIUM, "Default preallocate.")
            .define(LOG_MESSAGE_TIMESTAMP_TYPE, Type.STRING, "CreateTime",
                    ValidString.in("CreateTime", "LogAppendTime"), Importance.MEDIUM,
                    "Default message.timestamp.type.")
            .define(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, Type.LONG, Long.MAX_VALUE, atLeast(0), Importance.MEDIUM,
                    "Default message.timestamp.before.max.ms.")
            .define(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, Type.LONG, 3_600_000L, atLeast(0), Importance.MEDIUM,
                    "Default message.timestamp.after.max.ms.")
            .define(LOG_SEGMENT_DELETE_DELAY_MS, Type.LONG, 60_000L, atLeast(0), Importance.HIGH,
                    "Default file.delete.delay.ms.")
            .define(LOG_CLEANER_ENABLE, Type.BOOLEAN, true, Importance.MEDIUM, "Run the log cleaner.")
            .define(LOG_CLEANER_DELETE_RETENTION_MS, Type.LONG, 86_400_000L, atLeast(0), Importance.MEDIUM,
                    "Default delete.retention.ms.")
            .define(LOG_CLEANER_MIN_COMPACTION_LAG_MS, Type.LONG, 0L, atLeast(0), Importance.MEDIUM,
                    "Default min.compaction.lag.ms.")
            .define(LOG_CLEANER_MIN_CLEANABLE_RATIO, Type.DOUBLE, 0.5, between(0, 1), Importance.MEDIUM,
                    "Default min.cleanable.dirty.ratio.")
            .define(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND, Type.DOUBLE, Double.MAX_VALUE, Importance.MEDIUM,
                    "I/O rate limit of the log cleaner.")
            .define(LOG_CLEANER_BACKOFF_MS, Type.LONG, 15_000L, atLeast(0), Importance.MEDIUM,
                    "Pause of the cleaner when no log needs cleaning.")
            .define(LOG_CLEANER_DEDUPE_BUFFER_SIZE, Type.LONG, 128L * 1024 * 1024, atLeast(1024), Importance.MEDIUM,
                    "Memory for the cleaner's key map.")
            .define(LOG_CLEANER_IO_BUFFER_SIZE, Type.INT, 512 * 1024, atLeast(1024), Importance.MEDIUM,
                    "Read buffer of the cleaner.")
            .define(LOG_RETENTION_CHECK_INTERVAL_MS, Type.LONG, 300_000L, atLeast(1), Importance.MEDIUM,
                    "How often retention runs.")
            .define(LOG_FLUSH_SCHEDULER_INTERVAL_MS, Type.LONG, 1_000L, atLeast(1), Importance.HIGH,
                    "How often logs are checked for flush.ms.")
            .define(LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS, Type.LONG, 60_000L, atLeast(1), Importance.HIGH,
                    "How often recovery points and log start offsets are checkpointed.")
            .define(NUM_RECOVERY_THREADS_PER_DATA_DIR, Type.INT, 2, atLeast(1), Importance.HIGH,
                    "Threads per log directory that load and recover logs at start-up.")
            .define(PRODUCER_ID_EXPIRATION_MS, Type.LONG, 86_400_000L, atLeast(1), Importance.LOW,
                    "How long an idle idempotent producer's state is kept.")
            .define(OFFSETS_TOPIC_NUM_PARTITIONS, Type.INT, 50, atLeast(1), Importance.HIGH,
                    "Partitions of __consumer_offsets (fixed once the topic exists).")
            .define(OFFSETS_TOPIC_REPLICATION_FACTOR, Type.SHORT, (short) 3, atLeast(1), Importance.HIGH,
                    "Replication factor of __consumer_offsets; its creation fails until that many brokers are live.")
            .define(OFFSETS_TOPIC_SEGMENT_BYTES, Type.INT, 100 * 1024 * 1024, atLeast(1), Importance.HIGH,
                    "segment.bytes of __consumer_offsets.")
            .define(OFFSETS_LOAD_BUFFER_SIZE, Type.INT, 5 * 1024 * 1024, atLeast(1), Importance.HIGH,
                    "Bytes read at a time when loading groups from __consumer_offsets.")
            .define(OFFSETS_RETENTION_MINUTES, Type.INT, 7 * 24 * 60, atLeast(1), Importance.HIGH,
                    "How long the committed offsets of an empty group are kept after it became empty.")
            .define(OFFSETS_RETENTION_CHECK_INTERVAL_MS, Type.LONG, 600_000L, atLeast(1), Importance.HIGH,
                    "How often expired committed offsets are removed.")
            .define(OFFSETS_COMMIT_TIMEOUT_MS, Type.INT, 5_000, atLeast(1), Importance.HIGH,
                    "How long an offset commit waits for __consumer_offsets replicas before failing.")
            .define(OFFSET_METADATA_MAX_BYTES, Type.INT, 4096, Importance.HIGH,
                    "Largest metadata string an offset commit may carry.")
            .define(GROUP_MIN_SESSION_TIMEOUT_MS, Type.INT, 6_000, Importance.MEDIUM,
                    "Smallest session timeout a group member may ask for.")
            .define(GROUP_MAX_SESSION_TIMEOUT_MS, Type.INT, 1_800_000, Importance.MEDIUM,
                    "Largest session timeout a group member may ask for.")
            .define(GROUP_INITIAL_REBALANCE_DELAY_MS, Type.INT, 3_000, atLeast(0), Importance.MEDIUM,
                    "How long the first rebalance of an empty group waits for more members to join.")
            .define(GROUP_MAX_SIZE, Type.INT, Integer.MAX_VALUE, atLeast(1), Importance.MEDIUM,
                    "Most members one consumer group may have.")
            .define(GROUP_SHARE_RECORD_LOCK_DURATION_MS, Type.INT, 30_000, atLeast(1_000), Importance.MEDIUM,
                    "How long a record acquired by a share consumer stays locked to it.")
            .define(GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS, Type.INT, 15_000, atLeast(1_000), Importance.MEDIUM,
                    "Smallest share.record.lock.duration.ms a share group may set.")
            .define(GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS, Type.INT, 60_000, atLeast(1_000), Importance.MEDIUM,
                    "Largest share.record.lock.duration.ms a share group may set.")
            .define(GROUP_SHARE_DELIVERY_COUNT_LIMIT, Type.INT, 5, between(2, 10), Importance.MEDIUM,
                    "Deliveries of a record to share consumers before it is archived.")
            .define(GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS, Type.INT, 2_000, between(100, 10_000),
                    Importance.MEDIUM, "Records in flight (acquired or released) per share-partition.")
            .define(GROUP_SHARE_SESSION_TIMEOUT_MS, Type.INT, 45_000, atLeast(1), Importance.MEDIUM,
                    "Share group member session timeout.")
            .define(GROUP_SHARE_MIN_SESSION_TIMEOUT_MS, Type.INT, 45_000, atLeast(1), Importance.MEDIUM,
                    "Smallest share.session.timeout.ms a share group may set.")
            .define(GROUP_SHARE_MAX_SESSION_TIMEOUT_MS, Type.INT, 60_000, atLeast(1), Importance.MEDIUM,
                    "Largest share.session.timeout.ms a share group may set.")
            .define(GROUP_SHARE_HEARTBEAT_INTERVAL_MS, Type.INT, 5_000, atLeast(1), Importance.MEDIUM,
                    "Heartbeat interval given to share group members.")
            .define(GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS, Type.INT, 5_000, atLeast(1), Importance.MEDIUM,
                    "Smallest share.heartbeat.interval.ms a share group may set.")
            .define(GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS, Type.INT, 15_000, atLeast(1), Importance.MEDIUM,
                    "Largest share.heartbeat.interval.ms a share group may set.")
            .define(GROUP_SHARE_MAX_SIZE, Type.INT, 200, between(1, 1_000), Importance.MEDIUM,
                    "Most members one share group may have.")
            .define(GROUP_SHARE_MAX_SHARE_SESSIONS, Type.INT, 2_000, atLeast(1), Importance.MEDIUM,
                    "Share sessions a broker keeps (one per share consumer and broker).")
            .define(SHARE_COORDINATOR_STATE_TOPIC_NUM_PARTITIONS, Type.INT, 50, atLeast(1), Importance.HIGH,
                    "Partitions of __share_group_state (fixed once the topic exists).")
            .define(SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR, Type.SHORT, (short) 3, atLeast(1),
                    Importance.HIGH, "Replication factor of __share_group_state; its creation fails until that "
                            + "many brokers are live.")
            .define(SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR, Type.INT, 2, atLeast(1), Importance.HIGH,
                    "min.insync.replicas of __share_group_state.")
            .define(SHARE_COORDINATOR_STATE_TOPIC_SEGMENT_BYTES, Type.INT, 100 * 1024 * 1024, atLeast(1),
                    Importance.HIGH, "segment.bytes of __share_group_state.")
            .define(TRANSACTION_STATE_LOG_NUM_PARTITIONS, Type.INT, 50, atLeast(1), Importance.HIGH,
                    "Partitions of __transaction_state (fixed once the topic exists).")
            .define(TRANSACTION_STATE_LOG_REPLICATION_FACTOR, Type.SHORT, (short) 3, atLeast(1), Importance.HIGH,
                    "Replication factor of __transaction_state; its creation fails until that many brokers are live.")
            .define(TRANSACTION_STATE_LOG_MIN_ISR, Type.INT, 2, atLeast(1), Importance.HIGH,
                    "min.insync.replicas of __transaction_state.")
            .define(TRANSACTION_STATE_LOG_SEGMENT_BYTES, Type.INT, 100 * 1024 * 1024, atLeast(1), Importance.HIGH,
                    "segment.bytes of __transaction_state.")
            .define(TRANSACTION_MAX_TIMEOUT_MS, Type.INT, 900_000, atLeast(1), Importance.HIGH,
                    "Largest transaction.timeout.ms a producer may ask for.")
            .define(TRANSACTIONAL_ID_EXPIRATION_MS, Type.LONG, 604_800_000L, atLeast(1), Importance.HIGH,
                    "How long a transactional id with no transaction is kept before it is removed.")
            .define(TRANSACTION_ABORT_TIMED_OUT_CLEANUP_INTERVAL_MS, Type.LONG, 10_000L, atLeast(1),
                    Importance.LOW, "How often transactions past their timeout are aborted.")
            .define(TRANSACTION_REMOVE_EXPIRED_CLEANUP_INTERVAL_MS, Type.LONG, 3_600_000L, atLeast(1),
                    Importance.LOW, "How often expired transactional ids are removed.");

    /**
     * The properties that may change at runtime through IncrementalAlterConfigs on the broker resource: the defaults
     * of every topic setting, as in Kafka's cluster-wide dynamic configs.
     */
    public static final Set<String> DYNAMIC_PROPERTIES = Set.of(LOG_SEGMENT_BYTES, LOG_ROLL_HOURS, LOG_ROLL_MS,
            LOG_RETENTION_HOURS, LOG_RETENTION_MINUTES, LOG_RETENTION_MS, LOG_RETENTION_BYTES, LOG_CLEANUP_POLICY,
            LOG_INDEX_INTERVAL_BYTES, LOG_INDEX_SIZE_MAX_BYTES, LOG_FLUSH_INTERVAL_MESSAGES, LOG_FLUSH_INTERVAL_MS,
            LOG_PREALLOCATE, LOG_MESSAGE_TIMESTAMP_TYPE, LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
            LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, LOG_SEGMENT_DELETE_DELAY_MS, LOG_CLEANER_DELETE_RETENTION_MS,
            LOG_CLEANER_MIN_COMPACTION_LAG_MS, LOG_CLEANER_MIN_CLEANABLE_RATIO, MESSAGE_MAX_BYTES, MIN_INSYNC_REPLICAS,
            UNCLEAN_LEADER_ELECTION_ENABLE);

    private final Map<String, Object> values;
    private final Map<String, Object> originals;
    private final Set<String> explicitNames;

    public final int brokerId;
    public final List<Endpoint> listeners;
    public final List<Endpoint> advertisedListeners;
    public final List<Path> logDirs;
    public final String zookeeperConnect;
    public final int zookeeperSessionTimeoutMs;
    public final int zookeeperConnectionTimeoutMs;
    public final int numPartitions;
    public final short defaultReplicationFactor;
    public final int minInsyncReplicas;
    public final boolean autoCreateTopicsEnable;
    public final boolean deleteTopicEnable;
    public final boolean uncleanLeaderElectionEnable;
    public final long replicaLagTimeMaxMs;
    public final int numReplicaFetchers;
    public final int replicaFetchWaitMaxMs;
    public final int replicaFetchMinBytes;
    public final int replicaFetchMaxBytes;
    public final int replicaFetchResponseMaxBytes;
    public final int replicaFetchBackoffMs;
    public final int replicaSocketTimeoutMs;
    public final int replicaSocketReceiveBufferBytes;
    public final long replicaHighWatermarkCheckpointIntervalMs;
    public final boolean controlledShutdownEnable;
    public final int controlledShutdownMaxRetries;
    public final long controlledShutdownRetryBackoffMs;
    public final boolean autoLeaderRebalanceEnable;
    public final long leaderImbalanceCheckIntervalMs;
    public final int leaderImbalancePerBrokerPercentage;
    public final boolean brokerFailureDetectionEnable;
    public final int socketRequestMaxBytes;
    public final int socketSendBufferBytes;
    public final int socketReceiveBufferBytes;
    public final int numNetworkThreads;
    public final int numIoThreads;
    public final int queuedMaxRequests;
    /** {@code queued.max.request.bytes}; -1 for unbounded (Kafka's default, and what 0 or less means in Kafka). */
    public final long queuedMaxRequestBytes;
    public final int maxConnections;
    public final int maxConnectionsPerIp;
    /** {@code max.connections.per.ip.overrides}: count by host name or address as written, in the given order. */
    public final Map<String, Integer> maxConnectionsPerIpOverrides;
    /** {@code connections.max.idle.ms}; -1 for never (what any negative value means in Kafka). */
    public final long connectionsMaxIdleMs;
    public final String rack;
    /** {@code metrics.http.listener}: where the HTTP listener binds, if anywhere (an unresolved host:port). */
    public final Optional<InetSocketAddress> metricsHttpListener;
    /** Each listener's security protocol, TLS and SASL settings, and the inter-broker listener. */
    public final SecurityConfig security;
    /** TLS to ZooKeeper and the ACLs of the znodes the broker creates. */
    public final ZkClientSecurity zookeeperSecurity;
    /** {@code connections.max.reauth.ms}: the lifetime of a SASL session, 0 for the connection's. */
    public final long connectionsMaxReauthMs;
    /** {@code authorizer.class.name}, {@code super.users}, {@code allow.everyone.if.no.acl.found}. */
    public final AuthorizerConfig authorizer;
    public final GroupConfig groupConfig;
    public final TransactionConfig transactionConfig;
    public final ShareConfig shareConfig;
    public final ShareCoordinatorConfig shareCoordinatorConfig;
    /** {@code quota.window.num}, {@code quota.window.size.seconds}. */
    public final QuotaConfig quotaConfig;

    private final LogConfig defaultLogConfig;
    private final LogManager.Config logManagerConfig;

    /**
     * A listener address: {@code NAME://host:port}, where the name ({@code PLAINTEXT}, {@code SASL_SSL},
     * {@code INTERNAL}) maps to a security protocol in {@code listener.security.protocol.map}. An empty host means
     * every interface.
     */
    public record Endpoint(String listenerName, String host, int port) {
        static Endpoint parse(String property, String value) {
            int scheme = value.indexOf("://");
            int colon = value.lastIndexOf(':');
            if (scheme <= 0 || colon <= scheme + 2) {
                throw new ConfigException(property, value, "expected LISTENER_NAME://host:port");
            }
            String name = value.substring(0, scheme).trim();
            if (!name.matches("[A-Za-z0-9_]+")) {
                throw new ConfigException(property, value, "a listener name has letters, digits and '_' only");
            }
            String host = value.substring(scheme + 3, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                int port = Integer.parseInt(value.substring(colon + 1).trim());
                if (port < 0 || port > 65535) {
                    throw new ConfigException(property, value, "port must be 0..65535");
                }
                return new Endpoint(name, host, port);
            } catch (NumberFormatException e) {
                throw new ConfigException(property, value, "port is not a number");
            }
        }
    }

    private BrokerConfig(Map<String, Object> values, Map<String, ?> originals) {
        this.values = Collections.unmodifiableMap(values);
        this.originals = Collections.unmodifiableMap(new HashMap<>(originals));
        Set<String> explicitNames = originals.keySet();
        this.explicitNames = Set.copyOf(explicitNames);
        this.brokerId = (Integer) values.get(BROKER_ID);
        this.listeners = endpoints(LISTENERS, list(LISTENERS));
        List<String> advertised = list(ADVERTISED_LISTENERS);
        this.advertisedListeners = advertised == null ? listeners : endpoints(ADVERTISED_LISTENERS, advertised);
        this.security = SecurityConfig.parse(originals, listeners.stream().map(Endpoint::listenerName).toList(),
                advertisedListeners.stream().map(Endpoint::listenerName).toList());
        this.authorizer = AuthorizerConfig.parse(originals);
        List<String> dirs = list(LOG_DIRS);
        if (dirs == null || dirs.isEmpty()) {
            dirs = List.of((String) values.get(LOG_DIR));
        }
        List<Path> paths = new ArrayList<>();
        for (String dir : dirs) {
            paths.add(Path.of(dir.trim()).toAbsolutePath().normalize());
        }
        this.logDirs = List.copyOf(paths);
        this.zookeeperConnect = (String) values.get(ZOOKEEPER_CONNECT);
        this.zookeeperSessionTimeoutMs = (Integer) values.get(ZOOKEEPER_SESSION_TIMEOUT_MS);
        Integer connectionTimeout = (Integer) values.get(ZOOKEEPER_CONNECTION_TIMEOUT_MS);
        this.zookeeperConnectionTimeoutMs = connectionTimeout == null ? zookeeperSessionTimeoutMs : connectionTimeout;
        this.zookeeperSecurity = ZkClientSecurity.from(values);
        this.connectionsMaxReauthMs = (Long) values.get(CONNECTIONS_MAX_REAUTH_MS);
        this.numPartitions = (Integer) values.get(NUM_PARTITIONS);
        int replicationFactor = (Integer) values.get(DEFAULT_REPLICATION_FACTOR);
        if (replicationFactor > Short.MAX_VALUE) {
            throw new ConfigException(DEFAULT_REPLICATION_FACTOR, replicationFactor, "at most " + Short.MAX_VALUE);
        }
        this.defaultReplicationFactor = (short) replicationFactor;
        this.minInsyncReplicas = (Integer) values.get(MIN_INSYNC_REPLICAS);
        this.autoCreateTopicsEnable = (Boolean) values.get(AUTO_CREATE_TOPICS_ENABLE);
        this.deleteTopicEnable = (Boolean) values.get(DELETE_TOPIC_ENABLE);
        this.uncleanLeaderElectionEnable = (Boolean) values.get(UNCLEAN_LEADER_ELECTION_ENABLE);
        this.replicaLagTimeMaxMs = (Long) values.get(REPLICA_LAG_TIME_MAX_MS);
        this.numReplicaFetchers = (Integer) values.get(NUM_REPLICA_FETCHERS);
        this.replicaFetchWaitMaxMs = (Integer) values.get(REPLICA_FETCH_WAIT_MAX_MS);
        this.replicaFetchMinBytes = (Integer) values.get(REPLICA_FETCH_MIN_BYTES);
        this.replicaFetchMaxBytes = (Integer) values.get(REPLICA_FETCH_MAX_BYTES);
        this.replicaFetchResponseMaxBytes = (Integer) values.get(REPLICA_FETCH_RESPONSE_MAX_BYTES);
        this.replicaFetchBackoffMs = (Integer) values.get(REPLICA_FETCH_BACKOFF_MS);
        this.replicaSocketTimeoutMs = (Integer) values.get(REPLICA_SOCKET_TIMEOUT_MS);
        this.replicaSocketReceiveBufferBytes = (Integer) values.get(REPLICA_SOCKET_RECEIVE_BUFFER_BYTES);
        this.replicaHighWatermarkCheckpointIntervalMs = (Long) values.get(REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS);
        this.controlledShutdownEnable = (Boolean) values.get(CONTROLLED_SHUTDOWN_ENABLE);
        this.controlledShutdownMaxRetries = (Integer) values.get(CONTROLLED_SHUTDOWN_MAX_RETRIES);
        this.controlledShutdownRetryBackoffMs = (Long) values.get(CONTROLLED_SHUTDOWN_RETRY_BACKOFF_MS);
        this.autoLeaderRebalanceEnable = (Boolean) values.get(AUTO_LEADER_REBALANCE_ENABLE);
        this.leaderImbalanceCheckIntervalMs = (Long) values.get(LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS) * 1_000L;
        this.leaderImbalancePerBrokerPercentage = (Integer) values.get(LEADER_IMBALANCE_PER_BROKER_PERCENTAGE);
        this.brokerFailureDetectionEnable = (Boolean) values.get(BROKER_FAILURE_DETECTION_ENABLE);
        this.socketRequestMaxBytes = (Integer) values.get(SOCKET_REQUEST_MAX_BYTES);
        this.socketSendBufferBytes = (Integer) values.get(SOCKET_SEND_BUFFER_BYTES);
        this.socketReceiveBufferBytes = (Integer) values.get(SOCKET_RECEIVE_BUFFER_BYTES);
        this.numNetworkThreads = (Integer) values.get(NUM_NETWORK_THREADS);
        this.numIoThreads = (Integer) values.get(NUM_IO_THREADS);
        this.queuedMaxRequests = (Integer) values.get(QUEUED_MAX_REQUESTS);
        long queuedBytes = (Long) values.get(QUEUED_MAX_REQUEST_BYTES);
        this.queuedMaxRequestBytes = queuedBytes > 0 ? queuedBytes : -1L;
        this.maxConnections = (Integer) values.get(MAX_CONNECTIONS);
        this.maxConnectionsPerIp = (Integer) values.get(MAX_CONNECTIONS_PER_IP);
        this.maxConnectionsPerIpOverrides = connectionOverrides((String) values.get(MAX_CONNECTIONS_PER_IP_OVERRIDES));
        if (maxConnectionsPerIp == 0 && maxConnectionsPerIpOverrides.isEmpty()) {
            // As Kafka: a per-IP limit of 0 with no exceptions would refuse every client.
            throw new ConfigException(MAX_CONNECTIONS_PER_IP, 0,
                    "may be 0 only if " + MAX_CONNECTIONS_PER_IP_OVERRIDES + " lets some hosts connect");
        }
        long idleMs = (Long) values.get(CONNECTIONS_MAX_IDLE_MS);
        if (idleMs == 0) {
            // Kafka takes 0 and closes every connection at its first check; nothing would be served.
            throw new ConfigException(CONNECTIONS_MAX_IDLE_MS, 0, "at least 1, or -1 for never");
        }
        this.connectionsMaxIdleMs = idleMs > 0 ? idleMs : -1L;
        this.rack = (String) values.get(BROKER_RACK);
        this.metricsHttpListener = httpListener((String) values.get(METRICS_HTTP_LISTENER));
        this.groupConfig = new GroupConfig((Integer) values.get(OFFSETS_TOPIC_NUM_PARTITIONS),
                (Short) values.get(OFFSETS_TOPIC_REPLICATION_FACTOR), (Integer) values.get(OFFSETS_TOPIC_SEGMENT_BYTES),
                (Integer) values.get(OFFSETS_LOAD_BUFFER_SIZE),
                (Integer) values.get(OFFSETS_RETENTION_MINUTES) * 60_000L,
                (Long) values.get(OFFSETS_RETENTION_CHECK_INTERVAL_MS), (Integer) values.get(OFFSETS_COMMIT_TIMEOUT_MS),
                (Integer) values.get(OFFSET_METADATA_MAX_BYTES), (Integer) values.get(GROUP_MIN_SESSION_TIMEOUT_MS),
                (Integer) values.get(GROUP_MAX_SESSION_TIMEOUT_MS),
                (Integer) values.get(GROUP_INITIAL_REBALANCE_DELAY_MS), (Integer) values.get(GROUP_MAX_SIZE));
        this.quotaConfig = new QuotaConfig((Integer) values.get(QUOTA_WINDOW_NUM),
                (Integer) values.get(QUOTA_WINDOW_SIZE_SECONDS));
        this.shareConfig = new ShareConfig((Integer) values.get(GROUP_SHARE_RECORD_LOCK_DURATION_MS),
                (Integer) values.get(GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS),
                (Integer) values.get(GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS),
                (Integer) values.get(GROUP_SHARE_DELIVERY_COUNT_LIMIT),
                (Integer) values.get(GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS),
                (Integer) values.get(GROUP_SHARE_SESSION_TIMEOUT_MS),
                (Integer) values.get(GROUP_SHARE_MIN_SESSION_TIMEOUT_MS),
                (Integer) values.get(GROUP_SHARE_MAX_SESSION_TIMEOUT_MS),
                (Integer) values.get(GROUP_SHARE_HEARTBEAT_INTERVAL_MS),
                (Integer) values.get(GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS),
                (Integer) values.get(GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS), (Integer) values.get(GROUP_SHARE_MAX_SIZE),
                (Integer) values.get(GROUP_SHARE_MAX_SHARE_SESSIONS));
        this.shareCoordinatorConfig = new ShareCoordinatorConfig(
                (Integer) values.get(SHARE_COORDINATOR_STATE_TOPIC_NUM_PARTITIONS),
                (Short) values.get(SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR),
                (Integer) values.get(SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR),
                (Integer) values.get(SHARE_COORDINATOR_STATE_TOPIC_SEGMENT_BYTES));
        this.transactionConfig = new TransactionConfig((Integer) values.get(TRANSACTION_STATE_LOG_NUM_PARTITIONS),
                (Short) values.get(TRANSACTION_STATE_LOG_REPLICATION_FACTOR),
                (Integer) values.get(TRANSACTION_STATE_LOG_MIN_ISR),
                (Integer) values.get(TRANSACTION_STATE_LOG_SEGMENT_BYTES),
                (Integer) values.get(TRANSACTION_MAX_TIMEOUT_MS), (Long) values.get(TRANSACTIONAL_ID_EXPIRATION_MS),
                (Long) values.get(TRANSACTION_ABORT_TIMED_OUT_CLEANUP_INTERVAL_MS),
                (Long) values.get(TRANSACTION_REMOVE_EXPIRED_CLEANUP_INTERVAL_MS));
        this.defaultLogConfig = LogConfig.parse(topicDefaults());
        this.logManagerConfig = new LogManager.Config(logDirs, defaultLogConfig,
                (Long) values.get(LOG_RETENTION_CHECK_INTERVAL_MS),
                (Long) values.get(LOG_FLUSH_SCHEDULER_INTERVAL_MS),
                (Long) values.get(LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS),
                (Integer) values.get(NUM_RECOVERY_THREADS_PER_DATA_DIR),
                (Long) values.get(PRODUCER_ID_EXPIRATION_MS),
                new LogCleaner.Config((Boolean) values.get(LOG_CLEANER_ENABLE),
                        (Double) values.get(LOG_CLEANER_IO_MAX_BYTES_PER_SECOND),
                        (Long) values.get(LOG_CLEANER_BACKOFF_MS),
                        (Long) values.get(LOG_CLEANER_DEDUPE_BUFFER_SIZE),
                        (Integer) values.get(LOG_CLEANER_IO_BUFFER_SIZE)));
    }

    /** The broker-wide defaults of every topic-level setting, from the {@code log.*} and related properties. */
    private Map<String, Object> topicDefaults() {
        Map<String, Object> topic = new HashMap<>();
        topic.put(LogConfig.SEGMENT_BYTES, values.get(LOG_SEGMENT_BYTES));
        Long rollMs = (Long) values.get(LOG_ROLL_MS);
        topic.put(LogConfig.SEGMENT_MS, rollMs != null ? rollMs : (Integer) values.get(LOG_ROLL_HOURS) * 3_600_000L);
        topic.put(LogConfig.RETENTION_MS, retentionMs());
        topic.put(LogConfig.RETENTION_BYTES, values.get(LOG_RETENTION_BYTES));
        topic.put(LogConfig.CLEANUP_POLICY, values.get(LOG_CLEANUP_POLICY));
        topic.put(LogConfig.INDEX_INTERVAL_BYTES, values.get(LOG_INDEX_INTERVAL_BYTES));
        topic.put(LogConfig.SEGMENT_INDEX_BYTES, values.get(LOG_INDEX_SIZE_MAX_BYTES));
        topic.put(LogConfig.FLUSH_MESSAGES, values.get(LOG_FLUSH_INTERVAL_MESSAGES));
        Long flushMs = (Long) values.get(LOG_FLUSH_INTERVAL_MS);
        topic.put(LogConfig.FLUSH_MS, flushMs != null ? flushMs : Long.MAX_VALUE);
        topic.put(LogConfig.PREALLOCATE, values.get(LOG_PREALLOCATE));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_TYPE, values.get(LOG_MESSAGE_TIMESTAMP_TYPE));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, values.get(LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS));
        topic.put(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, values.get(LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS));
        topic.put(LogConfig.FILE_DELETE_DELAY_MS, values.get(LOG_SEGMENT_DELETE_DELAY_MS));
        topic.put(LogConfig.DELETE_RETENTION_MS, values.get(LOG_CLEANER_DELETE_RETENTION_MS));
        topic.put(LogConfig.MIN_COMPACTION_LAG_MS, values.get(LOG_CLEANER_MIN_COMPACTION_LAG_MS));
        topic.put(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, values.get(LOG_CLEANER_MIN_CLEANABLE_RATIO));
        topic.put(LogConfig.MAX_MESSAGE_BYTES, values.get(MESSAGE_MAX_BYTES));
        topic.put(LogConfig.MIN_INSYNC_REPLICAS, values.get(MIN_INSYNC_REPLICAS));
        topic.put(LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE, values.get(UNCLEAN_LEADER_ELECTION_ENABLE));
        return topic;
    }

    private long retentionMs() {
        Long ms = (Long) values.get(LOG_RETENTION_MS);
        if (ms != null) {
            return ms < 0 ? -1L : ms;
        }
        Integer minutes = (Integer) values.get(LOG_RETENTION_MINUTES);
        if (minutes != null) {
            return minutes < 0 ? -1L : minutes * 60_000L;
        }
        int hours = (Integer) values.get(LOG_RETENTION_HOURS);
        return hours < 0 ? -1L : hours * 3_600_000L;
    }

    @SuppressWarnings("unchecked")
    private List<String> list(String name) {
        return (List<String>) values.get(name);
    }

    /** Parses {@code host:count,host:count}; the count follows the last colon, so IPv6 addresses work unbracketed. */
    private static Map<String, Integer> connectionOverrides(String value) {
        Map<String, Integer> overrides = new LinkedHashMap<>();
        for (String entry : value.split(",")) {
            String override = entry.trim();
            if (override.isEmpty()) {
                continue;
            }
            int colon = override.lastIndexOf(':');
            String host = colon < 0 ? "" : override.substring(0, colon).trim();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            if (host.isEmpty()) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES, value,
                        "expected host:count, comma-separated; '" + override + "' names no host");
            }
            int count;
            try {
                count = Integer.parseInt(override.substring(colon + 1).trim());
            } catch (NumberFormatException e) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES, value,
                        "expected host:count, comma-separated; the count of '" + override + "' is not a number");
            }
            if (count < 0) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES, value,
                        "the count of '" + override + "' is negative");
            }
            if (overrides.put(host, count) != null) {
                throw new ConfigException(MAX_CONNECTIONS_PER_IP_OVERRIDES, value, host + " is given twice");
            }
        }
        return Collections.unmodifiableMap(overrides);
    }

    private static List<Endpoint> endpoints(String property, List<String> values) {
        List<Endpoint> result = new ArrayList<>();
        for (String value : values) {
            result.add(Endpoint.parse(property, value.trim()));
        }
        if (result.isEmpty()) {
            throw new ConfigException(property, values, "at least one listener is required");
        }
        return List.copyOf(result);
    }

    /** {@code host:port} ({@code [v6]:port}, {@code :port} for every interface); empty when unset or blank. */
    private static Optional<InetSocketAddress> httpListener(String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String trimmed = value.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon < 0) {
            throw new ConfigException(METRICS_HTTP_LISTENER, value, "expected host:port");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(trimmed.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException(METRICS_HTTP_LISTENER, value, "port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new ConfigException(METRICS_HTTP_LISTENER, value, "port must be 0..65535");
        }
        return Optional.of(host.isEmpty() || host.equals("0.0.0.0") ? new InetSocketAddress(port)
                : InetSocketAddress.createUnresolved(host, port));
    }

    /**
     * Parses broker properties; unset ones take Kafka's defaults.
     *
     * @throws ConfigException naming the property for an unknown name or a bad value
     */
    public static BrokerConfig parse(Map<String, ?> properties) {
        for (String name : properties.keySet()) {
            if (!DEFINITION.names().contains(name) && !SecurityConfig.isSecurityProperty(name)
                    && !AuthorizerConfig.names().contains(name)) {
                throw new ConfigException(name, properties.get(name),
                        "unknown or unsupported broker property; supported: " + new TreeSet<>(DEFINITION.names()));
            }
        }
        return new BrokerConfig(DEFINITION.parse(properties), properties);
    }

    /** The names of every supported broker property. */
    public static Set<String> names() {
        return DEFINITION.names();
    }

    /**
     * This configuration with dynamic overrides (from {@code /config/brokers}) on top of the static properties.
     *
     * @throws ConfigException naming the property if an override is not dynamic or its value is invalid
     */
    public BrokerConfig withDynamic(Map<String, String> dynamic) {
        if (dynamic.isEmpty()) {
            return this;
        }
        for (String name : dynamic.keySet()) {
            if (!DYNAMIC_PROPERTIES.contains(name)) {
                throw new ConfigException(name, dynamic.get(name), "cannot be changed at runtime; dynamic: "
                        + new TreeSet<>(DYNAMIC_PROPERTIES));
            }
        }
        Map<String, Object> merged = new HashMap<>(originals);
        merged.putAll(dynamic);
        return parse(merged);
    }

    /** Whether a property was given (in server.properties or an override) rather than left at its default. */
    public boolean isExplicit(String name) {
        return explicitNames.contains(name);
    }

    /** The type of a property, for DescribeConfigs. */
    public static ConfigDef.Type type(String name) {
        return DEFINITION.configKeys().get(name).type;
    }

    /** The documentation of a property, for DescribeConfigs. */
    public static String documentation(String name) {
        return DEFINITION.configKeys().get(name).documentation;
    }

    /** The value of a property as Kafka's tools show it: lists comma-separated. */
    public String stringValue(String name) {
        return LogConfig.displayValue(values.get(name));
    }

    /** The typed value of one property, by its Kafka name (DescribeConfigs). */
    public Object value(String name) {
        return values.get(name);
    }

    /** The defaults of every topic-level setting, derived from the {@code log.*} properties. */
    public LogConfig defaultLogConfig() {
        return defaultLogConfig;
    }

    public LogManager.Config logManagerConfig() {
        return logManagerConfig;
    }

    /** The settings replication runs on ({@code replica.*}, {@code num.replica.fetchers}). */
    public ReplicationConfig replicationConfig() {
        return new ReplicationConfig(replicaLagTimeMaxMs, numReplicaFetchers, replicaFetchWaitMaxMs,
                replicaFetchMinBytes, replicaFetchMaxBytes, replicaFetchResponseMaxBytes, replicaFetchBackoffMs,
                replicaSocketTimeoutMs, replicaSocketReceiveBufferBytes, replicaHighWatermarkCheckpointIntervalMs,
                security.interBroker());
    }

    @Override
    public String toString() {
        return "BrokerConfig" + values;
    }
}
