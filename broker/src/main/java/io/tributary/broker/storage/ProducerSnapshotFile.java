package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One producer-state snapshot on disk: the state of every idempotent or transactional producer of a partition as of a log offset, that
 * is with every batch below that offset applied. The file is named by that offset, 20 zero-padded digits, like the
 * segments beside it: {@code 00000000000000004096.snapshot}.
 *
 * <h2>Format, version 2</h2>
 * All integers are big-endian.
 * <pre>
 * position  size  field
 * 0         2     format version, 2
 * 2         4     CRC32C of every byte from position 6 to the end of the file
 * 6         8     snapshot offset; must equal the offset in the file name
 * 14        4     producer count P
 * 18        ...   P producer entries in ascending producer-id order, each:
 *                   8  producer id
 *                   2  producer epoch
 *                   8  last timestamp (ms)
 *                   4  coordinator epoch of the producer's latest transaction marker, -1 if none
 *                   8  first offset of the producer's ongoing transaction, -1 if none
 *                   1  batch count B, 0 to 5
 *                   B batches of 32 bytes, oldest first, each:
 *                        4  first sequence
 *                        4  last sequence
 *                        8  first offset
 *                        8  last offset
 *                        8  max timestamp (ms)
 * </pre>
 * The file ends exactly after the last entry. A producer takes at most 31 + 5 * 32 = 191 bytes, so even 10,000 active
 * producers make a 1.9 MB file, which is why it is read and written in one buffer.
 *
 * <p>Version 1 (written before transactions) is still read: the same without the two transaction fields, which read
 * as -1. Only version 2 is written.
 *
 * <p>A file whose version is unknown, whose CRC does not match, whose offset differs from its name, or whose length
 * does not match its counts is reported as {@link CorruptSnapshotException}.
 *
 * <h2>Writing</h2>
 * {@link #write} writes {@code <name>.tmp}, forces it to disk, renames it atomically to {@code <name>} and forces the
 * directory, so after a crash the snapshot either exists complete or not at all; a leftover {@code .tmp} file is
 * never read and is removed by {@link #deleteTempFiles}.
 *
 * <p>This class only does I/O; what the state means is {@link ProducerStateManager}'s business. It holds no state of its
 * own beyond its path and is called by the manager, i.e. under the partition log's lock.
 */
final class ProducerSnapshotFile {

    static final String SUFFIX = ".snapshot";
    static final String TEMP_SUFFIX = SUFFIX + ".tmp";
    static final short VERSION = 2;
    static final short VERSION_1 = 1;

    private static final Logger log = LoggerFactory.getLogger(ProducerSnapshotFile.class);
    private static final int OFFSET_DIGITS = 20;
    private static final int VERSION_SIZE = 2;
    private static final int CRC_SIZE = 4;
    private static final int CHECKED_FROM = VERSION_SIZE + CRC_SIZE;
    private static final int HEADER_SIZE = CHECKED_FROM + 8 + 4;
    private static final int ENTRY_HEADER_SIZE_V1 = 8 + 2 + 8 + 1;
    private static final int ENTRY_HEADER_SIZE = ENTRY_HEADER_SIZE_V1 + 4 + 8;
    private static final int BATCH_SIZE = 4 + 4 + 8 + 8 + 8;

    private final long offset;
    private final Path path;

    private ProducerSnapshotFile(long offset, Path path) {
        this.offset = offset;
        this.path = path;
    }

    /** The snapshot for {@code offset} in {@code dir}, whether or not it exists yet. */
    static ProducerSnapshotFile at(Path dir, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("Snapshot offset must not be negative: " + offset + " in " + dir);
        }
        return new ProducerSnapshotFile(offset, dir.resolve(fileName(offset)));
    }

    /** The complete snapshots in {@code dir} by offset; other files, including temporary ones, are ignored. */
    static NavigableMap<Long, ProducerSnapshotFile> listIn(Path dir) throws IOException {
        NavigableMap<Long, ProducerSnapshotFile> snapshots = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path file : files) {
                long offset = offsetOf(file.getFileName().toString(), SUFFIX);
                if (offset >= 0) {
                    snapshots.put(offset, new ProducerSnapshotFile(offset, file));
                }
            }
        }
        return snapshots;
    }

    /** Removes the {@code .tmp} files that a crash in the middle of {@link #write} leaves behind. */
    static void deleteTempFiles(Path dir) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + TEMP_SUFFIX)) {
            for (Path file : files) {
                if (offsetOf(file.getFileName().toString(), TEMP_SUFFIX) >= 0) {
                    log.info("Deleting incomplete producer snapshot {}", file);
                    Files.deleteIfExists(file);
                }
            }
        }
    }

    static String fileName(long offset) {
        return String.format("%0" + OFFSET_DIGITS + "d", offset) + SUFFIX;
    }

    /** The offset in a name of the form {@code <20 digits><suffix>}, or -1 if the name has another form. */
    private static long offsetOf(String fileName, String suffix) {
        if (fileName.length() != OFFSET_DIGITS + suffix.length() || !fileName.endsWith(suffix)) {
            return -1;
        }
        String digits = fileName.substring(0, OFFSET_DIGITS);
        if (!digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException tooLarge) {
            return -1;
        }
    }

    long offset() {
        return offset;
    }

    Path path() {
        return path;
    }

    boolean exists() {
        return Files.exists(path);
    }

    /** Writes {@code entries} as this snapshot, atomically (see the class comment). */
    void write(Collection<ProducerStateEntry> entries) throws IOException {
        ByteBuffer content = encode(offset, entries);
        Path temp = path.resolveSibling(path.getFileName() + ".tmp");
        boolean renamed = false;
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                while (content.hasRemaining()) {
                    channel.write(content);
                }
                channel.force(true);
            }
            Files.move(temp, path, StandardCopyOption.ATOMIC_MOVE);
            renamed = true;
            forceDirectory(path.getParent());
        } finally {
            if (!renamed) {
                Files.deleteIfExists(temp);
            }
        }
    }

    /** The entries of this snapshot. */
    List<ProducerStateEntry> read() throws IOException {
        return decode(path, offset, Files.readAllBytes(path));
    }

    void delete() throws IOException {
        Files.deleteIfExists(path);
    }

    static ByteBuffer encode(long offset, Collection<ProducerStateEntry> entries) {
        List<ProducerStateEntry> sorted = new ArrayList<>(entries);
        // Sorted so that the same state always gives the same bytes, which makes files comparable when debugging.
        sorted.sort(Comparator.comparingLong(ProducerStateEntry::producerId));
        int size = HEADER_SIZE;
        for (ProducerStateEntry entry : sorted) {
            size += ENTRY_HEADER_SIZE + entry.batches().size() * BATCH_SIZE;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putShort(VERSION);
        buffer.putInt(0); // the CRC, filled in below
        buffer.putLong(offset);
        buffer.putInt(sorted.size());
        for (ProducerStateEntry entry : sorted) {
            buffer.putLong(entry.producerId());
            buffer.putShort(entry.producerEpoch());
            buffer.putLong(entry.lastTimestamp());
            buffer.putInt(entry.coordinatorEpoch());
            buffer.putLong(entry.currentTxnFirstOffset());
            buffer.put((byte) entry.batches().size());
            for (BatchMetadata batch : entry.batches()) {
                buffer.putInt(batch.firstSequence());
                buffer.putInt(batch.lastSequence());
                buffer.putLong(batch.firstOffset());
                buffer.putLong(batch.lastOffset());
                buffer.putLong(batch.maxTimestamp());
            }
        }
        buffer.putInt(VERSION_SIZE, crcOf(buffer.array(), size));
        return buffer.flip();
    }

    /** Decodes a snapshot read from {@code path}, which must be the snapshot for {@code expectedOffset}. */
    static List<ProducerStateEntry> decode(Path path, long expectedOffset, byte[] content)
            throws CorruptSnapshotException {
        ByteBuffer buffer = ByteBuffer.wrap(content);
        try {
            short version = buffer.getShort();
            if (version != VERSION && version != VERSION_1) {
                throw new CorruptSnapshotException(path, "unknown format version " + version);
            }
            int storedCrc = buffer.getInt();
            int actualCrc = crcOf(content, content.length);
            if (storedCrc != actualCrc) {
                throw new CorruptSnapshotException(path, String.format(
                        "CRC32C mismatch, stored %08x, computed %08x", storedCrc, actualCrc));
            }
            long offset = buffer.getLong();
            if (offset != expectedOffset) {
                throw new CorruptSnapshotException(path, "holds the state at offset " + offset
                        + " but is named for offset " + expectedOffset);
            }
            int producerCount = buffer.getInt();
            // Bounds the list below by what the file can hold, so a bad count cannot make us allocate gigabytes.
            int entryHeaderSize = version == VERSION_1 ? ENTRY_HEADER_SIZE_V1 : ENTRY_HEADER_SIZE;
            if (producerCount < 0 || producerCount > buffer.remaining() / entryHeaderSize) {
                throw new CorruptSnapshotException(path, "invalid producer count " + producerCount);
            }
            List<ProducerStateEntry> entries = new ArrayList<>(producerCount);
            for (int i = 0; i < producerCount; i++) {
                long producerId = buffer.getLong();
                short epoch = buffer.getShort();
                long lastTimestamp = buffer.getLong();
                int coordinatorEpoch = version == VERSION_1 ? ProducerStateEntry.NO_COORDINATOR_EPOCH
                        : buffer.getInt();
                long txnFirstOffset = version == VERSION_1 ? ProducerStateEntry.NO_TXN : buffer.getLong();
                int batchCount = buffer.get();
                if (batchCount < 0 || batchCount > ProducerStateEntry.RETAINED_BATCHES) {
                    throw new CorruptSnapshotException(path, "producer " + producerId + " has invalid batch count "
                            + batchCount);
                }
                List<BatchMetadata> batches = new ArrayList<>(batchCount);
                for (int b = 0; b < batchCount; b++) {
                    batches.add(new BatchMetadata(buffer.getInt(), buffer.getInt(), buffer.getLong(),
                            buffer.getLong(), buffer.getLong()));
                }
                entries.add(new ProducerStateEntry(producerId, epoch, lastTimestamp, batches, coordinatorEpoch,
                        txnFirstOffset));
            }
            if (buffer.hasRemaining()) {
                throw new CorruptSnapshotException(path, buffer.remaining() + " unexpected bytes after the last entry");
            }
            return entries;
        } catch (BufferUnderflowException e) {
            throw new CorruptSnapshotException(path, "file ends in the middle of an entry");
        }
    }

    private static int crcOf(byte[] bytes, int end) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, CHECKED_FROM, Math.max(0, end - CHECKED_FROM));
        return (int) crc.getValue();
    }

    /** Makes the rename durable. */
    private static void forceDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory as a channel; there the rename is as durable as the
            // file system makes it, which is the best available.
            log.debug("Could not force directory {} to disk", dir, e);
        }
    }

    @Override
    public String toString() {
        return path.toString();
    }

    /** A snapshot file that cannot be trusted; the state it held can be rebuilt from the log. */
    static final class CorruptSnapshotException extends IOException {

        CorruptSnapshotException(Path path, String reason) {
            super("Corrupt producer snapshot " + path + ": " + reason);
        }
    }
}
