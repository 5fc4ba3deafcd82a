package io.tributary.itests.quickstart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a README's commands as a reader would, with bash in one directory, each under a deadline, and keeps what they
 * print in one log file (named in every failure).
 *
 * <p>{@code curl} runs as itself when the machine has it; otherwise a command starting with {@code curl} is read
 * into its arguments by bash (so quoting is the shell's) and sent with Java's HTTP client, printing what curl would
 * for the options the READMEs use: {@code -i}, {@code -s}, {@code -H}, {@code -d} (a POST) and the URL.
 *
 * <p>Processes started in the background ({@link #start}) are stopped by {@link #stop}: by their PID and their
 * descendants' (a server's start script leaves its JVM as a child), gently first, then forcibly.
 */
public final class Shell {

    private static final Pattern EXPORT = Pattern.compile("export ([A-Za-z_][A-Za-z0-9_]*)=.*");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private final Path directory;
    private final Path log;
    private final Map<String, String> environment = new HashMap<>();
    private final boolean curlInstalled;

    /** Commands run in {@code directory}; their output goes to {@code log} (appended). */
    public Shell(Path directory, Path log) {
        this.directory = directory;
        this.log = log;
        this.curlInstalled = exitCode("command -v curl") == 0;
    }

    /** The log file of every command's output. */
    public Path log() {
        return log;
    }

    /** Sets an environment variable for the commands that follow, as {@code export NAME=value} would. */
    public void export(String name, String value) {
        environment.put(name, value);
    }

    /** The variable as exported, or null. */
    public String exported(String name) {
        return environment.get(name);
    }

    /**
     * Runs an {@code export NAME=VALUE} command: bash expands VALUE (in this shell's directory and environment), and
     * the result is exported to the commands that follow.
     */
    public void runExport(String command) {
        Matcher matcher = EXPORT.matcher(command);
        if (!matcher.matches()) {
            throw new AssertionError("not an export: " + command);
        }
        String name = matcher.group(1);
        export(name, run(command + "; printf %s \"$" + name + "\"", Duration.ofSeconds(30)));
    }

    /** Runs {@code command} and returns what it printed on stdout; fails unless it exits with 0 before the deadline. */
    public String run(String command, Duration timeout) {
        if (!curlInstalled && command.startsWith("curl ")) {
            return curl(command);
        }
        note("$ " + command);
        Path stdout = log.resolveSibling(log.getFileName() + ".stdout");
        ProcessBuilder builder = builder(command).redirectOutput(stdout.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                stop(process, Duration.ZERO);
                throw new AssertionError("still running after " + timeout + ": " + command + " (output in " + log
                        + ")");
            }
            String output = Files.readString(stdout);
            append(output.isEmpty() || output.endsWith("\n") ? output : output + "\n");
            if (process.exitValue() != 0) {
                throw new AssertionError("exit code " + process.exitValue() + ": " + command + " (output in " + log
                        + ")");
            }
            return output;
        } catch (InterruptedException e) {
            stop(process, Duration.ZERO);
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + command, e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts {@code command} in the background, its output (stdout and stderr) going to {@code output}. */
    public Process start(String command, Path output) {
        note("$ " + command + " &   (output in " + output + ")");
        try {
            return builder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Stops a process started by {@link #start} and its descendants: SIGTERM to each, then, after {@code grace},
     * SIGKILL to whatever still runs. Returns whether all had ended before the kill.
     */
    public static boolean stop(Process process, Duration grace) {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        boolean ended = true;
        for (ProcessHandle handle : all) {
            try {
                handle.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = false;
                break;
            } catch (ExecutionException | TimeoutException e) {
                ended = false;
            }
        }
        all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        return ended;
    }

    /** Appends a line, with the time, to the log. */
    public void note(String line) {
        append(LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss")) + " " + line + "\n");
    }

    private ProcessBuilder builder(String command) {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).directory(directory.toFile());
        builder.environment().putAll(environment);
        return builder;
    }

    private int exitCode(String command) {
        try {
            Process process = builder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** A curl command sent with Java's HTTP client (no curl on this machine). */
    private String curl(String command) {
        note("$ " + command + "   (curl is not installed: sent with Java's HTTP client)");
        String[] args = run("printf '%s\\0'" + command.substring("curl".length()), Duration.ofSeconds(30))
                .split("\0");
        boolean headers = false;
        Map<String, String> requestHeaders = new HashMap<>();
        String data = null;
        String url = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-i" -> headers = true;
                case "-s" -> { }
                case "-H" -> {
                    String[] header = args[++i].split(":", 2);
                    requestHeaders.put(header[0].strip(), header[1].strip());
                }
                case "-d" -> data = args[++i];
                default -> {
                    if (args[i].startsWith("-") || url != null) {
                        throw new AssertionError("curl option the test does not know: " + args[i] + " in " + command);
                    }
                    url = args[i];
                }
            }
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30));
        requestHeaders.forEach(request::header);
        request.method(data == null ? "GET" : "POST", data == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(data));
        try {
            HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
            StringBuilder output = new StringBuilder();
            if (headers) {
                output.append("HTTP/1.1 ").append(response.statusCode()).append("\r\n");
                response.headers().map().forEach((name, values) -> values.forEach(
                        value -> output.append(name).append(": ").append(value).append("\r\n")));
                output.append("\r\n");
            }
            output.append(response.body());
            append(output + "\n");
            return output.toString();
        } catch (IOException e) {
            throw new AssertionError("curl: " + url + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private void append(String text) {
        try {
            Files.writeString(log, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
