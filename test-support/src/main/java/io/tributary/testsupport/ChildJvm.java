package io.tributary.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A client program in a JVM of its own: a main class of the test's class path, started with a small heap, its output
 * (stdout and stderr) in a log file, so that a test can SIGKILL it in the middle of its work, as a crash would end it,
 * and start it again. The program says how far it got by printing lines, which {@link #awaitLine} waits for.
 *
 * <p>Test thread only. {@link #pause()} and {@link #resume()} freeze it and let it go on. {@link #kill()} is safe to
 * call at any time and more than once; tests call it in a {@code finally} or {@code @AfterEach} so that no child
 * outlives its test.
 */
public final class ChildJvm implements AutoCloseable {

    private final List<String> command = new ArrayList<>();
    private final Path log;
    private Process process;

    /**
     * @param log       where the program's output goes (replaced at each start)
     * @param mainClass the program's main class, on the test's class path
     * @param args      its arguments
     */
    public ChildJvm(Path log, Class<?> mainClass, String... args) {
        this(log, List.of(), mainClass, args);
    }

    /**
     * @param jvmOptions further options of the JVM, e.g. {@code -Dname=value} system properties
     */
    public ChildJvm(Path log, List<String> jvmOptions, Class<?> mainClass, String... args) {
        this.log = log;
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // As for broker processes: a client of a test works for seconds, beside brokers, on two cores.
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
    }

    /** Starts the program; it must not be running. */
    public ChildJvm start() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("the child JVM is running");
        }
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return this;
    }

    /**
     * Waits until the program has printed a line containing {@code text}, failing at once (with the log's tail) if it
     * exits first.
     */
    public void awaitLine(String text, Duration atMost) {
        Waits.await("the child JVM printing '" + text + "'").atMost(atMost).until(() -> {
            if (output().contains(text)) {
                return true;
            }
            if (!process.isAlive()) {
                throw new AssertionError("the child JVM exited with " + process.exitValue() + " before printing '"
                        + text + "':\n" + tail());
            }
            return false;
        });
    }

    /** Waits for the program to exit by itself; returns its exit code. */
    public int awaitExit(Duration atMost) {
        Waits.await("the child JVM exiting").atMost(atMost).until(() -> !process.isAlive());
        return process.exitValue();
    }

    /** SIGKILL: the program stops at once, without running shutdown hooks or closing anything. */
    public void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** SIGSTOP: the program freezes, its sockets open (a hung client, not a dead one); {@link #kill()} ends it. */
    public void pause() throws IOException, InterruptedException {
        Signals.send(process, "STOP");
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() throws IOException, InterruptedException {
        Signals.send(process, "CONT");
    }

    /** Same as {@link #kill()}, for try-with-resources. */
    @Override
    public void close() {
        kill();
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Everything the program printed since its last start. */
    public String output() {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException("Reading the child JVM's output " + log, e);
        }
    }

    /** Whether the program printed exactly this line. */
    public boolean printed(String line) {
        return output().lines().anyMatch(line::equals);
    }

    /** The lines the program printed that start with {@code prefix}, without it, in order. */
    public List<String> lines(String prefix) {
        return output().lines().filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length())).toList();
    }

    /** The last 40 lines of the output, for failure messages. */
    public String tail() {
        try {
            List<String> lines = output().lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (UncheckedIOException e) {
            return "(output unreadable: " + e.getMessage() + ")";
        }
    }
}
