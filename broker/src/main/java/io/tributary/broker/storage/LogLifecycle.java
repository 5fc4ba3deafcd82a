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
 *       it had ({@link #reloadFrom}), and is {@link #reopened};</li>
 *   <li>{@code CLOSED}: closed, or deleted;</li>
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

    /** The offsets a suspended log reloads from. */
    LoadState reloadFrom() {
        return reloadFrom;
    }

    /** The suspended log reloaded from disk: open again. */
    void reopened() {
        state = State.OPEN;
        suspendedBy = null;
    }

    /** A reload met the resource error again: the log stays suspended, and calls name the new error. */
    void stillSuspended(IOException cause) {
        suspendedBy = cause;
    }

    /** A suspended log is closed: its data is on disk, but the close was not clean. */
    StorageResourceException closeWhileSuspended() {
        state = State.CLOSED;
        return new StorageResourceException("Log of " + topicPartition + " in " + dir
                + " was closed while suspended after a resource error", suspendedBy);
    }
}
