package io.tributary.testsupport;

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

import org.awaitility.core.ConditionTimeoutException;

/**
 * A broker in a process of its own, started the way an operator starts one (the broker's main class, named by
 * {@link BrokerRuntime#mainClass()}, with {@code --override}s) on the test's class path, so that a test can SIGKILL,
 * SIGSTOP or SIGTERM it. It listens on {@code 127.0.0.1}, on an ephemeral port (a new one after every start) or on a
 * fixed one that the caller reserved (the same after every start, for clients whose bootstrap list is fixed before the
 * broker runs). It reports the port in its start-up log line, {@code Broker <id> started: listening on {PLAINTEXT=<port>[, <other listeners>]}, ...}, which
 * {@link #awaitStarted()} waits for. The output of the n-th start (logback at INFO) goes to
 * {@code <dir>/broker-<n>.log}; the data goes wherever the overrides' {@code log.dirs} says and stays across starts.
 *
 * <p>A test may start the process through a launcher ({@link #launchThrough}), e.g. a shell that lowers its file
 * descriptor limit first, or {@code nsenter} into the mount namespace of a {@link SmallFileSystem}.
 *
 * <p>Test thread only. {@link #kill()} is safe to call at any time and more than once; tests call it in a
 * {@code finally} or {@code @AfterEach} so that no broker outlives its test.
 */
public final class BrokerProcess {

    private static final Pattern STARTED = Pattern.compile("Broker \\d+ started: listening on \\{PLAINTEXT=(\\d+)[,}]");

    private final List<String> command;
    private final Path output;
    private List<String> launcher = List.of();
    private Process process;
    private int port = -1;
    private volatile boolean paused;
    private int starts;

    /**
     * A broker on an ephemeral port.
     *
     * @param overrides broker properties as {@code name, value} pairs; {@code listeners} is set here
     */
    public BrokerProcess(Path dir, String... overrides) {
        this(dir, 0, overrides);
    }

    /**
     * A broker on {@code port} after every start, or on an ephemeral port for 0.
     *
     * @param overrides broker properties as {@code name, value} pairs; {@code listeners} is set here
     */
    public BrokerProcess(Path dir, int port, String... overrides) {
        this.output = dir;
        command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A small heap, the serial collector and the quick JIT: a test's broker serves a few clients for seconds, and
        // three or four run at once on two cores (in itests/ beside WildFly).
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerRuntime.load().mainClass()));
        command.addAll(List.of("--override", "listeners=PLAINTEXT://127.0.0.1:" + port));
        for (int i = 0; i < overrides.length; i += 2) {
            command.addAll(List.of("--override", overrides[i] + "=" + overrides[i + 1]));
        }
    }

    /**
     * From the next start on, runs the broker's command line as the arguments of {@code launcher}, e.g.
     * {@code sh -c 'ulimit -n 512 && exec "$0" "$@"'}; nothing for a plain start.
     */
    public void launchThrough(String... launcher) {
        this.launcher = List.of(launcher);
    }

    /** Adds broker properties ({@code name, value} pairs) for the next start; later ones win over earlier ones. */
    public void override(String... overrides) {
        for (int i = 0; i < overrides.length; i += 2) {
            command.addAll(List.of("--override", overrides[i] + "=" + overrides[i + 1]));
        }
    }

    /** Starts the broker process and waits until it reports its port (not yet until it serves: see callers). */
    public void start() throws IOException {
        startAsync();
        awaitStarted();
    }

    /** Starts the broker process without waiting; {@link #awaitStarted()} waits for its port. */
    public void startAsync() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the broker process is running");
        }
        Path log = output.resolve("broker-" + (++starts) + ".log");
        List<String> commandLine = new ArrayList<>(launcher);
        commandLine.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(commandLine).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // The test classpath's logback-test.xml logs WARN and above unless told otherwise; the port is in an INFO line.
        builder.environment().put("TRIBUTARY_TEST_LOG", "INFO");
        process = builder.start();
        paused = false;
        port = -1;
    }

    /** Waits until the process started by {@link #startAsync()} reports its port. */
    public void awaitStarted() {
        Path log = output.resolve("broker-" + starts + ".log");
        try {
            Waits.await("the broker process reporting its port").atMost(Duration.ofSeconds(60)).until(() -> {
                if (!process.isAlive()) {
                    throw new AssertionError("the broker process exited with " + process.exitValue() + ":\n"
                            + tail(log));
                }
                port = startedPort(log);
                return port > 0;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + "; its output so far:\n" + tail(log), e);
        }
    }

    public String bootstrapServers() {
        if (port < 0) {
            throw new IllegalStateException("the broker process has not started");
        }
        return "127.0.0.1:" + port;
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. Waits until the process is gone. */
    public void kill() throws InterruptedException {
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
    public int terminate() throws InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("the broker process is not running");
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the broker process " + process.pid() + " did not stop on SIGTERM");
        }
        return process.exitValue();
    }

    /** Waits until the process ends by itself; returns its exit code. */
    public int awaitExit(Duration limit) throws InterruptedException {
        if (process == null) {
            throw new IllegalStateException("the broker process has not started");
        }
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the broker process " + process.pid() + " still runs after " + limit
                    + "; its output:\n" + output());
        }
        return process.exitValue();
    }

    /** The process id of the running broker (of its launcher's last {@code exec}, i.e. the JVM itself). */
    public long pid() {
        if (process == null) {
            throw new IllegalStateException("the broker process has not started");
        }
        return process.pid();
    }

    /** SIGSTOP: the process freezes, its sockets stay open (a hung broker, not a dead one). */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
        paused = false;
    }

    private void signal(String name) throws IOException, InterruptedException {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("the broker process is not running");
        }
        Signals.send(process, name);
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Alive and not frozen by {@link #pause()}: a broker that answers requests. */
    public boolean isServing() {
        return isAlive() && !paused;
    }

    /** The output of the latest start. */
    public String output() {
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
