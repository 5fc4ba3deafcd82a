package io.tributary.broker.cluster;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.tributary.broker.share.ShareAutoOffsetReset;
import io.tributary.broker.share.ShareConfig;
import io.tributary.broker.share.ShareGroupSettings;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The group configuration (KIP-848, KIP-932; {@code ConfigResource.Type.GROUP}) with Kafka's names, defaults and
 * validation: what a group may set, what it gets when it sets nothing (the broker's {@code group.share.*} values,
 * Kafka's {@code group.consumer.*} defaults), and the effective settings a stored configuration means.
 * <pre>
 * key                                bounds                                     default
 * share.auto.offset.reset            latest | earliest | by_duration:&lt;ISO-8601&gt;  latest
 * share.record.lock.duration.ms      group.share.min/max.record.lock.duration.ms  group.share.record.lock.duration.ms
 * share.session.timeout.ms           group.share.min/max.session.timeout.ms     group.share.session.timeout.ms
 * share.heartbeat.interval.ms        group.share.min/max.heartbeat.interval.ms  group.share.heartbeat.interval.ms
 * share.isolation.level              read_committed | read_uncommitted          read_uncommitted
 * share.delivery.count.limit         2..10                                      group.share.delivery.count.limit
 * share.partition.max.record.locks   100..10000                       group.share.partition.max.record.locks
 * consumer.session.timeout.ms        45000..60000                               45000
 * consumer.heartbeat.interval.ms     5000..15000                                5000
 * </pre>
 * Each session timeout must exceed its heartbeat interval. The {@code consumer.*} keys are stored and described for
 * tools that set them; this broker runs no KIP-848 consumer groups, so nothing reads them, and its bounds are Kafka's
 * defaults of the {@code group.consumer.*} settings it does not have.
 *
 * <p>Decides only: no I/O. Immutable; any thread.
 */
public final class GroupConfigDef {

    public static final String SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset";
    public static final String SHARE_RECORD_LOCK_DURATION_MS = "share.record.lock.duration.ms";
    public static final String SHARE_SESSION_TIMEOUT_MS = "share.session.timeout.ms";
    public static final String SHARE_HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";
    public static final String SHARE_ISOLATION_LEVEL = "share.isolation.level";
    public static final String SHARE_DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
    public static final String SHARE_PARTITION_MAX_RECORD_LOCKS = "share.partition.max.record.locks";
    public static final String CONSUMER_SESSION_TIMEOUT_MS = "consumer.session.timeout.ms";
    public static final String CONSUMER_HEARTBEAT_INTERVAL_MS = "consumer.heartbeat.interval.ms";

    /** Kafka 4.4's defaults of {@code group.consumer.session.timeout.ms} and its min and max. */
    private static final int CONSUMER_SESSION_TIMEOUT_DEFAULT = 45_000;
    private static final int CONSUMER_SESSION_TIMEOUT_MIN = 45_000;
    private static final int CONSUMER_SESSION_TIMEOUT_MAX = 60_000;
    /** Kafka 4.4's defaults of {@code group.consumer.heartbeat.interval.ms} and its min and max. */
    private static final int CONSUMER_HEARTBEAT_INTERVAL_DEFAULT = 5_000;
    private static final int CONSUMER_HEARTBEAT_INTERVAL_MIN = 5_000;
    private static final int CONSUMER_HEARTBEAT_INTERVAL_MAX = 15_000;

    private static final String READ_COMMITTED = "read_committed";
    private static final String READ_UNCOMMITTED = "read_uncommitted";

    /**
     * A group's effective settings.
     *
     * @param share                      what its share-partitions follow
     * @param shareSessionTimeoutMs      when the coordinator expires a silent share group member
     * @param shareHeartbeatIntervalMs   how often share group members heartbeat
     * @param consumerSessionTimeoutMs   stored for KIP-848 consumer groups, which this broker does not run
     * @param consumerHeartbeatIntervalMs as above
     */
    public record Effective(ShareGroupSettings share, int shareSessionTimeoutMs, int shareHeartbeatIntervalMs,
                            int consumerSessionTimeoutMs, int consumerHeartbeatIntervalMs) {
    }

    private final ConfigDef def;
    private final Effective defaults;

    public GroupConfigDef(ShareConfig shareConfig) {
        this.def = new ConfigDef()
                .define(SHARE_AUTO_OFFSET_RESET, Type.STRING, "latest", (name, value) -> {
                    try {
                        ShareAutoOffsetReset.parse((String) value);
                    } catch (IllegalArgumentException e) {
                        throw new ConfigException(name, value, e.getMessage());
                    }
                }, Importance.MEDIUM, "Where a share-partition without state starts: latest, earliest or "
                        + "by_duration:<ISO-8601 duration>.")
                .define(SHARE_RECORD_LOCK_DURATION_MS, Type.INT, shareConfig.recordLockDurationMs(),
                        Range.between(shareConfig.minRecordLockDurationMs(), shareConfig.maxRecordLockDurationMs()),
                        Importance.MEDIUM, "How long a record acquired by a share consumer stays locked to it.")
                .define(SHARE_SESSION_TIMEOUT_MS, Type.INT, shareConfig.sessionTimeoutMs(),
                        Range.between(shareConfig.minSessionTimeoutMs(), shareConfig.maxSessionTimeoutMs()),
                        Importance.MEDIUM, "How long a share group member may stay silent before it is removed.")
                .define(SHARE_HEARTBEAT_INTERVAL_MS, Type.INT, shareConfig.heartbeatIntervalMs(),
                        Range.between(shareConfig.minHeartbeatIntervalMs(), shareConfig.maxHeartbeatIntervalMs()),
                        Importance.MEDIUM, "How often share group members heartbeat to the coordinator.")
                .define(SHARE_ISOLATION_LEVEL, Type.STRING, READ_UNCOMMITTED,
                        ValidString.in(READ_COMMITTED, READ_UNCOMMITTED), Importance.MEDIUM,
                        "read_committed: share consumers get records up to the last stable offset only.")
                .define(SHARE_DELIVERY_COUNT_LIMIT, Type.INT, shareConfig.deliveryCountLimit(), Range.between(2, 10),
                        Importance.MEDIUM, "Deliveries of a record to share consumers before it is archived.")
                .define(SHARE_PARTITION_MAX_RECORD_LOCKS, Type.INT, shareConfig.partitionMaxRecordLocks(),
                        Range.between(100, 10_000), Importance.MEDIUM,
                        "Records in flight (acquired or released) per share-partition.")
                .define(CONSUMER_SESSION_TIMEOUT_MS, Type.INT, CONSUMER_SESSION_TIMEOUT_DEFAULT,
                        Range.between(CONSUMER_SESSION_TIMEOUT_MIN, CONSUMER_SESSION_TIMEOUT_MAX), Importance.MEDIUM,
                        "Session timeout of KIP-848 consumer group members (stored; no such groups run here).")
                .define(CONSUMER_HEARTBEAT_INTERVAL_MS, Type.INT, CONSUMER_HEARTBEAT_INTERVAL_DEFAULT,
                        Range.between(CONSUMER_HEARTBEAT_INTERVAL_MIN, CONSUMER_HEARTBEAT_INTERVAL_MAX),
                        Importance.MEDIUM,
                        "Heartbeat interval of KIP-848 consumer group members (stored; no such groups run here).");
        this.defaults = parse(Map.of());
    }

    /** Every key a group may set, sorted. */
    public Set<String> names() {
        return new TreeSet<>(def.names());
    }

    public boolean isKnown(String name) {
        return def.configKeys().containsKey(name);
    }

    public Type type(String name) {
        return def.configKeys().get(name).type;
    }

    public String documentation(String name) {
        return def.configKeys().get(name).documentation;
    }

    /** What a group that does not set {@code name} gets, as DescribeConfigs shows it. */
    public String defaultValue(String name) {
        return String.valueOf(def.configKeys().get(name).defaultValue);
    }

    /** The settings of a group without configuration of its own. */
    public Effective defaults() {
        return defaults;
    }

    /**
     * The effective settings of a group's stored configuration.
     *
     * @throws InvalidConfigurationException naming the key, for an unknown key or a value out of its bounds
     */
    public Effective parse(Map<String, String> stored) {
        for (String name : stored.keySet()) {
            if (!isKnown(name)) {
                throw new InvalidConfigurationException("Unknown group config name: " + name);
            }
        }
        Map<String, Object> values;
        try {
            values = def.parse(stored);
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
        int shareSession = (Integer) values.get(SHARE_SESSION_TIMEOUT_MS);
        int shareHeartbeat = (Integer) values.get(SHARE_HEARTBEAT_INTERVAL_MS);
        int consumerSession = (Integer) values.get(CONSUMER_SESSION_TIMEOUT_MS);
        int consumerHeartbeat = (Integer) values.get(CONSUMER_HEARTBEAT_INTERVAL_MS);
        if (shareSession <= shareHeartbeat) {
            throw new InvalidConfigurationException(SHARE_SESSION_TIMEOUT_MS + " (" + shareSession
                    + ") must be greater than " + SHARE_HEARTBEAT_INTERVAL_MS + " (" + shareHeartbeat + ")");
        }
        if (consumerSession <= consumerHeartbeat) {
            throw new InvalidConfigurationException(CONSUMER_SESSION_TIMEOUT_MS + " (" + consumerSession
                    + ") must be greater than " + CONSUMER_HEARTBEAT_INTERVAL_MS + " (" + consumerHeartbeat + ")");
        }
        IsolationLevel isolation = READ_COMMITTED.equals(values.get(SHARE_ISOLATION_LEVEL))
                ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED;
        ShareGroupSettings share = new ShareGroupSettings(
                ShareAutoOffsetReset.parse((String) values.get(SHARE_AUTO_OFFSET_RESET)),
                (Integer) values.get(SHARE_RECORD_LOCK_DURATION_MS), isolation,
                (Integer) values.get(SHARE_DELIVERY_COUNT_LIMIT),
                (Integer) values.get(SHARE_PARTITION_MAX_RECORD_LOCKS));
        return new Effective(share, shareSession, shareHeartbeat, consumerSession, consumerHeartbeat);
    }
}
