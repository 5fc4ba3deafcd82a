package io.tributary.broker.group;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

import io.tributary.broker.storage.VersionedStruct;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The keys and values of the records in {@code __consumer_offsets}, in Apache Kafka's layout for that topic: the
 * coordinator rebuilds its groups and committed offsets from these records, and because the layout is Kafka's, tools
 * that decode the topic (e.g. {@code kafka-console-consumer --formatter ...OffsetsMessageFormatter}) read ours too.
 *
 * <h2>Format</h2>
 * Every key and every value is an int16 version followed by the fields of that version, big-endian. The key's version
 * says what the record is about; the value's version is independent of it.
 * <pre>
 * key version 0, 1   a committed offset   group string, topic string, partition int32
 * key version 2      a group              group string
 * key version 11     a share group        group string          (Kafka's ShareGroupMetadataKey)
 * key version 15     a share group's      group string          (Kafka's ShareGroupStatePartitionMetadataKey)
 *                    partitions with share state
 * other versions     records of kinds of group this broker does not run or does not store (KIP-848 consumer
 *                    groups, share group members and assignments, streams groups)
 *
 * offset value  version 0   offset int64, metadata string, commit_timestamp int64
 *               version 1   offset int64, metadata string, commit_timestamp int64, expire_timestamp int64
 *               version 2   as version 0
 *               version 3   offset int64, leader_epoch int32, metadata string, commit_timestamp int64
 *               version 4   as version 3, flexible
 *
 * group value   version 0   protocol_type string, generation int32, protocol nullable string,
 *                           leader nullable string, members [member]
 *               version 1   as version 0
 *               version 2   current_state_timestamp int64 inserted after leader
 *               version 3   as version 2
 *               version 4   as version 3, flexible
 *
 * member        version 0   member_id string, client_id string, client_host string, session_timeout int32,
 *                           subscription bytes, assignment bytes
 *               version 1   rebalance_timeout int32 inserted before session_timeout
 *               version 2   as version 1
 *               version 3   group_instance_id nullable string inserted after member_id
 *               version 4   as version 3, flexible  (a member has the version of the group value holding it)
 *
 * share group value version 0   epoch int32, flexible  (Kafka's ShareGroupMetadataValue)
 *
 * share group state partitions value version 0, flexible  (Kafka's ShareGroupStatePartitionMetadataValue)
 *               initializing_topics [topic_partitions], initialized_topics [topic_partitions],
 *               deleting_topics [topic_id uuid, topic_name string]
 *               topic_partitions: topic_id uuid, topic_name string, partitions [int32]
 *               (written with the initialized topics only; on reading, initializing topics count as initialized,
 *               as their states may exist, and deleting topics are ignored)
 * </pre>
 * A string is an int16 byte length and that many bytes of UTF-8, length -1 meaning null; bytes are an int32 length and
 * the bytes; an array is an int32 element count and the elements. The flexible encoding (KIP-482) writes each length
 * and count as an unsigned varint of length + 1 (0 meaning null) and ends every struct, including each member, with
 * a tagged-field section. Tagged fields are read and dropped: the only one Kafka defines here (offset value tag 0,
 * the topic id) has no use in this broker.
 *
 * <p>Written: offset keys as version 1, group keys as version 2, both values as version 3, the newest versions before
 * the flexible encoding (offset value 3 since Kafka 2.1, group value 3 since 2.3), so every Kafka since 2.3 reads
 * them. Read: everything above. Version 4 is not only for completeness: Kafka 4.4 writes offset values as version 4
 * (kafka-group-coordinator 4.4.0, {@code GroupCoordinatorRecordHelpers.offsetCommitValueVersion}), so a log Kafka
 * wrote contains them.
 *
 * <p>Share groups (KIP-932): only the group's existence and epoch are stored, in Kafka's share group metadata
 * record (key version 11, value version 0, as {@code ShareGroupMetadataKey}/{@code ShareGroupMetadataValue} of
 * kafka-group-coordinator define them); a deleted share group leaves a tombstone of that key. Members are not
 * stored: after a failover they get {@code UNKNOWN_MEMBER_ID} and rejoin. The partitions that may have share state
 * (which the share-group offset admin APIs read and delete) are stored in Kafka's share group state partition
 * metadata record (key version 15), tombstoned with the group. Kafka's other share group records (member metadata,
 * target and current assignments, partition metadata: key versions 9, 10, 12 to 14) are not written here and are
 * skipped when read.
 *
 * <p>Reading is strict. Kafka's own reader ignores bytes after the last field; the writer never produces them, so
 * here they mean damage, and like a truncated field, a negative length or an unknown value version they are reported
 * as {@link CorruptRecordException} naming the record kind, its version and what was wrong. An unknown <em>key</em>
 * version is not damage but a record for another kind of group, which {@link #deserializeKey} reports as empty so that
 * the loader can skip it. A tombstone has a null value and never reaches the value deserializers.
 *
 * <p>Threads: stateless; every method may be called from any thread. The schemas are immutable.
 */
final class OffsetsTopicFormat {

    /** Offset value: the leader epoch of the committed offset is unknown (always so below version 3). */
    static final int UNKNOWN_LEADER_EPOCH = -1;
    /** Offset value: no expire timestamp (only version 1 carries one). */
    static final long NO_EXPIRE_TIMESTAMP = -1L;
    /** Group value: when the group entered its current state is unknown (always so below version 2). */
    static final long UNKNOWN_STATE_TIMESTAMP = -1L;

    static final short OFFSET_KEY_VERSION = 1;
    static final short GROUP_KEY_VERSION = 2;
    static final short OFFSET_VALUE_VERSION = 3;
    static final short GROUP_VALUE_VERSION = 3;
    static final short SHARE_GROUP_KEY_VERSION = 11;
    static final short SHARE_GROUP_VALUE_VERSION = 0;
    static final short SHARE_STATE_PARTITIONS_KEY_VERSION = 15;
    static final short SHARE_STATE_PARTITIONS_VALUE_VERSION = 0;

    private static final Field GROUP = new Field("group", Type.STRING);
    private static final Field TOPIC = new Field("topic", Type.STRING);
    private static final Field PARTITION = new Field("partition", Type.INT32);

    private static final Schema OFFSET_KEY = new Schema(GROUP, TOPIC, PARTITION);
    private static final Schema GROUP_KEY = new Schema(GROUP);
    private static final Field EPOCH = new Field("epoch", Type.INT32);
    /** The name of the tagged-field section of a flexible struct (none written). */
    private static final String TAGGED_FIELDS = "_tagged_fields";
    /** Indexed by value version: one, flexible. */
    private static final Schema[] SHARE_GROUP_VALUE = {flexible(new Schema(EPOCH))};

    private static final Field TOPIC_ID = new Field("topic_id", Type.UUID);
    private static final Field TOPIC_NAME = new Field("topic_name", Type.COMPACT_STRING);
    private static final Field PARTITIONS = new Field("partitions", new CompactArrayOf(Type.INT32));
    private static final Schema TOPIC_PARTITIONS_INFO =
            new Schema(TOPIC_ID, TOPIC_NAME, PARTITIONS, Field.TaggedFieldsSection.of());
    private static final Schema TOPIC_INFO = new Schema(TOPIC_ID, TOPIC_NAME, Field.TaggedFieldsSection.of());
    private static final String INITIALIZING_TOPICS = "initializing_topics";
    private static final String INITIALIZED_TOPICS = "initialized_topics";
    private static final String DELETING_TOPICS = "deleting_topics";
    /** Indexed by value version: one, flexible. */
    private static final Schema[] SHARE_STATE_PARTITIONS_VALUE = {new Schema(
            new Field(INITIALIZING_TOPICS, new CompactArrayOf(TOPIC_PARTITIONS_INFO)),
            new Field(INITIALIZED_TOPICS, new CompactArrayOf(TOPIC_PARTITIONS_INFO)),
            new Field(DELETING_TOPICS, new CompactArrayOf(TOPIC_INFO)),
            Field.TaggedFieldsSection.of())};

    private static final Field OFFSET = new Field("offset", Type.INT64);
    private static final Field LEADER_EPOCH = new Field("leader_epoch", Type.INT32);
    private static final Field METADATA = new Field("metadata", Type.STRING);
    private static final Field COMMIT_TIMESTAMP = new Field("commit_timestamp", Type.INT64);
    private static final Field EXPIRE_TIMESTAMP = new Field("expire_timestamp", Type.INT64);

    private static final Schema OFFSET_VALUE_V0 = new Schema(OFFSET, METADATA, COMMIT_TIMESTAMP);
    private static final Schema OFFSET_VALUE_V1 = new Schema(OFFSET, METADATA, COMMIT_TIMESTAMP, EXPIRE_TIMESTAMP);
    private static final Schema OFFSET_VALUE_V3 = new Schema(OFFSET, LEADER_EPOCH, METADATA, COMMIT_TIMESTAMP);
    /** Indexed by value version. */
    private static final Schema[] OFFSET_VALUE = {
        OFFSET_VALUE_V0, OFFSET_VALUE_V1, OFFSET_VALUE_V0, OFFSET_VALUE_V3, flexible(OFFSET_VALUE_V3)
    };

    private static final Field MEMBER_ID = new Field("member_id", Type.STRING);
    private static final Field GROUP_INSTANCE_ID = new Field("group_instance_id", Type.NULLABLE_STRING);
    private static final Field CLIENT_ID = new Field("client_id", Type.STRING);
    private static final Field CLIENT_HOST = new Field("client_host", Type.STRING);
    private static final Field REBALANCE_TIMEOUT = new Field("rebalance_timeout", Type.INT32);
    private static final Field SESSION_TIMEOUT = new Field("session_timeout", Type.INT32);
    private static final Field SUBSCRIPTION = new Field("subscription", Type.BYTES);
    private static final Field ASSIGNMENT = new Field("assignment", Type.BYTES);

    private static final Schema MEMBER_V0 =
            new Schema(MEMBER_ID, CLIENT_ID, CLIENT_HOST, SESSION_TIMEOUT, SUBSCRIPTION, ASSIGNMENT);
    private static final Schema MEMBER_V1 =
            new Schema(MEMBER_ID, CLIENT_ID, CLIENT_HOST, REBALANCE_TIMEOUT, SESSION_TIMEOUT, SUBSCRIPTION, ASSIGNMENT);
    private static final Schema MEMBER_V3 = new Schema(MEMBER_ID, GROUP_INSTANCE_ID, CLIENT_ID, CLIENT_HOST,
            REBALANCE_TIMEOUT, SESSION_TIMEOUT, SUBSCRIPTION, ASSIGNMENT);

    private static final Field PROTOCOL_TYPE = new Field("protocol_type", Type.STRING);
    private static final Field GENERATION = new Field("generation", Type.INT32);
    private static final Field PROTOCOL = new Field("protocol", Type.NULLABLE_STRING);
    private static final Field LEADER = new Field("leader", Type.NULLABLE_STRING);
    private static final Field CURRENT_STATE_TIMESTAMP = new Field("current_state_timestamp", Type.INT64);
    private static final String MEMBERS = "members";

    private static final Schema GROUP_VALUE_V0 =
            new Schema(PROTOCOL_TYPE, GENERATION, PROTOCOL, LEADER, new Field(MEMBERS, new ArrayOf(MEMBER_V0)));
    private static final Schema GROUP_VALUE_V1 =
            new Schema(PROTOCOL_TYPE, GENERATION, PROTOCOL, LEADER, new Field(MEMBERS, new ArrayOf(MEMBER_V1)));
    private static final Schema GROUP_VALUE_V2 = new Schema(PROTOCOL_TYPE, GENERATION, PROTOCOL, LEADER,
            CURRENT_STATE_TIMESTAMP, new Field(MEMBERS, new ArrayOf(MEMBER_V1)));
    private static final Schema GROUP_VALUE_V3 = new Schema(PROTOCOL_TYPE, GENERATION, PROTOCOL, LEADER,
            CURRENT_STATE_TIMESTAMP, new Field(MEMBERS, new ArrayOf(MEMBER_V3)));
    /** Indexed by value version. */
    private static final Schema[] GROUP_VALUE = {
        GROUP_VALUE_V0, GROUP_VALUE_V1, GROUP_VALUE_V2, GROUP_VALUE_V3, flexible(GROUP_VALUE_V3)
    };

    private OffsetsTopicFormat() {
    }

    /** The key of a record in {@code __consumer_offsets}: every record belongs to one group. */
    sealed interface Key permits OffsetKey, GroupKey, ShareGroupKey, ShareStatePartitionsKey {
        String groupId();
    }

    /** The key of a committed offset: one per group and topic-partition. */
    record OffsetKey(String groupId, String topic, int partition) implements Key {
        OffsetKey {
            Objects.requireNonNull(groupId, "groupId");
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** The key of a group's metadata: one per group. */
    record GroupKey(String groupId) implements Key {
        GroupKey {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** The key of a share group's metadata: one per share group. */
    record ShareGroupKey(String groupId) implements Key {
        ShareGroupKey {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** The key of a share group's partitions with share state: one per share group. */
    record ShareStatePartitionsKey(String groupId) implements Key {
        ShareStatePartitionsKey {
            Objects.requireNonNull(groupId, "groupId");
        }
    }

    /** A share group's partitions that may have share state, by topic id. */
    record ShareStatePartitionsValue(Map<Uuid, ShareGroup.StateTopic> topics) {
        ShareStatePartitionsValue {
            topics = Map.copyOf(topics);
        }
    }

    /** A share group's metadata: its group epoch. */
    record ShareGroupValue(int epoch) {
    }

    /**
     * A committed offset.
     *
     * @param leaderEpoch     the leader epoch the consumer saw at the offset, or {@link #UNKNOWN_LEADER_EPOCH}
     * @param metadata        the client's string, never null: as in Kafka, a commit without metadata stores ""
     * @param expireTimestamp {@link #NO_EXPIRE_TIMESTAMP} unless read from a version 1 value
     */
    record OffsetValue(long offset, int leaderEpoch, String metadata, long commitTimestamp, long expireTimestamp) {
        OffsetValue {
            Objects.requireNonNull(metadata, "metadata");
        }
    }

    /**
     * A group's membership as of its last completed rebalance.
     *
     * @param protocolType          e.g. "consumer"; never null ("" for a group that has none)
     * @param protocol              the chosen assignor, null while the group is empty
     * @param leader                the leader's member id, null while the group is empty
     * @param currentStateTimestamp when the group entered its state, or {@link #UNKNOWN_STATE_TIMESTAMP}
     * @param members               never null; copied, so the record is immutable apart from the members' arrays
     */
    record GroupValue(String protocolType, int generation, String protocol, String leader, long currentStateTimestamp,
                      List<MemberValue> members) {
        GroupValue {
            Objects.requireNonNull(protocolType, "protocolType");
            members = List.copyOf(members);
        }
    }

    /**
     * One member of a group.
     *
     * <p>The arrays are neither copied in nor out: an assignment can run to megabytes for a large group and is
     * written on every rebalance, so whoever builds a value hands its arrays over and nobody modifies them afterwards.
     * Equality, hash code and string form use the arrays' contents.
     *
     * @param groupInstanceId the static member id (KIP-345), or null for a dynamic member
     * @param subscription    the member's metadata for the chosen protocol; never null, may be empty
     * @param assignment      what the leader assigned the member; never null, may be empty
     */
    record MemberValue(String memberId, String groupInstanceId, String clientId, String clientHost,
                       int rebalanceTimeoutMs, int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
        MemberValue {
            Objects.requireNonNull(memberId, "memberId");
            Objects.requireNonNull(clientId, "clientId");
            Objects.requireNonNull(clientHost, "clientHost");
            Objects.requireNonNull(subscription, "subscription");
            Objects.requireNonNull(assignment, "assignment");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MemberValue m
                    && memberId.equals(m.memberId)
                    && Objects.equals(groupInstanceId, m.groupInstanceId)
                    && clientId.equals(m.clientId)
                    && clientHost.equals(m.clientHost)
                    && rebalanceTimeoutMs == m.rebalanceTimeoutMs
                    && sessionTimeoutMs == m.sessionTimeoutMs
                    && Arrays.equals(subscription, m.subscription)
                    && Arrays.equals(assignment, m.assignment);
        }

        @Override
        public int hashCode() {
            int hash = Objects.hash(memberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                    sessionTimeoutMs);
            hash = 31 * hash + Arrays.hashCode(subscription);
            return 31 * hash + Arrays.hashCode(assignment);
        }

        @Override
        public String toString() {
            return "MemberValue[memberId=" + memberId + ", groupInstanceId=" + groupInstanceId
                    + ", clientId=" + clientId + ", clientHost=" + clientHost
                    + ", rebalanceTimeoutMs=" + rebalanceTimeoutMs + ", sessionTimeoutMs=" + sessionTimeoutMs
                    + ", subscription=" + HexFormat.of().formatHex(subscription)
                    + ", assignment=" + HexFormat.of().formatHex(assignment) + "]";
        }
    }

    /** An offset key as version 1, a group key as version 2. */
    static byte[] serializeKey(Key key) {
        if (key instanceof OffsetKey offsetKey) {
            Struct struct = new Struct(OFFSET_KEY)
                    .set(GROUP.name, offsetKey.groupId())
                    .set(TOPIC.name, offsetKey.topic())
                    .set(PARTITION.name, offsetKey.partition());
            return VersionedStruct.write(OFFSET_KEY_VERSION, struct, offsetKey);
        }
        if (key instanceof ShareGroupKey shareKey) {
            return VersionedStruct.write(SHARE_GROUP_KEY_VERSION,
                    new Struct(GROUP_KEY).set(GROUP.name, shareKey.groupId()), shareKey);
        }
        if (key instanceof ShareStatePartitionsKey statesKey) {
            return VersionedStruct.write(SHARE_STATE_PARTITIONS_KEY_VERSION,
                    new Struct(GROUP_KEY).set(GROUP.name, statesKey.groupId()), statesKey);
        }
        GroupKey groupKey = (GroupKey) key;
        return VersionedStruct.write(GROUP_KEY_VERSION, new Struct(GROUP_KEY).set(GROUP.name, groupKey.groupId()),
                groupKey);
    }

    /**
     * As value version 3.
     *
     * @throws IllegalArgumentException if the value has an expire timestamp, which version 3 cannot hold (Kafka
     *                                  writes version 1 for those; they came only from OffsetCommit v1 requests,
     *                                  which Kafka 4 and this broker no longer accept)
     */
    static byte[] serializeOffsetValue(OffsetValue value) {
        if (value.expireTimestamp() != NO_EXPIRE_TIMESTAMP) {
            throw new IllegalArgumentException("Offset value version " + OFFSET_VALUE_VERSION
                    + " has no expire timestamp, but " + value + " has one");
        }
        Struct struct = new Struct(OFFSET_VALUE_V3)
                .set(OFFSET.name, value.offset())
                .set(LEADER_EPOCH.name, value.leaderEpoch())
                .set(METADATA.name, value.metadata())
                .set(COMMIT_TIMESTAMP.name, value.commitTimestamp());
        return VersionedStruct.write(OFFSET_VALUE_VERSION, struct, value);
    }

    /** As value version 0. */
    static byte[] serializeShareGroupValue(ShareGroupValue value) {
        return VersionedStruct.write(SHARE_GROUP_VALUE_VERSION,
                new Struct(SHARE_GROUP_VALUE[0]).set(EPOCH.name, value.epoch())
                        .set(TAGGED_FIELDS, new TreeMap<Integer, Object>()), value);
    }

    /**
     * Reads a share group value from the buffer's position to its limit, without moving the caller's position.
     *
     * @throws CorruptRecordException if the bytes are not a well-formed share group value of a known version
     */
    static ShareGroupValue deserializeShareGroupValue(ByteBuffer buffer) {
        Struct value = readVersioned(SHARE_GROUP_VALUE, duplicate(buffer), "share group value");
        return new ShareGroupValue(value.getInt(EPOCH.name));
    }

    /** As value version 0, every topic as initialized. */
    static byte[] serializeShareStatePartitionsValue(ShareStatePartitionsValue value) {
        List<Struct> topics = new ArrayList<>(value.topics().size());
        new TreeMap<>(value.topics()).forEach((topicId, topic) -> topics.add(new Struct(TOPIC_PARTITIONS_INFO)
                .set(TOPIC_ID.name, topicId)
                .set(TOPIC_NAME.name, topic.name())
                .set(PARTITIONS.name, topic.partitions().toArray())
                .set(TAGGED_FIELDS, new TreeMap<Integer, Object>())));
        Struct struct = new Struct(SHARE_STATE_PARTITIONS_VALUE[0])
                .set(INITIALIZING_TOPICS, new Object[0])
                .set(INITIALIZED_TOPICS, topics.toArray())
                .set(DELETING_TOPICS, new Object[0])
                .set(TAGGED_FIELDS, new TreeMap<Integer, Object>());
        return VersionedStruct.write(SHARE_STATE_PARTITIONS_VALUE_VERSION, struct,
                "share group state partitions value with " + topics.size() + " topics");
    }

    /**
     * Reads a share group state partitions value from the buffer's position to its limit, without moving the
     * caller's position: the initialized and initializing topics.
     *
     * @throws CorruptRecordException if the bytes are not a well-formed value of a known version
     */
    static ShareStatePartitionsValue deserializeShareStatePartitionsValue(ByteBuffer buffer) {
        Struct value = readVersioned(SHARE_STATE_PARTITIONS_VALUE, duplicate(buffer),
                "share group state partitions value");
        Map<Uuid, ShareGroup.StateTopic> topics = new HashMap<>();
        for (String field : List.of(INITIALIZING_TOPICS, INITIALIZED_TOPICS)) {
            for (Object element : value.getArray(field)) {
                Struct topic = (Struct) element;
                List<Integer> partitions = new ArrayList<>();
                for (Object partition : topic.getArray(PARTITIONS.name)) {
                    partitions.add((Integer) partition);
                }
                Uuid topicId = (Uuid) topic.get(TOPIC_ID.name);
                ShareGroup.StateTopic known = topics.get(topicId);
                if (known != null) {
                    partitions.addAll(known.partitions());
                }
                topics.put(topicId, new ShareGroup.StateTopic(topic.getString(TOPIC_NAME.name),
                        new TreeSet<>(partitions)));
            }
        }
        return new ShareStatePartitionsValue(topics);
    }

    /** As value version 3. */
    static byte[] serializeGroupValue(GroupValue value) {
        List<Struct> members = new ArrayList<>(value.members().size());
        for (MemberValue member : value.members()) {
            members.add(new Struct(MEMBER_V3)
                    .set(MEMBER_ID.name, member.memberId())
                    .set(GROUP_INSTANCE_ID.name, member.groupInstanceId())
                    .set(CLIENT_ID.name, member.clientId())
                    .set(CLIENT_HOST.name, member.clientHost())
                    .set(REBALANCE_TIMEOUT.name, member.rebalanceTimeoutMs())
                    .set(SESSION_TIMEOUT.name, member.sessionTimeoutMs())
                    .set(SUBSCRIPTION.name, ByteBuffer.wrap(member.subscription()))
                    .set(ASSIGNMENT.name, ByteBuffer.wrap(member.assignment())));
        }
        Struct struct = new Struct(GROUP_VALUE_V3)
                .set(PROTOCOL_TYPE.name, value.protocolType())
                .set(GENERATION.name, value.generation())
                .set(PROTOCOL.name, value.protocol())
                .set(LEADER.name, value.leader())
                .set(CURRENT_STATE_TIMESTAMP.name, value.currentStateTimestamp())
                .set(MEMBERS, members.toArray());
        return VersionedStruct.write(GROUP_VALUE_VERSION, struct,
                "group value with " + members.size() + " members");
    }

    /**
     * Reads a key from the buffer's position to its limit without moving the caller's position.
     *
     * @return the key, or empty if its version belongs to a record this broker does not store (3 and above, but 11
     *         and 15)
     * @throws CorruptRecordException if the bytes are not a well-formed key
     */
    static Optional<Key> deserializeKey(ByteBuffer buffer) {
        ByteBuffer in = duplicate(buffer);
        short version = readVersion(in, "key");
        switch (version) {
            case 0, 1 -> {
                Struct key = VersionedStruct.read(OFFSET_KEY, in, "offset key version " + version);
                return Optional.of(new OffsetKey(key.getString(GROUP.name), key.getString(TOPIC.name),
                        key.getInt(PARTITION.name)));
            }
            case 2 -> {
                Struct key = VersionedStruct.read(GROUP_KEY, in, "group key version " + version);
                return Optional.of(new GroupKey(key.getString(GROUP.name)));
            }
            case SHARE_GROUP_KEY_VERSION -> {
                Struct key = VersionedStruct.read(GROUP_KEY, in, "share group key version " + version);
                return Optional.of(new ShareGroupKey(key.getString(GROUP.name)));
            }
            case SHARE_STATE_PARTITIONS_KEY_VERSION -> {
                Struct key = VersionedStruct.read(GROUP_KEY, in, "share group state partitions key version "
                        + version);
                return Optional.of(new ShareStatePartitionsKey(key.getString(GROUP.name)));
            }
            default -> {
                if (version < 0) {
                    throw new CorruptRecordException("Key version " + version + " is negative");
                }
                return Optional.empty();
            }
        }
    }

    /**
     * Reads an offset value of any version from 0 to 4, from the buffer's position to its limit, without moving the
     * caller's position. Fields the version lacks get Kafka's defaults: {@link #UNKNOWN_LEADER_EPOCH},
     * {@link #NO_EXPIRE_TIMESTAMP}.
     *
     * @throws CorruptRecordException if the bytes are not a well-formed offset value of a known version
     */
    static OffsetValue deserializeOffsetValue(ByteBuffer buffer) {
        Struct value = readVersioned(OFFSET_VALUE, duplicate(buffer), "offset value");
        return new OffsetValue(
                value.getLong(OFFSET.name),
                value.hasField(LEADER_EPOCH.name) ? value.getInt(LEADER_EPOCH.name) : UNKNOWN_LEADER_EPOCH,
                value.getString(METADATA.name),
                value.getLong(COMMIT_TIMESTAMP.name),
                value.hasField(EXPIRE_TIMESTAMP.name) ? value.getLong(EXPIRE_TIMESTAMP.name) : NO_EXPIRE_TIMESTAMP);
    }

    /**
     * Reads a group value of any version from 0 to 4, from the buffer's position to its limit, without moving the
     * caller's position. Fields the version lacks get Kafka's defaults: {@link #UNKNOWN_STATE_TIMESTAMP}, no group
     * instance id, and in version 0, where a member had one timeout for both, the session timeout as rebalance
     * timeout.
     *
     * @throws CorruptRecordException if the bytes are not a well-formed group value of a known version
     */
    static GroupValue deserializeGroupValue(ByteBuffer buffer) {
        Struct value = readVersioned(GROUP_VALUE, duplicate(buffer), "group value");
        Object[] memberStructs = value.getArray(MEMBERS);
        List<MemberValue> members = new ArrayList<>(memberStructs.length);
        for (Object element : memberStructs) {
            Struct member = (Struct) element;
            int sessionTimeout = member.getInt(SESSION_TIMEOUT.name);
            members.add(new MemberValue(
                    member.getString(MEMBER_ID.name),
                    member.hasField(GROUP_INSTANCE_ID.name) ? member.getString(GROUP_INSTANCE_ID.name) : null,
                    member.getString(CLIENT_ID.name),
                    member.getString(CLIENT_HOST.name),
                    member.hasField(REBALANCE_TIMEOUT.name) ? member.getInt(REBALANCE_TIMEOUT.name) : sessionTimeout,
                    sessionTimeout,
                    toArray(member.getBytes(SUBSCRIPTION.name)),
                    toArray(member.getBytes(ASSIGNMENT.name))));
        }
        return new GroupValue(
                value.getString(PROTOCOL_TYPE.name),
                value.getInt(GENERATION.name),
                value.getString(PROTOCOL.name),
                value.getString(LEADER.name),
                value.hasField(CURRENT_STATE_TIMESTAMP.name)
                        ? value.getLong(CURRENT_STATE_TIMESTAMP.name) : UNKNOWN_STATE_TIMESTAMP,
                members);
    }

    /**
     * The same fields in the flexible encoding: compact strings, bytes and arrays, and a tagged-field section at the
     * end of this struct and of every struct in its arrays. Fixed-width integers are the same in both encodings.
     */
    private static Schema flexible(Schema schema) {
        List<Field> fields = new ArrayList<>();
        for (BoundField field : schema.fields()) {
            fields.add(new Field(field.def.name, flexible(field.def.type)));
        }
        fields.add(Field.TaggedFieldsSection.of());
        return new Schema(fields.toArray(new Field[0]));
    }

    private static Type flexible(Type type) {
        if (type == Type.STRING) {
            return Type.COMPACT_STRING;
        } else if (type == Type.NULLABLE_STRING) {
            return Type.COMPACT_NULLABLE_STRING;
        } else if (type == Type.BYTES) {
            return Type.COMPACT_BYTES;
        } else if (type instanceof ArrayOf array) {
            // Every array here is non-nullable and holds structs (the members).
            return new CompactArrayOf(flexible((Schema) array.arrayElementType().orElseThrow()));
        }
        return type;
    }

    /** The caller's buffer stays as it was; the duplicate is also big-endian whatever order the caller set. */
    private static ByteBuffer duplicate(ByteBuffer buffer) {
        return Objects.requireNonNull(buffer, "buffer").duplicate();
    }

    private static short readVersion(ByteBuffer in, String what) {
        try {
            return in.getShort();
        } catch (BufferUnderflowException e) {
            throw new CorruptRecordException("The " + what + " has " + in.remaining()
                    + " bytes, too few for its int16 version");
        }
    }

    private static Struct readVersioned(Schema[] schemas, ByteBuffer in, String what) {
        short version = readVersion(in, what);
        if (version < 0 || version >= schemas.length) {
            throw new CorruptRecordException("Unknown " + what + " version " + version
                    + "; versions 0 to " + (schemas.length - 1) + " are known");
        }
        return VersionedStruct.read(schemas[version], in, what + " version " + version);
    }

    /** A copy: the deserialized value must not share memory with the log's buffer. */
    private static byte[] toArray(ByteBuffer bytes) {
        byte[] array = new byte[bytes.remaining()];
        bytes.duplicate().get(array);
        return array;
    }
}
