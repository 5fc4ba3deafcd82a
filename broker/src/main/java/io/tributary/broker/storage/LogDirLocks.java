package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code .lock} file of each log directory a {@link LogManager} uses, held (an OS file lock on an open channel)
 * from start-up until close, so that two brokers, or two log managers in one process, cannot share a directory.
 *
 * <p>Threads: directories are locked by the thread that starts the manager, and released by the one that closes it
 * or abandons its start-up; the map is concurrent so that the checkpoint writer may ask which directories are held.
 */
final class LogDirLocks {

    private static final Logger log = LoggerFactory.getLogger(LogDirLocks.class);

    /** The directories locked (online or not), with the channel holding the lock. */
    private final Map<Path, FileChannel> locks = new ConcurrentHashMap<>();

    /**
     * Takes {@code <dir>/.lock}, creating the directory if needed.
     *
     * @throws LogDirInUseException if another log manager holds the lock
     * @throws IOException          if the directory cannot be created or the lock file opened (the disk is broken)
     */
    void lock(Path dir) throws IOException {
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(LogManager.LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        FileLock fileLock;
        try {
            fileLock = lockChannel.tryLock();
        } catch (OverlappingFileLockException heldInThisProcess) {
            fileLock = null;
        } catch (IOException e) {
            lockChannel.close();
            throw e;
        }
        if (fileLock == null) {
            lockChannel.close();
            throw new LogDirInUseException(dir);
        }
        locks.put(dir, lockChannel);
    }

    boolean holds(Path dir) {
        return locks.containsKey(dir);
    }

    /** The directories locked, as a live view. */
    Set<Path> dirs() {
        return locks.keySet();
    }

    void releaseAll() {
        for (FileChannel channel : locks.values()) {
            try {
                channel.close();
            } catch (IOException e) {
                log.warn("Could not release a log directory lock", e);
            }
        }
        locks.clear();
    }

    /** Log directory locked by another log manager: a configuration error, fatal to start-up. */
    static final class LogDirInUseException extends IOException {
        LogDirInUseException(Path dir) {
            super("log directory " + dir + " is in use by another broker (its " + LogManager.LOCK_FILE
                    + " is locked); two brokers, or two log managers in one process, cannot share a log directory");
        }
    }
}
