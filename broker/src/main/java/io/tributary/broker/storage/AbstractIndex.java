package io.tributary.broker.storage;

import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sparse, memory-mapped index file of fixed-size entries sorted by key, the common part of {@link OffsetIndex}
 * and {@link TimeIndex}.
 *
 * <p>Length on disk: while its segment is active the file is preallocated, as a sparse file, to
 * {@code segment.index.bytes} (rounded down to whole entries); it is trimmed to its entries when the segment is rolled
 * and when it is closed. The length of a file found on disk therefore gives its entry count, and opening one reads its
 * last two entries for a sanity check ({@link #lastEntryProblem}) and nothing else. Reading a file to find where its
 * entries end, as this class once did, cost one page fault per 4 KiB of a preallocated 10 MiB file: after an unclean
 * restart with 61 mostly empty partitions 1.17 GB of the broker's 1.32 GB resident set was index pages, and on a full
 * tmpfs reading a hole through a mapping is a SIGBUS. A file still preallocated (its segment was active at a crash, or
 * the index could not be completed, below) ends in zero-filled slots, which the check refuses; {@link LogSegment}
 * then rebuilds the index from the log. The indexes of the segments a crash recovery scans are not opened at all:
 * recovery rebuilds them.
 *
 * <p>Entries are derived data, never the only copy of anything: a missing file, or one whose last entry is out of
 * order or zero-filled, is rebuilt from the log by {@link LogSegment}. Entries before the last are not checked. A
 * zero-filled slot among them (the only damage a crash leaves in a trimmed file, which is flushed before the recovery
 * point passes its segment) only makes a lookup start from the beginning of the segment, because a lookup never
 * returns an entry whose key is above the target.
 *
 * <p>Stores through the mapping go only to pages that a {@code write(2)} of zeros has given storage first
 * ({@link #allocateThrough}): a store into a hole of a sparse file makes the file system allocate a block in the page
 * fault, and when it has none the fault is a SIGBUS (an {@link InternalError} in Java at best), where a write is an
 * ordinary {@link IOException}. An index that could not allocate takes no more entries (it is sparse, so lookups only
 * scan further), and keeps its preallocated length when it is trimmed or closed so that the next open rebuilds it.
 *
 * <p>Threads: one writer (the partition log's appending thread, under the log's lock) appends, truncates and resizes;
 * lookups may run on any thread concurrently and see a consistent prefix of entries because {@link #entries} is
 * published after the entry bytes are written. Resizing and closing take {@link #lock}, and so do lookups, so that a
 * lookup never reads an unmapped buffer.
 */
abstract class AbstractIndex implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(AbstractIndex.class);

    /**
     * How far ahead of the entries {@link #allocateThrough} writes zeros: one page, the unit in which a store through
     * the mapping needs storage. An offset index fills a page every 512 entries, one per 2 MiB of log at the default
     * {@code index.interval.bytes}, so the extra write is rare.
     */
    static final int ALLOCATION_CHUNK_BYTES = 4096;

    protected final long baseOffset;
    private final int maxIndexSize;
    private final int entrySize;
    protected final ReentrantLock lock = new ReentrantLock();

    private volatile Path file;
    private MappedByteBuffer mmap;
    /** Number of valid entries; written by the appending thread under {@link #lock}. */
    protected volatile int entries;
    /** Bytes from the start of the file that have storage (written with {@code write(2)}); under {@link #lock}. */
    private long allocatedBytes;
    /**
     * Whether an entry was dropped because its page could not be allocated; under {@link #lock}. Cleared by
     * {@link #reset}, when the index is rebuilt from scratch.
     */
    private boolean incomplete;
    private boolean closed;

    /**
     * Opens the index in {@code file}: a new file is created and preallocated; an existing one is taken as it is, its
     * length giving the number of entries, after the sanity check of its last entries.
     *
     * @throws CorruptIndexException if the file is not whole entries or fails the sanity check
     */
    AbstractIndex(Path file, long baseOffset, int maxIndexSize, int entrySize) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySize = entrySize;
        this.maxIndexSize = Math.max(entrySize, maxIndexSize / entrySize * entrySize);
        boolean created = !Files.exists(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long length = raf.length();
            int mapped;
            if (created) {
                // Sparse: setLength allocates no storage, allocateThrough does, a page at a time.
                raf.setLength(this.maxIndexSize);
                mapped = this.maxIndexSize;
                this.entries = 0;
            } else {
                if (length % entrySize != 0 || length > Integer.MAX_VALUE) {
                    throw new CorruptIndexException(file, "length " + length + " is not a multiple of " + entrySize);
                }
                int count = (int) (length / entrySize);
                if (count > 0) {
                    int last = Math.min(count, 2) - 1;
                    String problem = lastEntryProblem(readEntries(raf.getChannel(), count - 1 - last, last + 1), last);
                    if (problem != null) {
                        throw new CorruptIndexException(file, problem + " (" + count + " entries)");
                    }
                }
                // Mapped at its length: a file of a segment that is not active is only read, and growToMaximum
                // makes room when the segment becomes active again.
                mapped = (int) length;
                this.entries = count;
                this.allocatedBytes = length;
            }
            this.mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, mapped);
        }
    }

    /**
     * Reads {@code count} entries from entry {@code first} on with {@code pread}, not through a mapping: in a file
     * left preallocated they are holes, and reading a hole through a mapping allocates a page (on tmpfs even storage,
     * a SIGBUS when it is full).
     */
    private ByteBuffer readEntries(FileChannel channel, int first, int count) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(count * entrySize);
        long position = (long) first * entrySize;
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, position + buffer.position());
            if (read < 0) {
                throw new CorruptIndexException(file, "shorter than its length while being read");
            }
        }
        return buffer.flip();
    }

    /** Key of entry {@code n} in this index's order (relative offset or timestamp). */
    protected abstract long keyAt(ByteBuffer buffer, int n);

    /** Checks that entry {@code n} may follow entry {@code n - 1}; called only for {@code n > 0}. */
    protected abstract boolean followsInOrder(ByteBuffer buffer, int n);

    /**
     * The sanity check of a file found on disk, as a decision on its last entries only: what is wrong with entry
     * {@code last} of {@code entries} (which holds the file's last entry there, and the one before it at
     * {@code last - 1} if the file has two or more), or null if nothing is. A zero-filled last slot must be refused:
     * it is what a file left preallocated ends in.
     */
    protected abstract String lastEntryProblem(ByteBuffer entries, int last);

    /** Slots kept free at the end for entries that must always fit ({@link TimeIndex}: the entry at roll). */
    protected int reservedEntries() {
        return 0;
    }

    protected ByteBuffer buffer() {
        return mmap;
    }

    protected final int entrySize() {
        return entrySize;
    }

    int entries() {
        return entries;
    }

    int maxEntries() {
        return mmap.limit() / entrySize;
    }

    /** Whether the index has no slot left for a regular entry; the segment rolls then. */
    boolean isFull() {
        return entries >= maxEntries() - reservedEntries();
    }

    /** Whether an entry was dropped because the file system had no room for its page (see the class comment). */
    boolean isIncomplete() {
        lock.lock();
        try {
            return incomplete;
        } finally {
            lock.unlock();
        }
    }

    Path file() {
        return file;
    }

    long sizeInBytes() {
        return (long) entries * entrySize;
    }

    /**
     * Index of the last entry whose key is at most {@code target}, or -1 if the first entry's key is already larger.
     * Callers hold {@link #lock}.
     */
    protected int largestLowerBound(long target) {
        int count = entries;
        if (count == 0 || keyAt(mmap, 0) > target) {
            return -1;
        }
        int low = 0;
        int high = count - 1;
        while (low < high) {
            int mid = (low + high + 1) >>> 1;
            if (keyAt(mmap, mid) <= target) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return low;
    }

    /**
     * Writes the next entry's bytes through {@code writer}, then publishes it; drops the entry instead if its page
     * cannot be given storage (a full file system), as it drops every later one. The appending thread only.
     *
     * @throws IllegalStateException if every slot is taken or the index is closed
     */
    protected void appendEntry(java.util.function.Consumer<ByteBuffer> writer) {
        lock.lock();
        try {
            ensureOpen();
            if (entries >= maxEntries()) {
                throw new IllegalStateException("index " + file + " is full (" + entries + " entries)");
            }
            // The reserved slots are allocated with the regular entries, so that the entry written into them at a
            // roll does not meet a full file system unless the first one did.
            if (incomplete || !allocateThrough((long) (entries + 1 + reservedEntries()) * entrySize)) {
                return;
            }
            ByteBuffer slot = mmap.duplicate();
            slot.position(entries * entrySize);
            writer.accept(slot);
            entries++;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Gives storage to the file's bytes up to {@code end} (capped at the mapping), a page at a time, by writing zeros
     * with {@code write(2)} ahead of the entries. Only bytes past {@link #allocatedBytes} are written, and no entry
     * lies there. Returns false, and marks the index incomplete, if the write fails. Caller holds {@link #lock}.
     */
    private boolean allocateThrough(long end) {
        long target = Math.min(mmap.limit(),
                (end + ALLOCATION_CHUNK_BYTES - 1) / ALLOCATION_CHUNK_BYTES * ALLOCATION_CHUNK_BYTES);
        if (target <= allocatedBytes) {
            return true;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer zeros = ByteBuffer.allocate((int) (target - allocatedBytes));
            while (zeros.hasRemaining()) {
                channel.write(zeros, allocatedBytes + zeros.position());
            }
        } catch (IOException e) {
            incomplete = true;
            log.warn("Index {}: no storage for bytes {} to {} ({}); it takes no more entries, which only makes lookups "
                    + "scan further, and is rebuilt from the log when it is next opened", file, allocatedBytes, target,
                    e.getMessage());
            return false;
        }
        allocatedBytes = target;
        return true;
    }

    /** Drops every entry from {@code n} on. */
    protected void truncateToEntries(int n) {
        lock.lock();
        try {
            ensureOpen();
            int keep = Math.max(0, Math.min(n, entries));
            for (int i = keep * entrySize; i < entries * entrySize; i++) {
                mmap.put(i, (byte) 0);
            }
            entries = keep;
        } finally {
            lock.unlock();
        }
    }

    /** Drops every entry, before the index is rebuilt from the log; it may take entries again after a failure. */
    void reset() {
        lock.lock();
        try {
            truncateToEntries(0);
            incomplete = false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Shrinks the file to its entries, e.g. when the segment stops being the active one. An incomplete index keeps
     * its preallocated length: trimmed, it would pass the next open's sanity check without the entries it lacks (the
     * time index's last entry gives a reopened segment its largest timestamp); untrimmed, it ends in zero-filled
     * slots and is rebuilt.
     */
    void trimToValidSize() throws IOException {
        lock.lock();
        try {
            if (!incomplete) {
                resize((int) sizeInBytes());
            }
        } finally {
            lock.unlock();
        }
    }

    /** Grows the file back to its maximum size (sparse) so that a segment that is active again can take entries. */
    void growToMaximum() throws IOException {
        resize(maxIndexSize);
    }

    private void resize(int newSize) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            int size = Math.max(newSize, (int) sizeInBytes());
            if (size == mmap.limit()) {
                return;
            }
            mmap.force();
            unmap(mmap);
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(size);
                // A zero-length mapping is legal and keeps lookups simple.
                mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
            }
            allocatedBytes = Math.min(allocatedBytes, size);
        } finally {
            lock.unlock();
        }
    }

    void flush() {
        lock.lock();
        try {
            if (!closed) {
                mmap.force();
            }
        } finally {
            lock.unlock();
        }
    }

    void renameTo(Path target) throws IOException {
        lock.lock();
        try {
            if (Files.exists(file)) {
                Files.move(file, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            file = target;
        } finally {
            lock.unlock();
        }
    }

    /** Closes and deletes the file; idempotent. */
    void deleteIfExists() throws IOException {
        closeWithoutTrim();
        Files.deleteIfExists(file);
    }

    /** Trims the file to its entries (unless it is incomplete) and releases the mapping; idempotent. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            trimToValidSize();
            closeWithoutTrim();
        } finally {
            lock.unlock();
        }
    }

    /** Releases the mapping without touching the file, as after an I/O error; idempotent. */
    void closeWithoutTrim() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                unmap(mmap);
            }
        } finally {
            lock.unlock();
        }
    }

    protected void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("index " + file + " is closed");
        }
    }

    // Unmapping: without it a trimmed or deleted index keeps its pages mapped until a garbage collection happens to
    // free the buffer, and Windows cannot even delete the file. sun.misc.Unsafe.invokeCleaner is the supported-
    // in-practice way on JDK 9+ (module jdk.unsupported, exported); without it the GC still frees the mapping.
    private static final Object UNSAFE;
    private static final Method INVOKE_CLEANER;

    static {
        Object unsafe = null;
        Method invokeCleaner = null;
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            Field field = unsafeClass.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            unsafe = field.get(null);
            invokeCleaner = unsafeClass.getMethod("invokeCleaner", ByteBuffer.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            unsafe = null;
            invokeCleaner = null;
        }
        UNSAFE = unsafe;
        INVOKE_CLEANER = invokeCleaner;
    }

    private static void unmap(MappedByteBuffer buffer) {
        if (INVOKE_CLEANER == null || buffer == null) {
            return;
        }
        try {
            INVOKE_CLEANER.invoke(UNSAFE, buffer);
        } catch (ReflectiveOperationException e) {
            // The mapping is freed by the garbage collector instead.
        }
    }
}
