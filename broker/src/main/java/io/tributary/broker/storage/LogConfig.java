package io.tributary.broker.storage;

import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidList;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.record.TimestampType;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

/**
 * The settings of one partition log, under Kafka's topic-level property names and with Kafka's defaults.
 *
 * <p>Parsed and validated once by {@link #parse(Map)} (or layered on top of broker defaults by
 * {@link #withOverrides(Map)}); the storage code reads only the typed fields. Kafka's {@link ConfigDef} does the
 * parsing so that a bad value gets the same message a Kafka user is used to, naming the property and the accepted
 * values. Instances are immutable and may be shared between threads; a log picks up a new instance through
 * {@link PartitionLog#updateConfig(LogConfig)}.
 */
public final class LogConfig {

    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String PREALLOCATE = "preallocate";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";

    /** Smallest segment that can hold a record batch header; Kafka refuses less than 1 MiB, tests need small ones. */
    private static final int MIN_SEGMENT_BYTES = 64;

    private static final ConfigDef DEFINITION = new ConfigDef()
            .define(SEGMENT_BYTES, Type.INT, 1024 * 1024 * 1024, atLeast(MIN_SEGMENT_BYTES), Importance.MEDIUM,
                    "Size at which the active segment is rolled.")
            .define(SEGMENT_MS, Type.LONG, 7 * 24 * 3600 * 1000L, atLeast(1), Importance.MEDIUM,
                    "Age of the active segment's first append after which it is rolled.")
            .define(SEGMENT_INDEX_BYTES, Type.INT, 10 * 1024 * 1024, atLeast(64), Importance.MEDIUM,
                    "Maximum size of the offset and time index files of a segment.")
            .define(INDEX_INTERVAL_BYTES, Type.INT, 4096, atLeast(0), Importance.MEDIUM,
                    "Bytes of log between two offset index entries.")
            .define(MAX_MESSAGE_BYTES, Type.INT, 1024 * 1024 + 12, atLeast(0), Importance.MEDIUM,
                    "Largest record batch the log accepts.")
            .define(MESSAGE_TIMESTAMP_TYPE, Type.STRING, "CreateTime",
                    ValidString.in("CreateTime", "LogAppendTime"), Importance.MEDIUM,
                    "Whether a record keeps the producer's timestamp or gets the broker's append time.")
            .define(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, Type.LONG, Long.MAX_VALUE, atLeast(0), Importance.MEDIUM,
                    "How far in the past a CreateTime timestamp may lie.")
            .define(MESSAGE_TIMESTAMP_AFTER_MAX_MS, Type.LONG, 3600 * 1000L, atLeast(0), Importance.MEDIUM,
                    "How far in the future a CreateTime timestamp may lie.")
            .define(RETENTION_MS, Type.LONG, 7 * 24 * 3600 * 1000L, atLeast(-1), Importance.MEDIUM,
                    "Age after which a closed segment is deleted; -1 keeps data forever.")
            .define(RETENTION_BYTES, Type.LONG, -1L, atLeast(-1), Importance.MEDIUM,
                    "Size beyond which the oldest closed segments are deleted; -1 for no limit.")
            .define(CLEANUP_POLICY, Type.LIST, "delete", ValidList.in("delete", "compact"), Importance.MEDIUM,
                    "delete, compact, or both.")
            .define(DELETE_RETENTION_MS, Type.LONG, 24 * 3600 * 1000L, atLeast(0), Importance.MEDIUM,
                    "How long a tombstone stays in a compacted log after the cleaner first passed it.")
            .define(MIN_COMPACTION_LAG_MS, Type.LONG, 0L, atLeast(0), Importance.MEDIUM,
                    "Minimum age of a record before compaction may remove it.")
            .define(MIN_CLEANABLE_DIRTY_RATIO, Type.DOUBLE, 0.5, between(0, 1), Importance.MEDIUM,
                    "Share of uncleaned bytes that makes a log worth compacting.")
            .define(FLUSH_MESSAGES, Type.LONG, Long.MAX_VALUE, atLeast(1), Importance.MEDIUM,
                    "Appended records after which the log is fsynced; default leaves it to the OS.")
            .define(FLUSH_MS, Type.LONG, Long.MAX_VALUE, atLeast(0), Importance.MEDIUM,
                    "Time after which unflushed data is fsynced; default leaves it to the OS.")
            .define(PREALLOCATE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Preallocate segment files at segment.bytes when they are created.")
            .define(FILE_DELETE_DELAY_MS, Type.LONG, 60_000L, atLeast(0), Importance.MEDIUM,
                    "How long a deleted segment stays on disk (renamed .deleted) so that in-flight reads finish.")
            .define(MIN_INSYNC_REPLICAS, Type.INT, 1, atLeast(1), Importance.MEDIUM,
                    "In-sync replicas an acks=all produce needs; fewer is refused with NOT_ENOUGH_REPLICAS.")
            .define(UNCLEAN_LEADER_ELECTION_ENABLE, Type.BOOLEAN, false, Importance.MEDIUM,
                    "Elect a leader outside the ISR when no ISR member is alive, at the risk of losing data.");

    private final Map<String, Object> values;

    public final int segmentBytes;
    public final long segmentMs;
    public final int segmentIndexBytes;
    public final int indexIntervalBytes;
    public final int maxMessageBytes;
    public final TimestampType timestampType;
    public final long timestampBeforeMaxMs;
    public final long timestampAfterMaxMs;
    public final long retentionMs;
    public final long retentionBytes;
    public final Set<CleanupPolicy> cleanupPolicy;
    public final long deleteRetentionMs;
    public final long minCompactionLagMs;
    public final double minCleanableDirtyRatio;
    public final long flushMessages;
    public final long flushMs;
    public final boolean preallocate;
    public final long fileDeleteDelayMs;
    public final int minInsyncReplicas;
    public final boolean uncleanLeaderElectionEnable;

    private LogConfig(Map<String, Object> values) {
        this.values = Collections.unmodifiableMap(values);
        this.segmentBytes = (Integer) values.get(SEGMENT_BYTES);
        this.segmentMs = (Long) values.get(SEGMENT_MS);
        this.segmentIndexBytes = (Integer) values.get(SEGMENT_INDEX_BYTES);
        this.indexIntervalBytes = (Integer) values.get(INDEX_INTERVAL_BYTES);
        this.maxMessageBytes = (Integer) values.get(MAX_MESSAGE_BYTES);
        this.timestampType = "LogAppendTime".equals(values.get(MESSAGE_TIMESTAMP_TYPE))
                ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
        this.timestampBeforeMaxMs = (Long) values.get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
        this.timestampAfterMaxMs = (Long) values.get(MESSAGE_TIMESTAMP_AFTER_MAX_MS);
        this.retentionMs = (Long) values.get(RETENTION_MS);
        this.retentionBytes = (Long) values.get(RETENTION_BYTES);
        EnumSet<CleanupPolicy> policies = EnumSet.noneOf(CleanupPolicy.class);
        @SuppressWarnings("unchecked")
        List<String> policyNames = (List<String>) values.get(CLEANUP_POLICY);
        for (String name : policyNames) {
            policies.add(CleanupPolicy.fromConfigValue(name.trim()));
        }
        if (policies.isEmpty()) {
            throw new ConfigException(CLEANUP_POLICY, policyNames, "must name delete, compact, or both");
        }
        this.cleanupPolicy = Collections.unmodifiableSet(policies);
        this.deleteRetentionMs = (Long) values.get(DELETE_RETENTION_MS);
        this.minCompactionLagMs = (Long) values.get(MIN_COMPACTION_LAG_MS);
        this.minCleanableDirtyRatio = (Double) values.get(MIN_CLEANABLE_DIRTY_RATIO);
        this.flushMessages = (Long) values.get(FLUSH_MESSAGES);
        this.flushMs = (Long) values.get(FLUSH_MS);
        this.preallocate = (Boolean) values.get(PREALLOCATE);
        this.fileDeleteDelayMs = (Long) values.get(FILE_DELETE_DELAY_MS);
        this.minInsyncReplicas = (Integer) values.get(MIN_INSYNC_REPLICAS);
        this.uncleanLeaderElectionEnable = (Boolean) values.get(UNCLEAN_LEADER_ELECTION_ENABLE);
    }

    /** Kafka's defaults for every setting. */
    public static LogConfig defaults() {
        return parse(Map.of());
    }

    /**
     * Parses topic-level properties; unset ones take Kafka's defaults.
     *
     * @throws ConfigException naming the property for an unknown name or a bad value
     */
    public static LogConfig parse(Map<String, ?> properties) {
        for (String name : properties.keySet()) {
            if (!DEFINITION.names().contains(name)) {
                throw new ConfigException(name, properties.get(name),
                        "unknown topic configuration; known: " + new java.util.TreeSet<>(DEFINITION.names()));
            }
        }
        return new LogConfig(DEFINITION.parse(properties));
    }

    /** This configuration with some properties replaced, e.g. a topic's overrides on top of the broker defaults. */
    public LogConfig withOverrides(Map<String, ?> overrides) {
        Map<String, Object> merged = new HashMap<>(values);
        merged.putAll(overrides);
        return parse(merged);
    }

    /** The names of every topic-level setting. */
    public static Set<String> names() {
        return DEFINITION.names();
    }

    /** The type of a setting, for DescribeConfigs. */
    public static ConfigDef.Type type(String name) {
        return DEFINITION.configKeys().get(name).type;
    }

    /** The documentation of a setting, for DescribeConfigs. */
    public static String documentation(String name) {
        return DEFINITION.configKeys().get(name).documentation;
    }

    /** The value of one setting as Kafka's tools show it: lists comma-separated. */
    public String stringValue(String name) {
        return displayValue(values.get(name));
    }

    /** A typed configuration value as Kafka's tools show it: lists comma-separated, null as null. */
    public static String displayValue(Object value) {
        if (value instanceof List<?> list) {
            return String.join(",", list.stream().map(String::valueOf).toList());
        }
        return value == null ? null : String.valueOf(value);
    }

    /** The typed value of one setting, by its Kafka name. */
    public Object value(String name) {
        return values.get(name);
    }

    public boolean compact() {
        return cleanupPolicy.contains(CleanupPolicy.COMPACT);
    }

    public boolean delete() {
        return cleanupPolicy.contains(CleanupPolicy.DELETE);
    }

    @Override
    public String toString() {
        return "LogConfig" + values;
    }
}
