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
 * <p>Disk space: the preallocated file is sparse, and a store through the mapping into a page the file system has not
 * allocated yet makes it allocate a block in the page fault; when it has none the fault is a SIGBUS, which the JVM
 * raises as an asynchronous {@link InternalError} somewhere near the store, so no caller could undo the append
 * cleanly. Before an entry goes into bytes not yet known to be allocated, the index therefore writes zeros over the
 * next {@value #RESERVE_BYTES} bytes through a file channel ({@link #allocate}): a full disk then fails that write
 * with an ordinary {@code IOException} (ENOSPC) before anything changed, and {@link #appendEntry} throws it with the
 * index unchanged, so that the append it belongs to fails as a whole. One such write per 64 KiB of index, i.e. per
 * 32 MiB of log at the default 4 KiB interval, costs nothing measurable.
 *
 * <p>A rebuild from the log cannot refuse batches that are already there: where it meets that error
 * ({@link LogSegment}), it {@linkplain #markIncomplete marks the index incomplete}. An incomplete index takes no more
 * entries (it is sparse, so lookups only scan further), and keeps its preallocated length when it is trimmed or
 * closed, so that the next open finds zero-filled slots at its end and rebuilds it. That is how a start-up on a full
 * disk recovers its logs.
 *
 * <p>Threads: one writer (the partition log's appending thread, under the log's lock) appends, truncates and resizes;
 * lookups may run on any thread concurrently and see a consistent prefix of entries because {@link #entries} is
 * published after the entry bytes are written. Resizing and closing take {@link #lock}, and so do lookups, so that a
 * lookup never reads an unmapped buffer.
 */
abstract class AbstractIndex implements Closeable {

    protected final long baseOffset;
    private final int maxIndexSize;
    private final int entrySize;
    protected final ReentrantLock lock = new ReentrantLock();

    /**
     * How much of the file is allocated ahead of the entries at a time. 64 KiB: a whole page where pages are that large
     * (arm64 kernels with 64 KiB pages), so the page a store touches is always one the reservation allocated.
     */
    static final int RESERVE_BYTES = 64 * 1024;

    private volatile Path file;
    private MappedByteBuffer mmap;
    /** Number of valid entries; written by the appending thread under {@link #lock}. */
    protected volatile int entries;
    /**
     * Bytes from the start of the file known to be allocated on disk: written as entries or reserved with zeros.
     * Stores through the mapping stay below it. The appending thread only, under {@link #lock}.
     */
    private int allocatedBytes;
    /**
     * Whether a rebuild dropped entries because their page could not be allocated ({@link #markIncomplete}); under
     * {@link #lock}. Cleared by {@link #reset}, when the index is rebuilt from scratch.
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
                // Sparse: setLength allocates no storage, allocate does, ahead of the entries.
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
                // Entries were written, so their bytes are allocated; growToMaximum adds a hole after them.
                this.allocatedBytes = (int) length;
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

    /** Whether a rebuild dropped entries for want of storage ({@link #markIncomplete}). */
    boolean isIncomplete() {
        lock.lock();
        try {
            return incomplete;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Makes the index take no more entries until it is {@link #reset}, and keep its preallocated length when it is
     * trimmed or closed, so that the next open rebuilds it: for a rebuild from the log that could not allocate the
     * page of an entry (see the class comment). The appending thread only.
     */
    void markIncomplete() {
        lock.lock();
        try {
            incomplete = true;
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
     * Writes the next entry's bytes through {@code writer}, then publishes it; an incomplete index drops it instead
     * ({@link #markIncomplete}). The appending thread only.
     *
     * @throws IOException           if the bytes for the entry cannot be allocated (a full disk, no file descriptor
     *                               left for the reservation); the index is unchanged then
     * @throws IllegalStateException if every slot is taken or the index is closed
     */
    protected void appendEntry(java.util.function.Consumer<ByteBuffer> writer) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (entries >= maxEntries()) {
                throw new IllegalStateException("index " + file + " is full (" + entries + " entries)");
            }
            if (incomplete) {
                return;
            }
            // The reserved slots are allocated with the regular entries, so that the entry written into them at a
            // roll does not meet a full file system unless the first one did.
            int end = (entries + 1 + reservedEntries()) * entrySize;
            if (end > allocatedBytes) {
                allocate(end);
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
     * Writes zeros from {@link #allocatedBytes} up to the {@link #RESERVE_BYTES} boundary after {@code end} (within
     * the mapping). The bytes there are zeros already, beyond every entry, so readers of the mapping see no change.
     */
    private void allocate(int end) throws IOException {
        int target = Math.min(mmap.limit(), (end + RESERVE_BYTES - 1) / RESERVE_BYTES * RESERVE_BYTES);
        ByteBuffer zeros = ByteBuffer.allocate(target - allocatedBytes);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long position = allocatedBytes;
            while (zeros.hasRemaining()) {
                position += channel.write(zeros, position);
            }
        }
        allocatedBytes = target;
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

    /**
     * Sets the file's length and maps it again. The file is opened before the old mapping is released: without a file
     * descriptor (EMFILE) the index stays as it was, where unmapping first would have left a released mapping behind
     * for the next lookup to crash the JVM on. If the new length or mapping fails after that, the index is closed.
     */
    private void resize(int newSize) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            int size = Math.max(newSize, (int) sizeInBytes());
            if (size == mmap.limit()) {
                return;
            }
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                mmap.force();
                unmap(mmap);
                boolean remapped = false;
                try {
                    raf.setLength(size);
                    // A zero-length mapping is legal and keeps lookups simple.
                    mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, size);
                    remapped = true;
                } finally {
                    if (!remapped) {
                        closed = true;
                        entries = 0;
                    }
                }
                // Shrinking frees the blocks past the new end; growing adds a hole.
                allocatedBytes = Math.min(allocatedBytes, size);
            }
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
                // Accessors that skip ensureOpen() (lastOffset(), lastEntry()) then never touch the released mapping.
                entries = 0;
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
