package io.tributary.broker.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.tributary.broker.BrokerMain;

/**
 * A broker in a process of its own, started the way an operator starts one ({@link BrokerMain} with
 * {@code --override}s) on the test's classpath, so that a test can kill it with SIGKILL. It listens on an ephemeral
 * port, which it reports in its start-up log line; its output goes to a file in the test's directory.
 *
 * <p>Test thread only. {@link #kill()} is safe to call at any time and more than once; tests call it in a
 * {@code finally} or {@code @AfterEach} so that no broker outlives its test.
 */
final class BrokerProcess {

    private static final Pattern STARTED = Pattern.compile("Broker \\d+ started: listening on \\{PLAINTEXT=(\\d+)}");

    private final List<String> command;
    private final Path output;
    private Process process;
    private int port = -1;
    private int starts;

    /**
     * @param overrides broker properties as {@code name, value} pairs; {@code listeners} is set here
     */
    BrokerProcess(Path dir, String... overrides) {
        this.output = dir;
        command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A small heap, and the quick JIT: the broker here serves one producer for a few seconds.
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerMain.class.getName()));
        command.addAll(List.of("--override", "listeners=PLAINTEXT://127.0.0.1:0"));
        for (int i = 0; i < overrides.length; i += 2) {
            command.addAll(List.of("--override", overrides[i] + "=" + overrides[i + 1]));
        }
    }

    /** Starts the broker process and waits until it reports its port (not yet until it serves: see callers). */
    void start() throws IOException {
        startAsync();
        awaitStarted();
    }

    /** Starts the broker process without waiting; {@link #awaitStarted()} waits for its port. */
    void startAsync() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker process is running");
        }
        Path log = output.resolve("broker-" + (++starts) + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // The test classpath's logback-test.xml logs WARN and above unless told otherwise; the port is in an INFO line.
        builder.environment().put("TRIBUTARY_TEST_LOG", "INFO");
        process = builder.start();
        port = -1;
    }

    /** Waits until the process started by {@link #startAsync()} reports its port. */
    void awaitStarted() {
        Path log = output.resolve("broker-" + starts + ".log");
        Await.until(Duration.ofSeconds(60), () -> {
            if (!process.isAlive()) {
                throw new AssertionError("the broker process exited with " + process.exitValue() + ":\n"
                        + tail(log));
            }
            port = startedPort(log);
            return port > 0;
        }, () -> "the broker process reporting its port; its output so far:\n" + tail(log));
    }

    String bootstrapServers() {
        if (port < 0) {
            throw new IllegalStateException("the broker process has not started");
        }
        return "127.0.0.1:" + port;
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. Waits until the process is gone. */
    void kill() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the broker process " + process.pid() + " survived SIGKILL");
            }
        }
    }

    /**
     * SIGTERM, as an operator's {@code kill} or Ctrl-C: the broker's shutdown hook runs. Waits until the process is
     * gone and returns its exit code.
     */
    int terminate() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("the broker process is not running");
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the broker process " + process.pid() + " did not stop on SIGTERM");
        }
        return process.exitValue();
    }

    /** SIGSTOP: the process freezes, its sockets stay open (a hung broker, not a dead one). */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("the broker process is not running");
        }
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The output of the latest start. */
    String output() {
        return tail(output.resolve("broker-" + starts + ".log"));
    }

    private static int startedPort(Path log) {
        try {
            Matcher matcher = STARTED.matcher(Files.readString(log, StandardCharsets.UTF_8));
            return matcher.find() ? Integer.parseInt(matcher.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }
}
