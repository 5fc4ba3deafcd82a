package io.tributary.itests.quickstart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shell commands of a fenced code block of a Markdown file, as a reader would type them: the first block after a
 * heading, without comment and blank lines, a line ending in a backslash joined with the next (as the shell does).
 *
 * <p>{@link #substitute} replaces literal text in every command, for what a test must change (the server's home,
 * ports); each replaced text must occur, so that a README that no longer says it fails the test instead of running
 * something else.
 */
public final class ReadmeBlock {

    private final String source;
    private final List<String> commands;

    private ReadmeBlock(String source, List<String> commands) {
        this.source = source;
        this.commands = commands;
    }

    /** The first fenced block after the line {@code heading} (exactly, e.g. {@code "### An MDB in WildFly"}). */
    public static ReadmeBlock after(Path markdown, String heading) {
        List<String> lines;
        try {
            lines = Files.readAllLines(markdown);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int at = lines.indexOf(heading);
        if (at < 0) {
            throw new AssertionError(markdown + " has no heading '" + heading + "'");
        }
        int open = at + 1;
        while (open < lines.size() && !lines.get(open).startsWith("```")) {
            open++;
        }
        List<String> commands = new ArrayList<>();
        StringBuilder pending = null;
        for (int i = open + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                if (pending != null) {
                    throw new AssertionError(markdown + ": the block after '" + heading + "' ends in a continuation");
                }
                return new ReadmeBlock(markdown + " (" + heading + ")", List.copyOf(commands));
            }
            String text = line.strip();
            if (pending == null && (text.isEmpty() || text.startsWith("#"))) {
                continue;
            }
            String part = text.endsWith("\\") ? text.substring(0, text.length() - 1).stripTrailing() : text;
            pending = pending == null ? new StringBuilder(part) : pending.append(' ').append(part);
            if (!text.endsWith("\\")) {
                commands.add(pending.toString());
                pending = null;
            }
        }
        throw new AssertionError(markdown + " has no fenced block after '" + heading + "'");
    }

    /** The commands, in order. */
    public List<String> commands() {
        return commands;
    }

    /** The commands with each key of {@code replacements} replaced by its value; each key must occur somewhere. */
    public ReadmeBlock substitute(Map<String, String> replacements) {
        Map<String, Integer> uses = new LinkedHashMap<>();
        List<String> replaced = new ArrayList<>();
        for (String command : commands) {
            String result = command;
            for (Map.Entry<String, String> replacement : replacements.entrySet()) {
                if (result.contains(replacement.getKey())) {
                    uses.merge(replacement.getKey(), 1, Integer::sum);
                    result = result.replace(replacement.getKey(), replacement.getValue());
                }
            }
            replaced.add(result);
        }
        for (String key : replacements.keySet()) {
            if (!uses.containsKey(key)) {
                throw new AssertionError(source + " no longer contains '" + key + "', which the test replaces: "
                        + "update the test with the README\n" + String.join("\n", commands));
            }
        }
        return new ReadmeBlock(source, List.copyOf(replaced));
    }

    /** The one command that contains {@code text}. */
    public String commandContaining(String text) {
        List<String> found = commands.stream().filter(command -> command.contains(text)).toList();
        if (found.size() != 1) {
            throw new AssertionError(source + ": expected one command containing '" + text + "', found " + found);
        }
        return found.get(0);
    }

    @Override
    public String toString() {
        return source + ":\n" + String.join("\n", commands);
    }
}
