package io.tributary.itests.quickstart;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.tributary.testsupport.FreePorts;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;

/**
 * The broker of the README's first command, {@code broker/bin/tributary-broker config/server.properties}, run as
 * written but for what would collide with anything else on the machine: the listener on a free port instead of 9092,
 * a ZooKeeper of the test (on a free port) instead of the embedded one on 2181, and the data and log directories
 * under the test's own directory (the command's working directory) instead of the repository's.
 */
public final class ReadmeBroker implements AutoCloseable {

    private final TestingServer zooKeeper;
    private final Process process;
    private final int port;

    private ReadmeBroker(TestingServer zooKeeper, Process process, int port) {
        this.zooKeeper = zooKeeper;
        this.process = process;
        this.port = port;
    }

    /**
     * Starts the broker of {@code repository}'s README in {@code directory} and waits until it accepts connections.
     */
    public static ReadmeBroker start(Path repository, Path directory, Duration timeout) {
        int port = freePort();
        TestingServer zooKeeper = null;
        Process process = null;
        try {
            Files.createDirectories(directory);
            zooKeeper = new TestingServer(freePort(), directory.resolve("zookeeper").toFile(), true);
            ReadmeBlock command = ReadmeBlock.after(repository.resolve("README.md"), "## The two commands")
                    .substitute(Map.of("broker/bin/tributary-broker config/server.properties",
                            "exec " + repository.resolve("broker/bin/tributary-broker") + " "
                                    + repository.resolve("config/server.properties")
                                    + " --override listeners=PLAINTEXT://127.0.0.1:" + port
                                    + " --override zookeeper.connect=" + zooKeeper.getConnectString()
                                    + " --override log.dirs=" + directory.resolve("data/logs")));
            Shell shell = new Shell(directory, directory.resolve("commands.log"));
            shell.export("TRIBUTARY_HEAP_OPTS", "-Xms32m -Xmx256m");
            shell.export("TRIBUTARY_JVM_OPTS", "-Dtributary.log.dir=" + directory.resolve("logs"));
            process = shell.start(command.commandContaining("tributary-broker"), directory.resolve("console.log"));
            Process started = process;
            Waits.await("the README's broker listening on " + port + " (see " + directory.resolve("console.log")
                    + ")").atMost(timeout).pollInterval(Duration.ofMillis(200)).until(() -> {
                        if (!started.isAlive()) {
                            throw new AssertionError("the README's broker exited with " + started.exitValue()
                                    + " (see " + directory.resolve("console.log") + ")");
                        }
                        return accepts(port);
                    });
            return new ReadmeBroker(zooKeeper, process, port);
        } catch (Exception | AssertionError e) {
            if (process != null) {
                Shell.stop(process, Duration.ofSeconds(20));
            }
            if (zooKeeper != null) {
                try {
                    zooKeeper.close();
                } catch (IOException closing) {
                    e.addSuppressed(closing);
                }
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (e instanceof AssertionError assertion) {
                throw assertion;
            }
            throw new IllegalStateException("cannot start the README's broker", e);
        }
    }

    /** The broker's host:port. */
    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    /** Stops the broker (SIGTERM, its clean shutdown; SIGKILL after 30 s) and ZooKeeper. */
    @Override
    public void close() throws IOException {
        try {
            Shell.stop(process, Duration.ofSeconds(30));
        } finally {
            zooKeeper.close();
        }
    }

    /** A port nothing listens on now, never one the build reserved for the server under test ({@link FreePorts}). */
    public static int freePort() {
        return FreePorts.next();
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
