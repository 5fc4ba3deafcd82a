package io.tributary.broker.storage;

import java.nio.ByteBuffer;

/**
 * Checks the lengths in a snappy-compressed batch body before anything decompresses it. The decompressor
 * (snappy-java's {@code SnappyInputStream}, which kafka-clients uses) allocates what these lengths claim before it
 * reads the bytes they describe: a 150-byte batch claiming a 400 MB chunk allocated 400 MB and took 3 s to fail,
 * one claiming 2 GB of uncompressed data threw OutOfMemoryError on the request thread (measured with kafka-clients
 * 4.4 and snappy-java 1.1.10.7). Checked here, every allocation is bounded by the batch's own size.
 *
 * <p>Format (snappy-java's framing, what Kafka producers write): a 16-byte header (the magic
 * {@code 82 'S' 'N' 'A' 'P' 'P' 'Y' 00}, then a version and a compatible version, int32 each), then chunks, each an
 * int32 length and that many bytes of raw snappy; a header may appear again between chunks (concatenated streams),
 * and fewer than 4 bytes after the last chunk are ignored. Without the magic, the whole body is one raw snappy block.
 * A raw snappy block starts with its uncompressed length as an unsigned varint; since no snappy element emits more
 * than 64 bytes for 3 bytes of input (a copy with a 2-byte offset), a valid block of {@code n} bytes holds at most
 * {@code 64n/3} bytes, and a larger claim is refused.
 *
 * <p>Stateless; any thread.
 */
final class SnappyFraming {

    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    private static final int MAGIC_HEAD = ByteBuffer.wrap(MAGIC).getInt();
    private static final int HEADER_BYTES = 16;
    /** At most 64 bytes out per 3 bytes in, rounded up. */
    private static final long MAX_EXPANSION = 22;

    private SnappyFraming() {
    }

    /**
     * @param body the compressed records of one batch, from its position to its limit (not changed)
     * @return why the lengths cannot be right, or null if every one fits in the body
     */
    static String problem(ByteBuffer body) {
        int start = body.position();
        int limit = body.limit();
        if (!hasMagic(body, start)) {
            return rawBlockProblem(body, start, limit - start);
        }
        int position = start;
        while (limit - position >= 4) {
            int length = body.getInt(position);
            if (length == MAGIC_HEAD && hasMagic(body, position)) {
                if (limit - position < HEADER_BYTES) {
                    return "a snappy stream header cut short at byte " + (position - start);
                }
                position += HEADER_BYTES;
                continue;
            }
            if (length < 0 || length > limit - position - 4) {
                return "a snappy chunk at byte " + (position - start) + " claims " + length + " bytes, "
                        + (limit - position - 4) + " follow";
            }
            String raw = rawBlockProblem(body, position + 4, length);
            if (raw != null) {
                return raw;
            }
            position += 4 + length;
        }
        return null;
    }

    private static boolean hasMagic(ByteBuffer body, int position) {
        if (body.limit() - position < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (body.get(position + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    /** The raw snappy block of {@code length} bytes at {@code position}: its claimed uncompressed length. */
    private static String rawBlockProblem(ByteBuffer body, int position, int length) {
        long claimed = 0;
        for (int i = 0; ; i++) {
            if (i >= length || i == 5) {
                return "a snappy block of " + length + " bytes without a valid length";
            }
            int b = body.get(position + i) & 0xff;
            claimed |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                break;
            }
        }
        if (claimed > MAX_EXPANSION * length) {
            return "a snappy block of " + length + " bytes claims " + claimed + " bytes uncompressed";
        }
        return null;
    }
}
