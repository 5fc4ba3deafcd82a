package io.tributary.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A small file system for a broker to run out of space on, without root: a {@code tmpfs} of a given size mounted on a
 * directory inside a user and mount namespace of its own ({@code unshare -rm}), which a sleeping holder process keeps
 * alive. Broker processes enter that namespace through {@link #launcher()} ({@code nsenter}) and see the tmpfs at the
 * directory's path; so does the test, through {@link #view(Path)} ({@code /proc/<holder>/root/...}). The files stay
 * while the holder lives, across broker restarts; {@link #close()} ends the holder and the tmpfs with it.
 *
 * <p>{@link #mount} is empty where the machine refuses unprivileged user namespaces (some distributions' defaults,
 * most containers without {@code CAP_SYS_ADMIN} for nested ones); tests then skip. Test thread only.
 */
public final class SmallFileSystem implements AutoCloseable {

    private final Process holder;
    private final Path mountPoint;

    private SmallFileSystem(Process holder, Path mountPoint) {
        this.holder = holder;
        this.mountPoint = mountPoint;
    }

    /**
     * Mounts a tmpfs of {@code megabytes} MiB on {@code dir} (created if missing) in a namespace of its own; empty if
     * this machine does not allow it (the reason on standard error of the test).
     */
    public static Optional<SmallFileSystem> mount(Path dir, int megabytes) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path mountPoint = dir.toAbsolutePath();
        Process holder;
        try {
            holder = new ProcessBuilder("unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                    "mount -t tmpfs -o size=" + megabytes + "m tmpfs \"$0\" && echo mounted && exec sleep 100000",
                    mountPoint.toString()).redirectErrorStream(true).start();
        } catch (IOException noUnshare) {
            System.err.println("SmallFileSystem: cannot run unshare: " + noUnshare);
            return Optional.empty();
        }
        holder.getOutputStream().close();
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8));
        String first = out.readLine();
        if (!"mounted".equals(first)) {
            holder.waitFor(10, TimeUnit.SECONDS);
            holder.destroyForcibly();
            System.err.println("SmallFileSystem: no tmpfs in a user namespace here: " + first);
            return Optional.empty();
        }
        return Optional.of(new SmallFileSystem(holder, mountPoint));
    }

    /** The command that runs a program inside the namespace, where the tmpfs is mounted (for launchers). */
    public List<String> launcher() {
        return List.of("nsenter", "--target", Long.toString(holder.pid()), "--user", "--mount",
                "--preserve-credentials", "--");
    }

    /** Where the test sees {@code path} (inside the namespace's view of the file tree) from outside. */
    public Path view(Path path) {
        return Path.of("/proc", Long.toString(holder.pid()), "root").resolve(
                Path.of("/").relativize(path.toAbsolutePath()));
    }

    /** The mount point as the test sees it: the tmpfs itself. */
    public Path root() {
        return view(mountPoint);
    }

    /**
     * Writes zeros to {@code file} (on the tmpfs, seen from outside) until the file system is full.
     *
     * @return the bytes written
     */
    public long fill(Path file) throws IOException {
        byte[] chunk = new byte[64 * 1024];
        long written = 0;
        try (OutputStream stream = Files.newOutputStream(file)) {
            while (true) {
                stream.write(chunk);
                written += chunk.length;
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left on device")) {
                throw full;
            }
        }
        // What fit of the last chunk, byte by byte: nothing at all may be left.
        try (OutputStream stream = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
            while (true) {
                stream.write(0);
                stream.flush();
                written++;
            }
        } catch (IOException full) {
            return written;
        }
    }

    @Override
    public void close() throws InterruptedException {
        holder.destroyForcibly();
        holder.waitFor(10, TimeUnit.SECONDS);
    }
}
