package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle of one {@link PartitionLog}, and what an I/O error ({@link StorageFault}) does to it:
 * <ul>
 *   <li>{@code OPEN}: serving. A resource error (EMFILE, ENOSPC) in a change that left the log as it was fails only
 *       the call ({@link #storageError}), logged at WARN once per episode;</li>
 *   <li>{@code SUSPENDED}: a resource error in a change that may be half made ({@link #suspend}): the log's files are
 *       closed and calls fail with {@link StorageResourceException} until the log reloads from disk, from the offsets
 *       it had, and is open again ({@link #reloadIfSuspended});</li>
 *   <li>{@code CLOSED}: closed ({@link #close}), or deleted;</li>
 *   <li>{@code OFFLINE}: a disk failure ({@link #offline}), reported to the {@link LogDirFailureHandler}, which takes
 *       the whole log directory offline; every later call throws {@link KafkaStorageException}.</li>
 * </ul>
 *
 * <p>Threads: every transition is made by the log's writer, under the log's lock. The state and the error that
 * suspended the log are volatile, for {@link #ensureOpen} in the log's lock-free reads.
 */
final class LogLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LogLifecycle.class);

    enum State { OPEN, SUSPENDED, CLOSED, OFFLINE }

    /** A step on the log's files that may fail with an I/O error. */
    @FunctionalInterface
    interface FileStep {
        void run() throws IOException;
    }

    /** Loads the log again from disk, from the offsets it had when it was suspended. */
    @FunctionalInterface
    interface Reload {
        void from(LoadState offsets) throws IOException;
    }

    private final TopicPartition topicPartition;
    private final Path dir;
    private final LogDirFailureHandler failureHandler;
    private volatile State state = State.OPEN;
    /** Where a suspended log reloads from: its offsets when it was suspended. Written under the log's lock. */
    private LoadState reloadFrom;
    /** The error that suspended the log, for the message of the calls it fails meanwhile. */
    private volatile IOException suspendedBy;
    /** Whether the last write failed for want of a resource (logged once per episode). Written under the lock. */
    private boolean failingForWantOfResource;

    LogLifecycle(TopicPartition topicPartition, Path dir, LogDirFailureHandler failureHandler) {
        this.topicPartition = topicPartition;
        this.dir = dir;
        this.failureHandler = failureHandler;
    }

    boolean is(State wanted) {
        return state == wanted;
    }

    /** Closing and giving up the files: to {@code CLOSED} or {@code OFFLINE}. Caller holds the log's lock. */
    void moveTo(State next) {
        state = next;
    }

    /** Also for reads: a closed log's files are closed, and a read would fail deep in an index instead of here. */
    void ensureOpen() {
        State current = state;
        if (current == State.SUSPENDED) {
            IOException cause = suspendedBy;
            throw new StorageResourceException("Log of " + topicPartition + " in " + dir + " is reloading after a "
                    + "resource error" + (cause == null ? "" : " (" + cause.getMessage() + ")"), cause);
        }
        if (current != State.OPEN) {
            throw new KafkaStorageException("Log of " + topicPartition + " in " + dir + " is " + current);
        }
    }

    /** An append succeeded: an episode of resource errors, if there was one, is over. Caller holds the lock. */
    void appendSucceeded(long firstOffset) {
        if (failingForWantOfResource) {
            failingForWantOfResource = false;
            log.info("{}: appends succeed again from offset {}", topicPartition, firstOffset);
        }
    }

    /**
     * The exception for an I/O error in a change that left the log as it was: a {@link StorageResourceException} for
     * a resource error, else the log goes {@link #offline}. Caller holds the lock.
     */
    KafkaStorageException storageError(String operation, IOException cause) {
        if (!StorageFault.isResourceExhausted(cause)) {
            return offline(operation, cause);
        }
        String message = "I/O error during " + operation + " of " + topicPartition + " in " + dir + ": "
                + cause.getMessage() + "; nothing was changed, the log directory stays online";
        // Producers retry every few milliseconds while a disk is full: one WARN per episode, the rest at DEBUG.
        if (!failingForWantOfResource) {
            failingForWantOfResource = true;
            log.warn("{} (further failures until a write succeeds are logged at DEBUG)", message);
        } else {
            log.debug(message);
        }
        return new StorageResourceException(message, cause);
    }

    /**
     * The exception for an I/O error in a change that may be half made: for a resource error the log is suspended
     * (its files closed by {@code closeFiles}) until a reload from {@code offsets}, else it goes {@link #offline}.
     * Caller holds the lock.
     */
    KafkaStorageException suspend(String operation, IOException cause, LoadState offsets, Runnable closeFiles) {
        if (!StorageFault.isResourceExhausted(cause)) {
            return offline(operation, cause);
        }
        state = State.SUSPENDED;
        suspendedBy = cause;
        reloadFrom = offsets;
        closeFiles.run();
        String message = "I/O error during " + operation + " of " + topicPartition + " in " + dir + ": "
                + cause.getMessage() + "; the log reloads from disk once the resource is back";
        log.warn(message);
        return new StorageResourceException(message, cause);
    }

    /** A disk failure: the log goes offline and its directory's failure is reported. */
    KafkaStorageException offline(String operation, IOException cause) {
        state = State.OFFLINE;
        String message = "I/O error during " + operation + " of " + topicPartition + " in " + dir + ": "
                + cause.getMessage();
        log.error(message, cause);
        failureHandler.onFailure(dir.getParent(), cause);
        return new KafkaStorageException(message, cause);
    }

    /**
     * Closes an open log with {@code closeFiles} (flush, producer snapshot, every file closed); idempotent. A suspended
     * log is closed at once and the call fails: its data is on disk, but the close was not clean. A resource error in
     * {@code closeFiles} closes the log all the same, {@code releaseFiles} giving up what is still open, and fails
     * the call with a {@link StorageResourceException}, so that the next start-up recovers the log rather than trust
     * it was closed cleanly; any other error takes it {@link #offline}. Caller holds the lock.
     */
    void close(FileStep closeFiles, Runnable releaseFiles) {
        if (state == State.SUSPENDED) {
            state = State.CLOSED;
            throw new StorageResourceException("Log of " + topicPartition + " in " + dir
                    + " was closed while suspended after a resource error", suspendedBy);
        }
        if (state != State.OPEN) {
            return;
        }
        try {
            closeFiles.run();
            state = State.CLOSED;
        } catch (IOException e) {
            if (!StorageFault.isResourceExhausted(e)) {
                throw offline("close", e);
            }
            releaseFiles.run();
            state = State.CLOSED;
            throw new StorageResourceException("I/O error during close of " + topicPartition + " in " + dir
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * A suspended log loads itself again from disk with {@code reload}, from the offsets it had when it was suspended,
     * and is open again. If the reload fails, {@code discard} drops what it opened: on a resource error the log stays
     * suspended and calls name the new error; any other error takes it {@link #offline}. Caller holds the lock.
     *
     * @return whether the log is open (again)
     */
    boolean reloadIfSuspended(Reload reload, Runnable discard) {
        if (state != State.SUSPENDED) {
            return state == State.OPEN;
        }
        try {
            reload.from(reloadFrom);
            state = State.OPEN;
            suspendedBy = null;
            return true;
        } catch (IOException | RuntimeException e) {
            discard.run();
            if (e instanceof IOException io && StorageFault.isResourceExhausted(io)) {
                log.debug("{}: still cannot reload: {}", topicPartition, io.getMessage());
                suspendedBy = io;
                return false;
            }
            offline("reload after a resource error", e instanceof IOException io ? io : new IOException(e));
            return false;
        }
    }
}
