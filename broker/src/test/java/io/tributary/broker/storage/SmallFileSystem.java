package io.tributary.broker.storage;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs of a few MiB mounted for one test, to run storage code on a file system that is really full: writes fail
 * with "No space left on device", and a page fault that needs storage (a store into, or on tmpfs even a load from, a
 * hole of a memory-mapped sparse file) is a SIGBUS. An injected {@code IOException} shows neither.
 *
 * <p>Mounting needs Linux and {@code CAP_SYS_ADMIN} (root, or a container allowed to mount); elsewhere the test using
 * it is skipped by a failed assumption. {@link #close()} unmounts, lazily if a file is still open, so that a failing
 * test leaves no mount behind.
 */
final class SmallFileSystem implements AutoCloseable {

    private final Path mountPoint;
    private final Path filler;

    private SmallFileSystem(Path mountPoint) {
        this.mountPoint = mountPoint;
        this.filler = mountPoint.resolve("filler");
    }

    /** Mounts a tmpfs of {@code mebibytes} on {@code mountPoint} (created), or skips the test where it cannot. */
    static SmallFileSystem mount(Path mountPoint, int mebibytes) throws IOException, InterruptedException {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"), "tmpfs needs Linux");
        Files.createDirectories(mountPoint);
        int exit = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + mebibytes + "m", "tmpfs",
                mountPoint.toString()));
        assumeTrue(exit == 0, "cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
        return new SmallFileSystem(mountPoint);
    }

    Path root() {
        return mountPoint;
    }

    /** Writes a filler file until the file system has no byte left. */
    void fill() throws IOException {
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer page = ByteBuffer.allocate(4096);
            while (true) {
                page.clear();
                channel.write(page);
            }
        } catch (IOException full) {
            if (Files.getFileStore(mountPoint).getUsableSpace() > 0) {
                throw full;
            }
        }
    }

    /** Gives {@code bytes} back by shrinking the filler file. */
    void free(long bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.WRITE)) {
            channel.truncate(Math.max(0, channel.size() - bytes));
        }
    }

    long usableSpace() throws IOException {
        return Files.getFileStore(mountPoint).getUsableSpace();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (run(List.of("umount", mountPoint.toString())) != 0) {
            run(List.of("umount", "-l", mountPoint.toString()));
        }
    }

    private static int run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
