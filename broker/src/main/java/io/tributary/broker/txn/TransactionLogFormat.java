package io.tributary.broker.txn;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

import io.tributary.broker.storage.VersionedStruct;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The keys and values of the records in {@code __transaction_state}, in Apache Kafka's layout for that topic (its
 * {@code TransactionLogKey} and {@code TransactionLogValue} messages), so that a coordinator rebuilds its
 * transactions from them and Kafka's tools decode them.
 *
 * <h2>Format</h2>
 * An int16 version, then the fields, big-endian. A string is an int16 length and UTF-8; an array an int32 count.
 * <pre>
 * key     version 0   transactional_id string
 * value   version 0   producer_id int64, producer_epoch int16, transaction_timeout_ms int32,
 *                     transaction_status int8 ({@link TransactionState#id()}),
 *                     transaction_partitions nullable [topic string, partition_ids [int32]],
 *                     transaction_last_update_timestamp_ms int64, transaction_start_timestamp_ms int64
 *         version 1   the same fields, flexible (KIP-482: compact lengths and counts as unsigned varint + 1, 0 for
 *                     null; a tagged-field section after each partitions element and at the end), with tagged
 *                     fields 0 previous_producer_id int64, 1 next_producer_id int64, 2 client_transaction_version
 *                     int16
 * </pre>
 * The partitions are null while the state is Empty, as Kafka writes them. A removed transactional id is a tombstone
 * (null value).
 *
 * <p>Written: version 0 (what Kafka writes for clients on transaction version 1, the only one this broker offers).
 * Read: versions 0 and 1; of the tagged fields only the previous producer id is kept. A malformed key or value is
 * reported as {@link CorruptRecordException}.
 *
 * <p>Threads: stateless; any thread.
 */
final class TransactionLogFormat {

    static final short KEY_VERSION = 0;
    static final short VALUE_VERSION = 0;

    private static final Field TRANSACTIONAL_ID = new Field("transactional_id", Type.STRING);
    private static final Schema KEY_V0 = new Schema(TRANSACTIONAL_ID);

    private static final Field PRODUCER_ID = new Field("producer_id", Type.INT64);
    private static final Field PRODUCER_EPOCH = new Field("producer_epoch", Type.INT16);
    private static final Field TIMEOUT = new Field("transaction_timeout_ms", Type.INT32);
    private static final Field STATUS = new Field("transaction_status", Type.INT8);
    private static final String PARTITIONS = "transaction_partitions";
    private static final String TOPIC = "topic";
    private static final String PARTITION_IDS = "partition_ids";
    private static final Field LAST_UPDATE = new Field("transaction_last_update_timestamp_ms", Type.INT64);
    private static final Field START = new Field("transaction_start_timestamp_ms", Type.INT64);
    private static final String TAGGED_FIELDS = "_tagged_fields";
    private static final int PREVIOUS_PRODUCER_ID_TAG = 0;

    private static final Schema PARTITIONS_V0 = new Schema(new Field(TOPIC, Type.STRING),
            new Field(PARTITION_IDS, new ArrayOf(Type.INT32)));
    private static final Schema VALUE_V0 = new Schema(PRODUCER_ID, PRODUCER_EPOCH, TIMEOUT, STATUS,
            new Field(PARTITIONS, ArrayOf.nullable(PARTITIONS_V0)), LAST_UPDATE, START);

    private static final Schema PARTITIONS_V1 = new Schema(new Field(TOPIC, Type.COMPACT_STRING),
            new Field(PARTITION_IDS, new CompactArrayOf(Type.INT32)), Field.TaggedFieldsSection.of());
    private static final Schema VALUE_V1 = new Schema(PRODUCER_ID, PRODUCER_EPOCH, TIMEOUT, STATUS,
            new Field(PARTITIONS, CompactArrayOf.nullable(PARTITIONS_V1)), LAST_UPDATE, START,
            Field.TaggedFieldsSection.of(
                    PREVIOUS_PRODUCER_ID_TAG, new Field("previous_producer_id", Type.INT64),
                    1, new Field("next_producer_id", Type.INT64),
                    2, new Field("client_transaction_version", Type.INT16)));

    private TransactionLogFormat() {
    }

    static byte[] serializeKey(String transactionalId) {
        return VersionedStruct.write(KEY_VERSION, new Struct(KEY_V0).set(TRANSACTIONAL_ID.name, transactionalId),
                "transaction log key of " + transactionalId);
    }

    /** @throws CorruptRecordException if the bytes are not a version 0 key */
    static String deserializeKey(ByteBuffer buffer) {
        ByteBuffer in = buffer.duplicate();
        short version = readVersion(in, "key");
        if (version != KEY_VERSION) {
            throw new CorruptRecordException("Unknown transaction log key version " + version);
        }
        return VersionedStruct.read(KEY_V0, in, "transaction log key version 0").getString(TRANSACTIONAL_ID.name);
    }

    /** As version 0; the previous producer id and the last epoch are not kept (version 0 has no place for them). */
    static byte[] serializeValue(TransactionData data) {
        Object[] partitions = null;
        if (data.state() != TransactionState.EMPTY) {
            Map<String, List<Integer>> byTopic = new TreeMap<>();
            for (TopicPartition tp : data.partitions()) {
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            }
            List<Struct> topics = new ArrayList<>();
            for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
                topic.getValue().sort(null);
                topics.add(new Struct(PARTITIONS_V0).set(TOPIC, topic.getKey())
                        .set(PARTITION_IDS, topic.getValue().toArray()));
            }
            partitions = topics.toArray();
        }
        Struct struct = new Struct(VALUE_V0)
                .set(PRODUCER_ID.name, data.producerId())
                .set(PRODUCER_EPOCH.name, data.producerEpoch())
                .set(TIMEOUT.name, data.timeoutMs())
                .set(STATUS.name, data.state().id())
                .set(PARTITIONS, partitions)
                .set(LAST_UPDATE.name, data.lastUpdateTimestamp())
                .set(START.name, data.startTimestamp());
        return VersionedStruct.write(VALUE_VERSION, struct, "transaction log value of producer " + data.producerId());
    }

    /**
     * Reads a version 0 or 1 value; the last epoch is unknown ({@link TransactionData#NO_EPOCH}).
     *
     * @throws CorruptRecordException if the bytes are not a well-formed value of a known version and state
     */
    static TransactionData deserializeValue(ByteBuffer buffer) {
        ByteBuffer in = buffer.duplicate();
        short version = readVersion(in, "value");
        Struct value = switch (version) {
            case 0 -> VersionedStruct.read(VALUE_V0, in, "transaction log value version 0");
            case 1 -> VersionedStruct.read(VALUE_V1, in, "transaction log value version 1");
            default -> throw new CorruptRecordException("Unknown transaction log value version " + version
                    + "; versions 0 and 1 are known");
        };
        byte status = (Byte) value.get(STATUS.name);
        TransactionState state = TransactionState.fromId(status).orElseThrow(() ->
                new CorruptRecordException("Unknown transaction status " + status + " in a value version " + version));
        Set<TopicPartition> partitions = new HashSet<>();
        Object[] topics = value.getArray(PARTITIONS);
        if (topics != null) {
            for (Object element : topics) {
                Struct topic = (Struct) element;
                for (Object partition : topic.getArray(PARTITION_IDS)) {
                    partitions.add(new TopicPartition(topic.getString(TOPIC), (Integer) partition));
                }
            }
        }
        long previousProducerId = TransactionData.NO_PRODUCER_ID;
        if (version >= 1 && value.get(TAGGED_FIELDS) instanceof NavigableMap<?, ?> tagged
                && tagged.get(PREVIOUS_PRODUCER_ID_TAG) instanceof Long previous) {
            previousProducerId = previous;
        }
        return new TransactionData(value.getLong(PRODUCER_ID.name), previousProducerId, value.getShort(PRODUCER_EPOCH.name),
                TransactionData.NO_EPOCH, value.getInt(TIMEOUT.name), state, partitions, value.getLong(START.name),
                value.getLong(LAST_UPDATE.name));
    }

    private static short readVersion(ByteBuffer in, String what) {
        try {
            return in.getShort();
        } catch (BufferUnderflowException e) {
            throw new CorruptRecordException("The transaction log " + what + " has " + in.remaining()
                    + " bytes, too few for its int16 version");
        }
    }
}
