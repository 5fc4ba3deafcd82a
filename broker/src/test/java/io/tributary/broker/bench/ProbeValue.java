package io.tributary.broker.bench;

import java.nio.ByteBuffer;

/**
 * The value of every record the failover benchmark writes: which partition it was sent to, its sequence number in
 * that partition, and when it was handed to the producer. Reading it back is how the benchmark matches the log
 * against what was acknowledged.
 *
 * <p>Format, {@value #BYTES} bytes, big-endian: int magic {@code 0x54464231} ("TFB1"), int partition, long sequence
 * number (dense per partition, from 0), long send time (epoch milliseconds). Anything else (another length, another
 * magic) is not a probe, and {@link #decode} returns null. Immutable.
 */
record ProbeValue(int partition, long sequence, long sentAtMs) {

    static final int BYTES = 24;
    private static final int MAGIC = 0x54464231;

    byte[] encode() {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putInt(partition).putLong(sequence).putLong(sentAtMs).array();
    }

    /** @return the probe in {@code value}, or null if {@code value} is not one */
    static ProbeValue decode(byte[] value) {
        if (value == null || value.length != BYTES) {
            return null;
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        if (buffer.getInt() != MAGIC) {
            return null;
        }
        return new ProbeValue(buffer.getInt(), buffer.getLong(), buffer.getLong());
    }
}
