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
 * <p>The file is preallocated to {@code segment.index.bytes} (rounded down to whole entries) while its segment is
 * active, and trimmed to its entries when the segment is rolled or closed. Entries are derived data: a file that is
 * missing, or whose entries are not strictly increasing or point past the end of the segment, is rebuilt from the
 * log by {@link LogSegment}, never trusted. A preallocated file left by a crash has zero bytes after its last entry;
 * opening it counts the entries before that zero fill, and refuses a file whose entries are out of order.
 *
 * <p>Disk space: the preallocated file is sparse, and a store through the mapping into a page the file system has not
 * allocated yet faults when the disk is full (SIGBUS, which the JVM raises as an asynchronous {@link InternalError}
 * somewhere near the store, so no caller could undo the append cleanly). Before an entry goes into bytes not yet
 * known to be allocated, the index therefore writes zeros over the next {@value #RESERVE_BYTES} bytes through a file
 * channel: a full disk then fails that write with an ordinary {@code IOException} (ENOSPC) before anything changed.
 * One such write per 64 KiB of index, i.e. per 32 MiB of log at the default 4 KiB interval, costs nothing measurable.
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
    private boolean closed;
    /**
     * Bytes from the start of the file known to be allocated on disk: written as entries or reserved with zeros.
     * Stores through the mapping stay below it. The appending thread only, under {@link #lock}.
     */
    private int allocatedBytes;

    AbstractIndex(Path file, long baseOffset, int maxIndexSize, int entrySize) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySize = entrySize;
        this.maxIndexSize = Math.max(entrySize, maxIndexSize / entrySize * entrySize);
        boolean created = !Files.exists(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long length = raf.length();
            int validEntries = 0;
            if (created || length == 0) {
                raf.setLength(this.maxIndexSize);
            } else if (length % entrySize != 0 || length > Integer.MAX_VALUE) {
                throw new CorruptIndexException(file, "length " + length + " is not a multiple of " + entrySize);
            } else {
                validEntries = -1;
            }
            long mapped = Math.max(raf.length(), this.maxIndexSize);
            if (raf.length() < mapped) {
                raf.setLength(mapped);
            }
            this.mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, mapped);
            try {
                this.entries = validEntries == -1 ? countValidEntries(raf.getChannel(), length) : 0;
                // Entries were written, so their bytes are allocated; what lies after them may be a hole.
                this.allocatedBytes = entries * entrySize;
            } catch (CorruptIndexException e) {
                // The caller deletes the file and builds a new one; a mapping left behind would pin its pages.
                unmap(mmap);
                throw e;
            }
        }
    }

    /** Key of entry {@code n} in this index's order (relative offset or timestamp). */
    protected abstract long keyAt(ByteBuffer buffer, int n);

    /** Checks that entry {@code n} may follow entry {@code n - 1}; called only for {@code n > 0}. */
    protected abstract boolean followsInOrder(ByteBuffer buffer, int n);

    /**
     * The entries of a file as found on disk: those before its zero-filled tail, which must be in order. Taking every
     * all-zero entry at the end for fill (even the first, in a file with no entries at all) loses nothing: the log
     * never indexes its first batch, so an offset entry (0, 0) cannot be real, and a time entry (0, 0) would need a
     * record stamped 1970-01-01 at the base offset, and dropping it would only widen a search.
     */
    private int countValidEntries(FileChannel channel, long length) throws IOException {
        long dataEnd = endOfData(channel, length);
        int n = (int) ((dataEnd + entrySize - 1) / entrySize);
        for (int i = 1; i < n; i++) {
            if (!followsInOrder(mmap, i)) {
                throw new CorruptIndexException(file, "entry " + i + " is out of order");
            }
        }
        return n;
    }

    /**
     * The position after the last non-zero byte of the file. Read through the channel, not the mapping: the zero tail
     * of a preallocated file is a hole, and on tmpfs a fault on a hole allocates a page, which on a full file system
     * raises SIGBUS for every byte (a start-up after the disk filled up spent minutes in here); a read of a hole
     * allocates nothing. Also reads 64 KiB at a time instead of a byte per call.
     */
    private static long endOfData(FileChannel channel, long length) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(RESERVE_BYTES);
        long end = length;
        while (end > 0) {
            long start = Math.max(0, end - chunk.capacity());
            chunk.clear().limit((int) (end - start));
            long position = start;
            while (chunk.hasRemaining()) {
                int read = channel.read(chunk, position);
                if (read < 0) {
                    break;
                }
                position += read;
            }
            for (int i = chunk.position() - 1; i >= 0; i--) {
                if (chunk.get(i) != 0) {
                    return start + i + 1;
                }
            }
            end = start;
        }
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

    boolean isFull() {
        return entries >= maxEntries();
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
     * Writes the next entry's bytes through {@code writer}, then publishes it. The appending thread only.
     *
     * @throws IOException if the bytes for the entry cannot be allocated (a full disk, no file descriptor left for the
     *                     reservation); the index is unchanged then
     */
    protected void appendEntry(java.util.function.Consumer<ByteBuffer> writer) throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (entries >= maxEntries()) {
                throw new IllegalStateException("index " + file + " is full (" + entries + " entries)");
            }
            int end = (entries + 1) * entrySize;
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

    void reset() {
        truncateToEntries(0);
    }

    /** Shrinks the file to its entries, e.g. when the segment stops being the active one. */
    void trimToValidSize() throws IOException {
        resize((int) sizeInBytes());
    }

    /** Grows the file back to its maximum size so that a reopened segment can take new entries. */
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

    /** Trims the file to its entries and releases the mapping; idempotent. */
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
