package io.tributary.broker.storage;

import static io.tributary.broker.storage.StorageFault.DISK_FAILURE;
import static io.tributary.broker.storage.StorageFault.RESOURCE_EXHAUSTED;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;

import org.junit.jupiter.api.Test;

/** The messages are those the JDK builds from glibc's {@code strerror} for each errno. */
class StorageFaultTest {

    @Test
    void tooManyOpenFilesIsAResourceThatComesBack() {
        assertEquals(RESOURCE_EXHAUSTED, StorageFault.of(
                new FileSystemException("/data/logs/orders-0/00000000000000000042.log", null, "Too many open files")));
        assertEquals(RESOURCE_EXHAUSTED, StorageFault.of(new IOException("Too many open files in system")));
    }

    @Test
    void aFullDiskOrQuotaIsAResourceThatComesBack() {
        assertEquals(RESOURCE_EXHAUSTED, StorageFault.of(new IOException("No space left on device")));
        assertEquals(RESOURCE_EXHAUSTED, StorageFault.of(new IOException("Disk quota exceeded")));
    }

    @Test
    void aResourceErrorIsFoundAmongTheCauses() {
        assertEquals(RESOURCE_EXHAUSTED, StorageFault.of(new UncheckedIOException("checkpoint",
                new IOException("No space left on device"))));
    }

    @Test
    void everythingElseIsADiskFailure() {
        assertEquals(DISK_FAILURE, StorageFault.of(new IOException("Input/output error")));
        assertEquals(DISK_FAILURE, StorageFault.of(new NoSuchFileException("/data/logs/cleaner-offset-checkpoint")));
        assertEquals(DISK_FAILURE, StorageFault.of(new AccessDeniedException("/data/logs")));
        assertEquals(DISK_FAILURE, StorageFault.of(new FileSystemException("/data/logs", null,
                "Read-only file system")));
        assertEquals(DISK_FAILURE, StorageFault.of(new IOException((String) null)));
    }

    @Test
    void aFileNameThatReadsLikeAResourceErrorDoesNotCount() {
        // FileSystemException's message includes the path; only its reason is the errno's text.
        assertEquals(DISK_FAILURE, StorageFault.of(new FileSystemException("/data/no space left on device/x", null,
                "Input/output error")));
    }
}
