package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The aborted-transaction index of one segment, {@code <base offset>.txnindex}: one entry per ABORT marker in the
 * segment, in marker order, so that a read_committed fetch can tell the consumer which producers' records of the
 * range it reads were aborted without reading the range twice.
 *
 * <h2>Format</h2>
 * Kafka's: entries of 34 bytes back to back, no header, big-endian:
 * <pre>
 * size  field
 * 2     entry version, 0
 * 8     producer id
 * 8     first offset of the aborted transaction
 * 8     offset of its ABORT marker (the last offset)
 * 8     last stable offset once the marker was written ({@link AbortedTxn#lastStableOffset()})
 * </pre>
 * The file is created at the first abort in the segment (most segments have none and get no file). It is derived
 * data: recovery deletes the files of the segments it scans and the producer-state replay writes them again
 * ({@link #append} ignores an entry whose marker is not after the last one, which makes the replay idempotent over
 * files that are intact). A torn entry at the end of a file (a crash mid-write) is ignored when reading.
 *
 * <h2>Threads</h2>
 * Written by the log's appending thread under its lock; {@link #entries()} may be called from any thread (fetch) and
 * returns an immutable snapshot. Aborts are rare, so the entries are kept in memory whole (34 bytes each) and the file
 * is opened only to append, rewrite or sync; the index holds no file descriptor between calls.
 */
final class TransactionIndex {

    private static final Logger log = LoggerFactory.getLogger(TransactionIndex.class);

    static final int ENTRY_SIZE = 2 + 8 + 8 + 8 + 8;
    static final short ENTRY_VERSION = 0;

    private volatile Path file;
    /** Immutable, replaced by the writer. */
    private volatile List<AbortedTxn> entries;
    /** Appended since the last {@link #flush}; the writer's. */
    private boolean dirty;

    private TransactionIndex(Path file, List<AbortedTxn> entries) {
        this.file = file;
        this.entries = entries;
    }

    /** The index in {@code file}, read whole if it exists. */
    static TransactionIndex open(Path file) throws IOException {
        List<AbortedTxn> entries = new ArrayList<>();
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new TransactionIndex(file, List.of());
        }
        ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.remaining() >= ENTRY_SIZE) {
            short version = buffer.getShort();
            if (version != ENTRY_VERSION) {
                throw new CorruptIndexException(file, "entry of unknown version " + version + " at byte "
                        + (buffer.position() - 2));
            }
            entries.add(new AbortedTxn(buffer.getLong(), buffer.getLong(), buffer.getLong(), buffer.getLong()));
        }
        if (buffer.hasRemaining()) {
            log.warn("Transaction index {} ends in a partial entry of {} bytes; ignoring it", file,
                    buffer.remaining());
        }
        return new TransactionIndex(file, List.copyOf(entries));
    }

    Path file() {
        return file;
    }

    /** The aborted transactions of this segment, in marker order. */
    List<AbortedTxn> entries() {
        return entries;
    }

    /**
     * Adds an aborted transaction whose marker is in this segment, unless its marker is not after the last entry's
     * (a replay over an intact index).
     */
    void append(AbortedTxn txn) throws IOException {
        List<AbortedTxn> current = entries;
        if (!current.isEmpty() && txn.lastOffset() <= current.get(current.size() - 1).lastOffset()) {
            return;
        }
        ByteBuffer buffer = ByteBuffer.allocate(ENTRY_SIZE);
        put(buffer, txn);
        buffer.flip();
        // A file that does not end at an entry boundary (a torn write, read past) is cut back first.
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long end = (long) current.size() * ENTRY_SIZE;
            channel.truncate(end);
            channel.position(end);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
        List<AbortedTxn> updated = new ArrayList<>(current);
        updated.add(txn);
        entries = List.copyOf(updated);
        dirty = true;
    }

    private static void put(ByteBuffer buffer, AbortedTxn txn) {
        buffer.putShort(ENTRY_VERSION);
        buffer.putLong(txn.producerId());
        buffer.putLong(txn.firstOffset());
        buffer.putLong(txn.lastOffset());
        buffer.putLong(txn.lastStableOffset());
    }

    /** Removes the entries whose marker is at or above {@code offset} (log truncation). */
    void truncateTo(long offset) throws IOException {
        List<AbortedTxn> current = entries;
        int keep = 0;
        while (keep < current.size() && current.get(keep).lastOffset() < offset) {
            keep++;
        }
        if (keep == current.size()) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate((long) keep * ENTRY_SIZE);
        } catch (NoSuchFileException e) {
            // Deleted under us (a recovery discards it): nothing to cut.
        }
        entries = List.copyOf(current.subList(0, keep));
        dirty = true;
    }

    /** Forces appended entries to disk. */
    void flush() throws IOException {
        if (!dirty) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        } catch (NoSuchFileException e) {
            // Truncated to nothing and deleted meanwhile.
        }
        dirty = false;
    }

    /** Renames the file (if there is one) to {@code target}. */
    void renameTo(Path target) throws IOException {
        if (Files.exists(file)) {
            Files.move(file, target, StandardCopyOption.ATOMIC_MOVE);
        }
        file = target;
    }

    void deleteIfExists() throws IOException {
        Files.deleteIfExists(file);
    }

    /**
     * Adds to {@code into} the entries of this segment that overlap {@code [fetchOffset, upperBound)}.
     *
     * @return whether the search can stop here: an entry's last stable offset reached {@code upperBound}, so every
     *         transaction starting below it ended at or before that entry's marker (Kafka's rule)
     */
    boolean collect(long fetchOffset, long upperBound, List<AbortedTxn> into) {
        for (AbortedTxn txn : entries) {
            if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBound) {
                into.add(txn);
            }
            if (txn.lastStableOffset() >= upperBound) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "TransactionIndex(" + file + ", " + entries.size() + " entries)";
    }
}
