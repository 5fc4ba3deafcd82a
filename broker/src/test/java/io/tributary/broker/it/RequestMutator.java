package io.tributary.broker.it;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Seeded byte-level mutations of serialized Kafka requests, for the protocol fuzzer ({@link ProtocolFuzzTest}).
 *
 * <p>Input: the {@linkplain FuzzCorpus.Seed seeds}, each a valid request as it travels in a frame (request header and
 * body, without the 4-byte size prefix). Output: {@link Mutant}s, each a seed changed by one to four operators:
 * <ul>
 *   <li>{@code flip}: one to four bit flips;</li>
 *   <li>{@code byte}: a byte replaced by a boundary value (0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff) or a random one;</li>
 *   <li>{@code int}: a big-endian int16, int32 or int64 boundary value written over the bytes at a position (the
 *       fixed-width lengths, counts, offsets and timeouts of the protocol);</li>
 *   <li>{@code varint}: one byte replaced by a one- to five-byte unsigned varint of a boundary value (the lengths of
 *       flexible versions: 0 is null, 0x7fffffff and 0xffffffff inflate a length far past the frame);</li>
 *   <li>{@code truncate}, {@code insert}, {@code delete}, {@code duplicate}: the frame cut short, random or boundary
 *       bytes inserted, a range removed, a range repeated in place;</li>
 *   <li>{@code header}: the API key or version replaced (another implemented or unimplemented API, an unknown key, a
 *       version just outside the range), so the body is read as something it is not;</li>
 *   <li>{@code splice}: the start of this seed joined to the end of another;</li>
 *   <li>{@code batch} (seeds that carry a record batch): a bit flip, boundary byte or boundary int inside the batch,
 *       then its CRC32C recomputed, so the damage gets past the checksum to the broker's own validation (record
 *       count, offsets, attributes, producer state, compression).</li>
 * </ul>
 * Frame sizes stay correct: the fuzzer frames each mutant with its true length (lying size prefixes are
 * {@code BadInputTest}'s subject).
 *
 * <p>Deterministic: the same seeds and the same random seed give the same mutants in the same order. Not thread-safe;
 * the fuzzer's thread only.
 */
final class RequestMutator {

    /** One mutated request: what was changed and the bytes to send. */
    record Mutant(int index, FuzzCorpus.Seed seed, byte[] bytes, List<String> operations) {

        /** For failure messages: which seed, which operators, and the bytes, enough to write a regression test. */
        String describe() {
            return "mutant #" + index + " of " + seed.name() + " by " + operations + ", " + bytes.length + " bytes: "
                    + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 512))
                    + (bytes.length > 512 ? "..." : "");
        }
    }

    /** Bytes a mutant may grow to; a duplication of a duplication should not make a megabyte frame. */
    private static final int MAX_BYTES = 16 * 1024;
    private static final byte[] BOUNDARY_BYTES = {0x00, 0x01, 0x7f, (byte) 0x80, (byte) 0xfe, (byte) 0xff};
    private static final long[] BOUNDARY_INTS = {0, 1, -1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffffL,
            0x80000000L, 0xffffffffL, Long.MAX_VALUE, Long.MIN_VALUE};
    private static final long[] BOUNDARY_VARINTS = {0, 1, 2, 0x7f, 0x80, 0x3fff, 0x4000, 0x7fffffffL, 0x80000000L,
            0xffffffffL};
    /** Batch header layout (magic v2): baseOffset 8, batchLength 4, partitionLeaderEpoch 4, magic 1, crc 4, then the
     *  CRC-covered rest from attributes on. */
    private static final int BATCH_LENGTH_OFFSET = 8;
    private static final int BATCH_CRC_OFFSET = 17;
    private static final int BATCH_ATTRIBUTES_OFFSET = 21;
    private static final int BATCH_LOG_OVERHEAD = 12;

    private final List<FuzzCorpus.Seed> seeds;
    private final short[] apiKeysToTry;
    private final Random random;

    /**
     * @param seeds        the valid requests to mutate
     * @param apiKeysToTry API keys the {@code header} operator writes besides random ones: the implemented APIs and a
     *                     few the codec knows that the broker does not implement
     * @param seed         the random seed
     */
    RequestMutator(List<FuzzCorpus.Seed> seeds, short[] apiKeysToTry, long seed) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds");
        }
        this.seeds = List.copyOf(seeds);
        this.apiKeysToTry = apiKeysToTry.clone();
        this.random = new Random(seed);
    }

    /** The next mutant; never equal to its seed. */
    Mutant next(int index) {
        FuzzCorpus.Seed seed = seeds.get(random.nextInt(seeds.size()));
        byte[] bytes = seed.bytes().clone();
        List<String> operations = new ArrayList<>();
        int count = pick(new int[] {60, 25, 10, 5}) + 1;
        for (int i = 0; i < count; i++) {
            bytes = mutateOnce(seed, bytes, operations);
            if (bytes.length > MAX_BYTES) {
                bytes = Arrays.copyOf(bytes, MAX_BYTES);
                operations.add("cap@" + MAX_BYTES);
            }
        }
        if (Arrays.equals(bytes, seed.bytes())) {
            bytes = flip(bytes, operations); // e.g. a byte replaced by the value it had
        }
        return new Mutant(index, seed, bytes, List.copyOf(operations));
    }

    private byte[] mutateOnce(FuzzCorpus.Seed seed, byte[] bytes, List<String> operations) {
        // A seed with a record batch gets the checksum-preserving operator half of the time: without it, almost every
        // change inside a batch stops at the CRC check.
        if (seed.recordsLength() > 0 && bytes.length == seed.bytes().length && random.nextBoolean()) {
            return mutateBatch(seed, bytes, operations);
        }
        if (bytes.length == 0) {
            return insert(bytes, operations);
        }
        return switch (pick(new int[] {16, 14, 14, 10, 8, 8, 6, 6, 10, 8})) {
            case 0 -> flip(bytes, operations);
            case 1 -> boundaryByte(bytes, operations);
            case 2 -> boundaryInt(bytes, operations);
            case 3 -> varint(bytes, operations);
            case 4 -> truncate(bytes, operations);
            case 5 -> insert(bytes, operations);
            case 6 -> delete(bytes, operations);
            case 7 -> duplicate(bytes, operations);
            case 8 -> header(bytes, operations);
            default -> splice(bytes, operations);
        };
    }

    private byte[] flip(byte[] bytes, List<String> operations) {
        if (bytes.length == 0) {
            return insert(bytes, operations);
        }
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
            int position = random.nextInt(bytes.length);
            int bit = random.nextInt(8);
            bytes[position] ^= (byte) (1 << bit);
            operations.add("flip@" + position + "." + bit);
        }
        return bytes;
    }

    private byte[] boundaryByte(byte[] bytes, List<String> operations) {
        int position = random.nextInt(bytes.length);
        byte value = random.nextInt(4) == 0 ? (byte) random.nextInt(256)
                : BOUNDARY_BYTES[random.nextInt(BOUNDARY_BYTES.length)];
        bytes[position] = value;
        operations.add(String.format("byte@%d=%02x", position, value & 0xff));
        return bytes;
    }

    private byte[] boundaryInt(byte[] bytes, List<String> operations) {
        int width = new int[] {2, 4, 8}[pick(new int[] {40, 45, 15})];
        int position = random.nextInt(bytes.length);
        long value = BOUNDARY_INTS[random.nextInt(BOUNDARY_INTS.length)];
        if (random.nextInt(4) == 0) {
            value = -value;
        }
        writeBigEndian(bytes, position, width, value);
        operations.add("int" + width * 8 + "@" + position + "=" + value);
        return bytes;
    }

    /** Writes the low {@code width} bytes of {@code value} at {@code position}, as far as the array goes. */
    private static void writeBigEndian(byte[] bytes, int position, int width, long value) {
        for (int i = 0; i < width && position + i < bytes.length; i++) {
            bytes[position + i] = (byte) (value >>> (8 * (width - 1 - i)));
        }
    }

    private byte[] varint(byte[] bytes, List<String> operations) {
        int position = random.nextInt(bytes.length);
        long value = BOUNDARY_VARINTS[random.nextInt(BOUNDARY_VARINTS.length)];
        ByteBuffer encoded = ByteBuffer.allocate(5);
        long rest = value;
        while ((rest & ~0x7fL) != 0) {
            encoded.put((byte) ((rest & 0x7f) | 0x80));
            rest >>>= 7;
        }
        encoded.put((byte) rest);
        byte[] result = new byte[bytes.length - 1 + encoded.position()];
        System.arraycopy(bytes, 0, result, 0, position);
        System.arraycopy(encoded.array(), 0, result, position, encoded.position());
        System.arraycopy(bytes, position + 1, result, position + encoded.position(), bytes.length - position - 1);
        operations.add("varint@" + position + "=" + value);
        return result;
    }

    private byte[] truncate(byte[] bytes, List<String> operations) {
        // Half of the cuts in the last 16 bytes (the end of the body), the rest anywhere, the header included.
        int length = random.nextBoolean() ? Math.max(0, bytes.length - 1 - random.nextInt(16))
                : random.nextInt(bytes.length);
        operations.add("truncate@" + length);
        return Arrays.copyOf(bytes, length);
    }

    private byte[] insert(byte[] bytes, List<String> operations) {
        int position = random.nextInt(bytes.length + 1);
        byte[] inserted = new byte[1 + random.nextInt(8)];
        if (random.nextBoolean()) {
            random.nextBytes(inserted);
        } else {
            Arrays.fill(inserted, BOUNDARY_BYTES[random.nextInt(BOUNDARY_BYTES.length)]);
        }
        byte[] result = new byte[bytes.length + inserted.length];
        System.arraycopy(bytes, 0, result, 0, position);
        System.arraycopy(inserted, 0, result, position, inserted.length);
        System.arraycopy(bytes, position, result, position + inserted.length, bytes.length - position);
        operations.add("insert@" + position + "+" + inserted.length);
        return result;
    }

    private byte[] delete(byte[] bytes, List<String> operations) {
        int position = random.nextInt(bytes.length);
        int length = 1 + random.nextInt(Math.min(8, bytes.length - position));
        byte[] result = new byte[bytes.length - length];
        System.arraycopy(bytes, 0, result, 0, position);
        System.arraycopy(bytes, position + length, result, position, bytes.length - position - length);
        operations.add("delete@" + position + "-" + length);
        return result;
    }

    private byte[] duplicate(byte[] bytes, List<String> operations) {
        int start = random.nextInt(bytes.length);
        int length = 1 + random.nextInt(Math.min(64, bytes.length - start));
        int times = 1 + random.nextInt(3);
        byte[] result = new byte[bytes.length + length * times];
        System.arraycopy(bytes, 0, result, 0, start + length);
        for (int i = 1; i <= times; i++) {
            System.arraycopy(bytes, start, result, start + length * i, length);
        }
        System.arraycopy(bytes, start + length, result, start + length * (times + 1), bytes.length - start - length);
        operations.add("duplicate@" + start + "+" + length + "x" + times);
        return result;
    }

    private byte[] header(byte[] bytes, List<String> operations) {
        if (bytes.length < 4) {
            return insert(bytes, operations);
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (random.nextBoolean()) {
            short key = random.nextInt(4) == 0 ? (short) (random.nextInt(200) - 10)
                    : apiKeysToTry[random.nextInt(apiKeysToTry.length)];
            buffer.putShort(0, key);
            operations.add("apiKey=" + key);
        } else {
            short version = buffer.getShort(2);
            short changed = switch (random.nextInt(5)) {
                case 0 -> (short) (version + 1);
                case 1 -> (short) (version - 1);
                case 2 -> (short) random.nextInt(20);
                case 3 -> (short) -1;
                default -> Short.MAX_VALUE;
            };
            buffer.putShort(2, changed);
            operations.add("apiVersion=" + changed);
        }
        return bytes;
    }

    private byte[] splice(byte[] bytes, List<String> operations) {
        FuzzCorpus.Seed other = seeds.get(random.nextInt(seeds.size()));
        int cut = random.nextInt(bytes.length + 1);
        int otherCut = random.nextInt(other.bytes().length + 1);
        byte[] result = new byte[cut + other.bytes().length - otherCut];
        System.arraycopy(bytes, 0, result, 0, cut);
        System.arraycopy(other.bytes(), otherCut, result, cut, other.bytes().length - otherCut);
        operations.add("splice@" + cut + "+" + other.name() + "@" + otherCut);
        return result;
    }

    /** A change inside the seed's record batch (the bytes still at the seed's layout), the CRC made to match. */
    private byte[] mutateBatch(FuzzCorpus.Seed seed, byte[] bytes, List<String> operations) {
        int start = seed.recordsOffset();
        int length = seed.recordsLength();
        int position;
        String what;
        switch (pick(new int[] {35, 30, 25, 10})) {
            case 0 -> {
                position = start + BATCH_ATTRIBUTES_OFFSET + random.nextInt(length - BATCH_ATTRIBUTES_OFFSET);
                int bit = random.nextInt(8);
                bytes[position] ^= (byte) (1 << bit);
                what = "flip." + bit;
            }
            case 1 -> {
                position = start + BATCH_ATTRIBUTES_OFFSET + random.nextInt(length - BATCH_ATTRIBUTES_OFFSET);
                bytes[position] = BOUNDARY_BYTES[random.nextInt(BOUNDARY_BYTES.length)];
                what = String.format("byte=%02x", bytes[position] & 0xff);
            }
            case 2 -> {
                // The batch header's fields from attributes on: attributes 2, lastOffsetDelta 4, baseTimestamp 8,
                // maxTimestamp 8, producerId 8, producerEpoch 2, baseSequence 4, record count 4 (offsets 21..60).
                int[][] fields = {{21, 2}, {23, 4}, {27, 8}, {35, 8}, {43, 8}, {51, 2}, {53, 4}, {57, 4}};
                int[] field = fields[random.nextInt(fields.length)];
                position = start + field[0];
                long value = BOUNDARY_INTS[random.nextInt(BOUNDARY_INTS.length)];
                writeBigEndian(bytes, position, field[1], value);
                what = "field" + field[1] * 8 + "=" + value;
            }
            default -> {
                // Outside the CRC: the batch length or the partition leader epoch (the broker overwrites the latter).
                position = start + (random.nextBoolean() ? BATCH_LENGTH_OFFSET : BATCH_LENGTH_OFFSET + 4);
                long value = BOUNDARY_INTS[random.nextInt(BOUNDARY_INTS.length)];
                writeBigEndian(bytes, position, 4, value);
                what = "header32=" + value;
            }
        }
        fixCrc(bytes, start, length);
        operations.add("batch:" + what + "@" + (position - start));
        return bytes;
    }

    /** Recomputes the CRC32C of the batch at {@code start} over its declared length, if that lies in the frame. */
    private static void fixCrc(byte[] bytes, int start, int available) {
        int batchLength = ByteBuffer.wrap(bytes).getInt(start + BATCH_LENGTH_OFFSET);
        long end = (long) start + BATCH_LOG_OVERHEAD + batchLength;
        if (batchLength < BATCH_ATTRIBUTES_OFFSET || end > start + available) {
            return; // the broker refuses the batch on its length before any CRC check
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, start + BATCH_ATTRIBUTES_OFFSET, (int) end - start - BATCH_ATTRIBUTES_OFFSET);
        ByteBuffer.wrap(bytes).putInt(start + BATCH_CRC_OFFSET, (int) crc.getValue());
    }

    /** An index drawn with the given weights. */
    private int pick(int[] weights) {
        int total = Arrays.stream(weights).sum();
        int draw = random.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            draw -= weights[i];
            if (draw < 0) {
                return i;
            }
        }
        throw new AssertionError();
    }
}
