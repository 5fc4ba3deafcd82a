package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.ByteBuffer;
import java.util.Random;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class SnappyFramingTest {

    private static final byte[] HEADER = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};

    @Test
    void whatKafkaClientsWritesPasses() {
        Random random = new Random(3);
        for (int records : new int[] {1, 10, 500}) {
            SimpleRecord[] batch = new SimpleRecord[records];
            for (int i = 0; i < records; i++) {
                byte[] value = new byte[random.nextInt(2000)];
                random.nextBytes(value);
                batch[i] = new SimpleRecord(i, ("k" + i).getBytes(), i % 2 == 0 ? value : new byte[value.length]);
            }
            MemoryRecords written = MemoryRecords.withRecords(Compression.snappy().build(), batch);
            assertNull(SnappyFraming.problem(body(written)), records + " records");
        }
    }

    @Test
    void lengthsBeyondTheBodyAreProblems() {
        // chunk lengths: past the end, negative
        assertNotNull(SnappyFraming.problem(ByteBuffer.allocate(24).put(HEADER).putInt(5).put(new byte[] {1, 0, 0, 0})
                .flip()));
        assertNotNull(SnappyFraming.problem(ByteBuffer.allocate(24).put(HEADER).putInt(-7).put(new byte[4]).flip()));
        // an uncompressed length that no snappy block of that size can hold: 4 bytes claiming 100
        assertNotNull(SnappyFraming.problem(ByteBuffer.allocate(24).put(HEADER).putInt(4)
                .put(new byte[] {100, 0, 0, 0}).flip()));
        // a varint that does not end within its block
        assertNotNull(SnappyFraming.problem(ByteBuffer.allocate(23).put(HEADER).putInt(3)
                .put(new byte[] {(byte) 0x80, (byte) 0x80, (byte) 0x80}).flip()));
        // raw snappy (no header) claiming 2 GB
        assertNotNull(SnappyFraming.problem(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff,
            (byte) 0xff, 0x07, 0})));
    }

    @Test
    void concatenatedStreamsAndTrailingBytesAreAsTheDecompressorReadsThem() {
        ByteBuffer concatenated = ByteBuffer.allocate(16 + 6 + 16 + 6 + 3).put(HEADER).putInt(2).put(new byte[] {1, 0})
                .put(HEADER).putInt(2).put(new byte[] {1, 0}).put(new byte[3]).flip();
        assertNull(SnappyFraming.problem(concatenated));
        ByteBuffer cutHeader = ByteBuffer.allocate(16 + 6 + 10).put(HEADER).putInt(2).put(new byte[] {1, 0})
                .put(HEADER, 0, 10).flip();
        assertNotNull(SnappyFraming.problem(cutHeader));
    }

    private static ByteBuffer body(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        return buffer.position(buffer.position() + DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    }
}
