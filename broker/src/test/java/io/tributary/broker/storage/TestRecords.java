package io.tributary.broker.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds record batches for storage tests and turns what the log returns back into plain values to compare. */
final class TestRecords {

    private TestRecords() {
    }

    /** One record as a test expects to read it back. */
    record Expected(long offset, long timestamp, String key, String value) {
    }

    /** Keys {@code key-<n>} and values {@code value-<n>} for n = first .. first + count - 1, all with {@code timestamp}. */
    static SimpleRecord[] simpleRecords(int first, int count, long timestamp) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(timestamp, utf8("key-" + (first + i)), utf8("value-" + (first + i)));
        }
        return records;
    }

    /** One magic v2 batch whose offsets start at {@code baseOffset} (as a leader or follower has assigned them). */
    static MemoryRecords batchAt(long baseOffset, Compression compression, SimpleRecord... records) {
        return MemoryRecords.withRecords(baseOffset, compression, records);
    }

    /** The batches of {@code parts} back to back in one buffer, as one append or one fetch response carries them. */
    static MemoryRecords concat(MemoryRecords... parts) {
        int size = 0;
        for (MemoryRecords part : parts) {
            size += part.sizeInBytes();
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (MemoryRecords part : parts) {
            buffer.put(part.buffer().duplicate());
        }
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    static String string(ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The bytes of {@code records}, whether a slice of a segment file or a heap buffer. */
    static byte[] bytes(Records records) {
        ByteBuffer buffer = ByteBuffer.allocate(records.sizeInBytes());
        if (records instanceof FileRecords file) {
            try {
                file.readInto(buffer, 0);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else if (records instanceof MemoryRecords memory) {
            buffer.put(memory.buffer().duplicate()).flip();
        } else {
            throw new IllegalArgumentException("unexpected records type " + records.getClass());
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    static byte[] bytes(RecordBatch batch) {
        ByteBuffer buffer = ByteBuffer.allocate(batch.sizeInBytes());
        batch.writeTo(buffer);
        return buffer.array();
    }

    /** Every record of the whole batches in {@code records} (a trailing partial batch is ignored, as clients do). */
    static List<Expected> decode(Records records) {
        List<Expected> result = new ArrayList<>();
        for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes(records))).batches()) {
            batch.ensureValid();
            for (Record record : batch) {
                result.add(new Expected(record.offset(), record.timestamp(), string(record.key()),
                        string(record.value())));
            }
        }
        return result;
    }

    /** The whole batches in {@code records}, in order. */
    static List<RecordBatch> batches(Records records) {
        List<RecordBatch> result = new ArrayList<>();
        for (RecordBatch batch : MemoryRecords.readableRecords(ByteBuffer.wrap(bytes(records))).batches()) {
            result.add(batch);
        }
        return result;
    }
}
