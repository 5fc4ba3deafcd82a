package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** Reads a partition log the way a consumer does, for tests that compare it with what they wrote. */
final class LogContents {

    /** One record as read from (or written to) a log, with string key and value; a null value is a tombstone. */
    record LogRecord(long offset, String key, String value, long timestamp) {
    }

    private LogContents() {
    }

    /** Every record from the log start to the log end, fetched batch by batch from the offset after the last. */
    static List<LogRecord> readAll(PartitionLog partitionLog) {
        List<LogRecord> result = new ArrayList<>();
        long offset = partitionLog.logStartOffset();
        long end = partitionLog.logEndOffset();
        while (offset < end) {
            LogReadInfo info = partitionLog.read(offset, 64 * 1024, end, true);
            long next = offset;
            for (RecordBatch batch : info.records().batches()) {
                for (Record record : batch) {
                    if (record.offset() >= offset) {
                        result.add(new LogRecord(record.offset(), string(record.key()), string(record.value()),
                                record.timestamp()));
                    }
                }
                next = batch.nextOffset();
            }
            if (next <= offset) {
                fail("read at offset " + offset + " of " + partitionLog + " returned no batch");
            }
            offset = next;
        }
        return result;
    }

    /** Key to latest value after applying the records in order; a tombstone removes its key. */
    static Map<String, String> latestValues(List<LogRecord> records) {
        Map<String, String> latest = new TreeMap<>();
        for (LogRecord record : records) {
            if (record.value() == null) {
                latest.remove(record.key());
            } else {
                latest.put(record.key(), record.value());
            }
        }
        return latest;
    }

    private static String string(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, UTF_8);
    }
}
