package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Waits;

/**
 * A main class of the test class path run in a JVM of its own, its output (standard output and error) kept line by
 * line. Closing it kills it ({@code SIGKILL}).
 *
 * <p>Threads: the test's; a daemon thread reads the output.
 */
final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final List<String> transcript = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private ChildJvm(Process process) {
        this.process = process;
        this.reader = new Thread(this::readOutput, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code main} with {@code systemProperties} ({@code -Dname=value} each) and {@code args}. */
    static ChildJvm start(Class<?> main, List<String> systemProperties, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A small client: the machine is shared, and a JVM that compiles less starts sooner.
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(systemProperties);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void readOutput() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                transcript.add(line);
            }
        } catch (IOException e) {
            transcript.add("(output unreadable: " + e + ")");
        }
    }

    /** Waits until the process ends by itself, failing the test after {@code timeoutMs}; returns its exit status. */
    int awaitExit(long timeoutMs) throws InterruptedException {
        if (!process.waitFor(timeoutMs, TimeUnit.MILLISECONDS)) {
            fail("the child did not end within " + timeoutMs + " ms: " + output());
        }
        reader.join(timeoutMs); // the output ends with the process: every line is read
        return process.exitValue();
    }

    /** Waits until the process printed {@code line}, failing the test after {@code timeout}. */
    void awaitLine(String line, Duration timeout) {
        Waits.await(timeout).untilAsserted(() -> {
            assertTrue(process.isAlive() || transcript.contains(line), "the child ended: " + output());
            assertTrue(transcript.contains(line), "the child has not printed '" + line + "' yet: " + output());
        });
    }

    /** {@code SIGKILL}, and waits until the process is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the child did not die");
    }

    /** The lines of output that start with {@code prefix}, without it. */
    List<String> lines(String prefix) {
        List<String> found = new ArrayList<>();
        for (String line : transcript) {
            if (line.startsWith(prefix)) {
                found.add(line.substring(prefix.length()));
            }
        }
        return found;
    }

    /** Asserts that the process printed {@code line}. */
    void assertPrinted(String line) {
        assertTrue(transcript.contains(line), "the child did not print '" + line + "': " + output());
    }

    String output() {
        return String.join("\n", transcript);
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
