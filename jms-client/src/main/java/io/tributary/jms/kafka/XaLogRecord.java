package io.tributary.jms.kafka;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

import javax.transaction.xa.Xid;

import org.apache.kafka.common.TopicPartition;

/**
 * One PREPARED record of the XA log ({@link XaLog}): an XA branch whose Kafka transaction holds all its sends and
 * offsets, still open on the transaction coordinator, waiting for the transaction manager's decision. What
 * {@code EndTxn} needs to decide it without the producer that opened it: the transactional id, producer id and
 * epoch; the partitions and the time are for the operator.
 *
 * <p>Bytes (big-endian, both starting with a format version, 0):
 * <pre>
 * key   = version:int8 formatId:int32 gtridLength:int8 gtrid bqualLength:int8 bqual
 * value = version:int8 transactionalIdLength:int16 transactionalId(UTF-8) producerId:int64 producerEpoch:int16
 *         preparedAtMs:int64 partitionCount:int32 { topicLength:int16 topic(UTF-8) partition:int32 }*
 * </pre>
 * A record with the key and no value (a tombstone) says the branch was committed or rolled back.
 *
 * @param xid             the branch
 * @param transactionalId the Kafka transaction's transactional id
 * @param producerId      its producer id
 * @param producerEpoch   its producer epoch
 * @param partitions      the partitions in the transaction (sends' and {@code __consumer_offsets}')
 * @param preparedAtMs    when the branch was prepared (wall clock)
 */
public record XaLogRecord(XaXid xid, String transactionalId, long producerId, short producerEpoch,
                          List<TopicPartition> partitions, long preparedAtMs) {

    private static final byte VERSION = 0;

    public XaLogRecord {
        Objects.requireNonNull(xid, "xid");
        Objects.requireNonNull(transactionalId, "transactionalId");
        partitions = List.copyOf(partitions);
    }

    public static byte[] key(Xid xid) {
        byte[] gtrid = xid.getGlobalTransactionId();
        byte[] bqual = xid.getBranchQualifier();
        ByteBuffer buffer = ByteBuffer.allocate(1 + 4 + 1 + gtrid.length + 1 + bqual.length);
        buffer.put(VERSION).putInt(xid.getFormatId());
        buffer.put((byte) gtrid.length).put(gtrid);
        buffer.put((byte) bqual.length).put(bqual);
        return buffer.array();
    }

    /** @throws IllegalArgumentException if the bytes are not a key of this format */
    public static XaXid parseKey(byte[] key) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(key);
            checkVersion(buffer.get(), "key");
            int formatId = buffer.getInt();
            byte[] gtrid = new byte[Byte.toUnsignedInt(buffer.get())];
            buffer.get(gtrid);
            byte[] bqual = new byte[Byte.toUnsignedInt(buffer.get())];
            buffer.get(bqual);
            return new XaXid(formatId, gtrid, bqual);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("Truncated XA log key " + HexFormat.of().formatHex(key), e);
        }
    }

    public byte[] value() {
        byte[] id = transactionalId.getBytes(StandardCharsets.UTF_8);
        List<byte[]> topics = new ArrayList<>(partitions.size());
        int size = 1 + 2 + id.length + 8 + 2 + 8 + 4;
        for (TopicPartition partition : partitions) {
            byte[] topic = partition.topic().getBytes(StandardCharsets.UTF_8);
            topics.add(topic);
            size += 2 + topic.length + 4;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.put(VERSION).putShort((short) id.length).put(id);
        buffer.putLong(producerId).putShort(producerEpoch).putLong(preparedAtMs).putInt(partitions.size());
        for (int i = 0; i < partitions.size(); i++) {
            buffer.putShort((short) topics.get(i).length).put(topics.get(i)).putInt(partitions.get(i).partition());
        }
        return buffer.array();
    }

    /** @throws IllegalArgumentException if the bytes are not a value of this format */
    public static XaLogRecord parse(XaXid xid, byte[] value) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(value);
            checkVersion(buffer.get(), "value");
            String transactionalId = string(buffer);
            long producerId = buffer.getLong();
            short epoch = buffer.getShort();
            long preparedAt = buffer.getLong();
            int count = buffer.getInt();
            List<TopicPartition> partitions = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                partitions.add(new TopicPartition(string(buffer), buffer.getInt()));
            }
            return new XaLogRecord(xid, transactionalId, producerId, epoch, partitions, preparedAt);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("Truncated XA log value of " + xid, e);
        }
    }

    private static String string(ByteBuffer buffer) {
        byte[] bytes = new byte[Short.toUnsignedInt(buffer.getShort())];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void checkVersion(byte version, String what) {
        if (version != VERSION) {
            throw new IllegalArgumentException("XA log " + what + " of unknown format version " + version);
        }
    }

    /** An {@link Xid} with value equality, as a map key: the transaction manager's own Xid classes may not have it. */
    public static final class XaXid implements Xid {

        private final int formatId;
        private final byte[] gtrid;
        private final byte[] bqual;

        public XaXid(int formatId, byte[] gtrid, byte[] bqual) {
            this.formatId = formatId;
            this.gtrid = gtrid.clone();
            this.bqual = bqual.clone();
        }

        public static XaXid of(Xid xid) {
            return xid instanceof XaXid same ? same
                    : new XaXid(xid.getFormatId(), xid.getGlobalTransactionId(), xid.getBranchQualifier());
        }

        @Override
        public int getFormatId() {
            return formatId;
        }

        @Override
        public byte[] getGlobalTransactionId() {
            return gtrid.clone();
        }

        @Override
        public byte[] getBranchQualifier() {
            return bqual.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof XaXid other && formatId == other.formatId && Arrays.equals(gtrid, other.gtrid)
                    && Arrays.equals(bqual, other.bqual);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * formatId + Arrays.hashCode(gtrid)) + Arrays.hashCode(bqual);
        }

        @Override
        public String toString() {
            return "Xid[" + formatId + ":" + HexFormat.of().formatHex(gtrid) + ":" + HexFormat.of().formatHex(bqual)
                    + "]";
        }
    }
}
