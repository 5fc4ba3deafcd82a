package io.tributary.broker.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Decides whether record batches may enter a partition log, before any byte is written. No I/O, no state: the
 * partition log calls it with its current configuration and clock reading.
 *
 * <p>Checks, for every batch: magic v2 (older formats are refused, as Kafka 4 does), CRC32C over the batch, the
 * record count agreeing with the offset range, {@code max.message.bytes}, and under {@code CreateTime} the
 * {@code message.timestamp.before.max.ms}/{@code after.max.ms} window on the batch's first and largest timestamps.
 * Control batches (transaction markers) are refused from clients, accepted from the broker's coordinators. On a leader append every record is read once as a
 * consumer reads it (compressed batches decompressed): a batch whose CRC matches but whose records do not parse would
 * otherwise be stored, and every consumer of the partition would stop at it. On compacted topics every record must
 * also have a key. Batches are stored exactly as received.
 *
 * <p>Thread-safe: the decompression buffers are per thread.
 */
final class BatchValidator {

    /** Decompression buffers, reused by each appending thread (BufferSupplier is not thread-safe). */
    private static final ThreadLocal<BufferSupplier> BUFFERS = ThreadLocal.withInitial(BufferSupplier::create);

    private BatchValidator() {
    }

    /** The batches of an append that passed validation, in order, and what they add up to. */
    record ValidBatches(List<MutableRecordBatch> batches, long recordCount, int sizeInBytes, long maxTimestamp) {
    }

    /**
     * Validates a client's batches for a leader append.
     *
     * @throws CorruptRecordException               bad CRC, inconsistent count, or bytes after the last batch
     * @throws UnsupportedForMessageFormatException magic below 2
     * @throws RecordTooLargeException              a batch over {@code max.message.bytes}
     * @throws InvalidTimestampException            a CreateTime outside the configured window
     * @throws InvalidRecordException               a control batch, records that cannot be read, or a record without
     *                                              key on a compacted topic
     */
    static ValidBatches validateForLeader(String partition, MemoryRecords records, LogConfig config, long nowMs) {
        return validateForLeader(partition, records, config, nowMs, AppendOrigin.CLIENT);
    }

    /**
     * Validates batches for a leader append on behalf of {@code origin}: as for a client, except that the broker's
     * coordinators may write control batches (transaction markers through WriteTxnMarkers).
     */
    static ValidBatches validateForLeader(String partition, MemoryRecords records, LogConfig config, long nowMs,
                                          AppendOrigin origin) {
        checkLengthFields(partition, records);
        List<MutableRecordBatch> batches = new ArrayList<>();
        long recordCount = 0;
        int size = 0;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        ByteBuffer buffer = records.buffer();
        for (MutableRecordBatch batch : records.batches()) {
            checkBatch(partition, batch, config);
            if (batch.isControlBatch() && origin == AppendOrigin.CLIENT) {
                // Transaction markers are written by the broker only, as in Kafka; the producer state relies on it.
                throw new InvalidRecordException("Record batch for " + partition
                        + " is a control batch; clients may not write control records");
            }
            if (config.timestampType == TimestampType.CREATE_TIME) {
                checkTimestamps(partition, batch, config, nowMs);
            }
            int start = buffer.position() + size;
            checkRecords(partition, batches.size(), batch,
                    buffer.duplicate().limit(start + batch.sizeInBytes()).position(start), config.compact());
            batches.add(batch);
            recordCount += batch.lastOffset() - batch.baseOffset() + 1;
            size += batch.sizeInBytes();
            maxTimestamp = Math.max(maxTimestamp, batch.maxTimestamp());
        }
        if (size != records.sizeInBytes()) {
            throw new CorruptRecordException("Append to " + partition + " has " + (records.sizeInBytes() - size)
                    + " bytes after its last complete record batch");
        }
        return new ValidBatches(batches, recordCount, size, maxTimestamp);
    }

    /**
     * Validates a leader's batches for a follower append: same integrity checks, offsets as the leader assigned them;
     * the records themselves were read by the leader's validation and are not read again on the replication path.
     * A partial batch at the end (a fetch response cut at its size limit) is not an error: it is left out.
     */
    static ValidBatches validateForFollower(String partition, MemoryRecords records, LogConfig config) {
        checkLengthFields(partition, records);
        List<MutableRecordBatch> batches = new ArrayList<>();
        long recordCount = 0;
        int size = 0;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long previousLast = -1;
        for (MutableRecordBatch batch : records.batches()) {
            checkBatch(partition, batch, config);
            if (batch.baseOffset() <= previousLast) {
                throw new CorruptRecordException("Replicated batches for " + partition + " go back from offset "
                        + previousLast + " to " + batch.baseOffset());
            }
            previousLast = batch.lastOffset();
            batches.add(batch);
            recordCount += batch.lastOffset() - batch.baseOffset() + 1;
            size += batch.sizeInBytes();
            maxTimestamp = Math.max(maxTimestamp, batch.maxTimestamp());
        }
        return new ValidBatches(batches, recordCount, size, maxTimestamp);
    }

    /**
     * Refuses a batch whose length field would make it end beyond {@code Integer.MAX_VALUE} bytes. kafka-clients'
     * in-memory batch iterator adds the 12-byte log overhead to the field without an overflow check, and the negative
     * sum fails deep in {@code ByteBuffer.limit} ("newLimit &lt; 0", an IllegalArgumentException, which became
     * UNKNOWN_SERVER_ERROR; found by the protocol fuzzer). Every other length is the iterator's: one past the end
     * stops it (then the trailing bytes are refused, or for a follower left out), one below the smallest batch it
     * refuses as corrupt itself. Reads 4 bytes per batch.
     */
    private static void checkLengthFields(String partition, MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        int position = buffer.position();
        while (buffer.limit() - position >= Records.LOG_OVERHEAD) {
            int length = buffer.getInt(position + Records.SIZE_OFFSET);
            if (length > Integer.MAX_VALUE - Records.LOG_OVERHEAD) {
                throw new CorruptRecordException("Record batch for " + partition + " at byte " + position
                        + " of the append claims a length of " + length + " bytes");
            }
            if (length < 0 || length > buffer.limit() - position - Records.LOG_OVERHEAD) {
                return;
            }
            position += Records.LOG_OVERHEAD + length;
        }
    }

    private static void checkBatch(String partition, RecordBatch batch, LogConfig config) {
        if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
            throw new UnsupportedForMessageFormatException("Record batch for " + partition + " has magic "
                    + batch.magic() + "; only magic v2 is accepted");
        }
        if (batch.sizeInBytes() > config.maxMessageBytes) {
            throw new RecordTooLargeException("Record batch for " + partition + " is " + batch.sizeInBytes()
                    + " bytes, larger than max.message.bytes " + config.maxMessageBytes);
        }
        batch.ensureValid();
        Integer count = batch.countOrNull();
        if (count == null || count <= 0 || batch.lastOffset() - batch.baseOffset() + 1 != count) {
            throw new CorruptRecordException("Record batch for " + partition + " claims " + count
                    + " records for offset deltas 0.." + (batch.lastOffset() - batch.baseOffset()));
        }
    }

    private static void checkTimestamps(String partition, MutableRecordBatch batch, LogConfig config, long nowMs) {
        long first = batch instanceof DefaultRecordBatch defaultBatch ? defaultBatch.baseTimestamp() : batch.maxTimestamp();
        long last = batch.maxTimestamp();
        if (first != RecordBatch.NO_TIMESTAMP && nowMs - first > config.timestampBeforeMaxMs) {
            throw new InvalidTimestampException("Timestamp " + first + " of a record for " + partition + " is more than "
                    + LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS + "=" + config.timestampBeforeMaxMs + " ms before now ("
                    + nowMs + ")");
        }
        if (last != RecordBatch.NO_TIMESTAMP && last - nowMs > config.timestampAfterMaxMs) {
            throw new InvalidTimestampException("Timestamp " + last + " of a record for " + partition + " is more than "
                    + LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS + "=" + config.timestampAfterMaxMs + " ms after now ("
                    + nowMs + ")");
        }
    }

    /**
     * Reads every record of the batch as a consumer will, so that what is stored can be read: a batch whose CRC matches
     * but whose records do not parse (a client's bug before it computed the CRC) used to be stored, and every consumer
     * of the partition stopped at it ("Received exception when fetching the next record"; found by the protocol
     * fuzzer). Uncompressed records are read in place; a compressed batch is decompressed once, each record's bytes
     * copied out as the consumer does, up to {@link #fullReadCap} per record so that a claimed size cannot make the
     * broker allocate more than a small multiple of the batch. Cost measured on this machine (loaded) per MiB of
     * 1 KiB records: uncompressed 0.03 ms, lz4 0.7 ms, zstd 1.3 ms, snappy 2.2 ms, gzip 4.6 ms, next to 0.01 to
     * 0.02 ms for the CRC; Kafka's broker decompresses every batch too. A record above the cap (a batch compressed
     * more than 16:1) is read without its key and value, which bounds memory by the decompressor's buffers: if that
     * reads through, the batch is stored.
     * Snappy's own framing lengths are checked first ({@link SnappyFraming}).
     *
     * @param bytes the batch, from its position to its limit
     * @throws InvalidRecordException the records cannot be read, or one has no key on a compacted topic
     */
    private static void checkRecords(String partition, int index, MutableRecordBatch batch, ByteBuffer bytes,
                                     boolean compacted) {
        CompressionType codec;
        try {
            codec = batch.compressionType();
        } catch (IllegalArgumentException e) {
            throw unreadable(partition, index, batch, e); // a compression id Kafka does not define
        }
        if (codec == CompressionType.SNAPPY) {
            String problem = SnappyFraming.problem(bytes.position(bytes.position()
                    + DefaultRecordBatch.RECORD_BATCH_OVERHEAD));
            if (problem != null) {
                throw unreadable(partition, index, batch, new InvalidRecordException(problem));
            }
        }
        int cap = fullReadCap(batch);
        Scan scan;
        try {
            scan = scan(codec == CompressionType.NONE ? batch.iterator()
                    : batch.streamingIterator(BUFFERS.get(), cap));
        } catch (RuntimeException e) {
            // Any failure to read a client's bytes is about those bytes: kafka-clients throws InvalidRecordException
            // or KafkaException, the decompressors their own runtime exceptions.
            if (codec == CompressionType.NONE) {
                throw unreadable(partition, index, batch, e);
            }
            Scan skipping;
            try {
                skipping = scan(batch.skipKeyValueIterator(BUFFERS.get()));
            } catch (RuntimeException again) {
                throw unreadable(partition, index, batch, e);
            }
            if (skipping.largestRecord() <= cap) {
                throw unreadable(partition, index, batch, e);
            }
            scan = skipping;
        }
        if (scan.keyless() && compacted) {
            throw new InvalidRecordException("Compacted topic " + partition + " cannot accept a record without a key");
        }
    }

    /** What reading a batch's records found: whether one had no key, and the largest record's size. */
    private record Scan(boolean keyless, int largestRecord) {
    }

    private static Scan scan(Iterator<Record> records) {
        boolean keyless = false;
        int largest = 0;
        try {
            while (records.hasNext()) {
                Record record = records.next();
                keyless |= !record.hasKey();
                largest = Math.max(largest, record.sizeInBytes());
            }
        } finally {
            if (records instanceof CloseableIterator<Record> closeable) {
                closeable.close(); // checks for bytes left after the last record of a compressed batch
            }
        }
        return new Scan(keyless, largest);
    }

    /** The largest record a compressed batch is read with in full: 16 times the batch, at least 1 MiB. */
    private static int fullReadCap(RecordBatch batch) {
        return (int) Math.min(Records.SOFT_MAX_ARRAY_LENGTH, Math.max(1 << 20, 16L * batch.sizeInBytes()));
    }

    private static InvalidRecordException unreadable(String partition, int index, RecordBatch batch,
                                                     RuntimeException cause) {
        return new InvalidRecordException("Record batch " + index + " of the append to " + partition + " ("
                + batch.countOrNull() + " records) cannot be read: " + cause, cause);
    }
}
