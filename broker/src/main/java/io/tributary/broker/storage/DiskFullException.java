package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A write that needed space on a full file system, after which the files it touched are as they were before it.
 *
 * <p>A full disk passes (retention, DeleteRecords or an operator frees space), so it fails only the writes that need
 * space: appends are refused with {@code KAFKA_STORAGE_ERROR} (retriable), checkpoints are written again at their
 * next turn, and reads, retention and DeleteRecords go on. A broken directory goes offline
 * ({@link LogDirFailureHandler}). Kafka treats both alike, and so stops serving a directory that fills up.
 *
 * <p>{@link #isCause} classifies: the JDK reports ENOSPC and EDQUOT as a plain {@link IOException} whose message is
 * the C library's text for the error. That text may be localised, so a write that fails with less than
 * {@link #NEARLY_FULL_BYTES} usable on its file system counts as one on a full disk too; call it only for operations
 * that need space, and only where a failure leaves the files unchanged.
 */
final class DiskFullException extends IOException {

    /** Usable space below which a failed write is put down to a full disk: a few index pages and one batch. */
    static final long NEARLY_FULL_BYTES = 1024 * 1024;

    private static final List<String> MESSAGES = List.of("No space left on device", "Disk quota exceeded");

    DiskFullException(Path where, IOException cause) {
        super("no space left on the file system of " + where + ": " + cause.getMessage(), cause);
    }

    /** Whether {@code failure}, met by a write that needed space under {@code where}, was caused by a full disk. */
    static boolean isCause(IOException failure, Path where) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof DiskFullException) {
                return true;
            }
            String message = cause.getMessage();
            if (message != null && MESSAGES.stream().anyMatch(message::contains)) {
                return true;
            }
        }
        Path existing = where.toAbsolutePath();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        try {
            return existing != null && Files.getFileStore(existing).getUsableSpace() < NEARLY_FULL_BYTES;
        } catch (IOException e) {
            return false;
        }
    }
}
