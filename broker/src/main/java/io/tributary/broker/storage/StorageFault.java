package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.util.List;
import java.util.Locale;

/**
 * What an {@link IOException} from a log directory says about the directory: a resource that comes back (the process
 * ran out of file descriptors, the file system out of space) or a directory that cannot be trusted any more (EIO, a
 * vanished or read-only directory, anything else). Pure: decided from the exception alone.
 *
 * <p>Only the first kind is worth waiting out. 19,950 idle client connections took every file descriptor of a broker
 * (EMFILE) and the checkpoint that failed then took its only log directory offline until a restart; a full disk
 * (ENOSPC) did the same although freeing space would have been enough. Anything not recognised stays a disk failure, as
 * before: treating a broken disk as transient would keep serving from it.
 *
 * <p>The JDK reports errno only as the C library's message ({@code strerror}), so the messages below are matched; they
 * are glibc's and musl's in the C and English locales. Under a locale that translates them ({@code LC_MESSAGES}),
 * every error counts as a disk failure; {@code bin/tributary-broker} therefore runs the broker with
 * {@code LC_MESSAGES=C}.
 */
enum StorageFault {

    /** EMFILE, ENFILE, ENOSPC or EDQUOT: the operation failed as a whole and may succeed once the resource is back. */
    RESOURCE_EXHAUSTED,
    /** Any other I/O error: the directory is taken offline. */
    DISK_FAILURE;

    private static final List<String> RESOURCE_MESSAGES = List.of(
            "too many open files",       // EMFILE; also ENFILE's "too many open files in system"
            "no space left on device",   // ENOSPC
            "disk quota exceeded");      // EDQUOT

    /** The kind of {@code error}, judged by its message and those of its causes. */
    static StorageFault of(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            String message = cause instanceof FileSystemException fileSystem && fileSystem.getReason() != null
                    ? fileSystem.getReason() : cause.getMessage();
            if (message != null) {
                String lower = message.toLowerCase(Locale.ROOT);
                for (String resource : RESOURCE_MESSAGES) {
                    if (lower.contains(resource)) {
                        return RESOURCE_EXHAUSTED;
                    }
                }
            }
        }
        return DISK_FAILURE;
    }

    static boolean isResourceExhausted(Throwable error) {
        return of(error) == RESOURCE_EXHAUSTED;
    }

    /**
     * Loads the classes of the resource-error path ahead of the first error. Without a file descriptor left, a class
     * not loaded yet cannot be read from a class directory either: the broker run from {@code target/classes} (as the
     * fault tests run it) answered its first EMFILE with a {@code NoClassDefFoundError} of this very class.
     */
    static void preload() {
        // Naming the class literal loads the class.
        java.util.Objects.requireNonNull(StorageResourceException.class);
    }
}
