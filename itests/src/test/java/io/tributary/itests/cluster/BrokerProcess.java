package io.tributary.itests.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.tributary.broker.BrokerConfig;
import io.tributary.broker.BrokerMain;

/**
 * One broker of the {@link BrokerCluster}, in a process of its own, started as an operator starts one
 * ({@link BrokerMain} with {@code --override}s) on the failsafe JVM's class path, so that the test can SIGKILL it.
 * It listens on a fixed port, the same after every start: the MDB's bootstrap list names it.
 *
 * <p>Each start writes the process's output (logback, INFO) to {@code <dir>/broker-<id>-start-<n>.log}; the data
 * stays in {@code <dir>/broker-<id>/logs} across starts, as a restarted broker's would.
 *
 * <p>Test thread only. {@link #kill()} is safe to call at any time and more than once.
 */
final class BrokerProcess {

    /** Long enough for a JVM to start on a loaded 2-core machine beside WildFly and two other brokers. */
    private static final Duration START_LIMIT = Duration.ofSeconds(60);

    private final int id;
    private final int port;
    private final Path dir;
    private final List<String> command;
    private Process process;
    private int starts;

    /**
     * @param settings broker properties for {@code --override}; {@code broker.id}, {@code listeners} and
     *                 {@code log.dirs} are set here
     */
    BrokerProcess(int id, int port, Path dir, Map<String, String> settings) {
        this.id = id;
        this.port = port;
        this.dir = dir;
        command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small heap, the serial collector and the quick JIT: three of these run beside WildFly on two cores.
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerMain.class.getName()));
        override(BrokerConfig.BROKER_ID, Integer.toString(id));
        override(BrokerConfig.LISTENERS, "PLAINTEXT://" + address());
        override(BrokerConfig.LOG_DIRS, dir.resolve("broker-" + id).resolve("logs").toString());
        settings.forEach(this::override);
    }

    private void override(String name, String value) {
        command.addAll(List.of("--override", name + "=" + value));
    }

    int id() {
        return id;
    }

    /** {@code 127.0.0.1:<port>}, whether or not the broker runs. */
    String address() {
        return "127.0.0.1:" + port;
    }

    /** Starts the process without waiting for it; {@link #awaitStarted()} waits. */
    void startAsync() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("broker " + id + " is running (pid " + process.pid() + ")");
        }
        starts++;
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(output().toFile());
        // The test class path's logback-test.xml logs WARN and above unless told otherwise; the start-up line is INFO.
        builder.environment().put("TRIBUTARY_TEST_LOG", "INFO");
        process = builder.start();
    }

    /**
     * Waits until the process reports that it listens (its start-up log line); fails with the output's tail if it
     * exits first or takes longer than a minute. The broker may not yet be in every ISR: see the cluster's waits.
     */
    void awaitStarted() {
        String started = "Broker " + id + " started: listening on";
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (!outputText().contains(started)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("broker " + id + " exited with " + process.exitValue()
                        + " while starting; its output (" + output() + ") ends:\n" + tail());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("broker " + id + " did not start within " + START_LIMIT
                        + "; its output (" + output() + ") ends:\n" + tail());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. Returns once the process is gone. */
    void kill() throws InterruptedException {
        if (isAlive()) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("broker " + id + " (pid " + process.pid() + ") survived SIGKILL");
            }
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The output file of the latest start. */
    Path output() {
        return dir.resolve("broker-" + id + "-start-" + starts + ".log");
    }

    private String outputText() {
        try {
            return Files.readString(output(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return ""; // not created yet
        }
    }

    private String tail() {
        List<String> lines = outputText().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    @Override
    public String toString() {
        return "broker " + id + " at " + address() + (isAlive() ? " (pid " + process.pid() + ")" : " (not running)");
    }
}
