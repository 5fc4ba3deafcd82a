package io.tributary.broker.storage;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.record.TimestampType;
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
 * Control batches (transaction markers) are refused from clients. Records are looked at one by one only where a
 * rule needs them: on compacted topics every record must have a key.
 * Compressed batches are otherwise stored exactly as received, never decompressed here.
 */
final class BatchValidator {

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
     * @throws InvalidRecordException               a control batch, or a record without key on a compacted topic
     */
    static ValidBatches validateForLeader(String partition, MemoryRecords records, LogConfig config, long nowMs) {
        checkLengthFields(partition, records);
        List<MutableRecordBatch> batches = new ArrayList<>();
        long recordCount = 0;
        int size = 0;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        for (MutableRecordBatch batch : records.batches()) {
            checkBatch(partition, batch, config);
            if (batch.isControlBatch()) {
                // Transaction markers are written by the broker only, as in Kafka; the producer state relies on it.
                throw new InvalidRecordException("Record batch for " + partition
                        + " is a control batch; clients may not write control records");
            }
            if (config.timestampType == TimestampType.CREATE_TIME) {
                checkTimestamps(partition, batch, config, nowMs);
            }
            if (config.compact()) {
                checkKeys(partition, batch);
            }
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
     * Validates a leader's batches for a follower append: same integrity checks, offsets as the leader assigned them.
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

    private static void checkKeys(String partition, RecordBatch batch) {
        // The second argument caps the decompressed size of one record, it is not a buffer size. As in Kafka by
        // default, the only cap is what an array can hold: a compressed batch within max.message.bytes may hold
        // records of any size, and a smaller cap would refuse them as invalid.
        try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING,
                Records.SOFT_MAX_ARRAY_LENGTH)) {
            while (records.hasNext()) {
                if (!records.next().hasKey()) {
                    throw new InvalidRecordException("Compacted topic " + partition
                            + " cannot accept a record without a key");
                }
            }
        }
    }
}
