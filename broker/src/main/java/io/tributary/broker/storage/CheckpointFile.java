package io.tributary.broker.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.TRUNCATE_EXISTING;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small text file holding a list of entries, replaced as a whole on every write. The broker keeps its
 * {@code leader-epoch-checkpoint} (one per partition) and the per-log-directory {@code recovery-point-offset-checkpoint}
 * and {@code log-start-offset-checkpoint} in this form; each owner supplies how one entry becomes one line and back.
 *
 * <p>Format: UTF-8 text, every line ended by {@code '\n'}:
 * <pre>
 * line 1       the format version, a decimal int; {@link #read()} accepts only the version given to the constructor
 * line 2       the number of entry lines that follow, a decimal int
 * line 3...    one entry per line, its fields separated by single spaces (see {@link #fields(String, int)})
 * </pre>
 * For example a leader-epoch checkpoint with two epochs is {@code "0\n2\n0 0\n3 1570\n"}. Nothing may follow the last
 * entry line, so a file cut short or padded is reported as corrupt rather than half-read.
 *
 * <p>{@link #write(Collection)} writes {@code <file>.tmp}, forces it to disk, renames it over {@code <file>} atomically
 * and forces the directory so that the rename itself survives a power loss. A reader therefore sees the whole old list
 * or the whole new list, never a mix; a crash leaves at most a stale {@code .tmp}, which {@link #read()} ignores and the
 * next write overwrites.
 *
 * <p>Threads: {@link #read()} may run on any thread at any time. Writes are not serialised here: callers must ensure
 * that at most one {@link #write(Collection)} of a given file is in progress, because concurrent writers would share
 * the {@code .tmp} file. Every owner already has a single writer (the partition log under its lock, the log manager's
 * checkpoint task), so a lock here would only hide a bug elsewhere.
 *
 * @param <T> the entry type
 */
final class CheckpointFile<T> {

    private static final Logger log = LoggerFactory.getLogger(CheckpointFile.class);

    /** How much of an unparsable line goes into an exception message: enough to recognise it, not a whole blob. */
    private static final int MAX_QUOTED_LINE_CHARS = 80;

    private final Path file;
    private final Path tmpFile;
    private final int version;
    private final Function<T, String> format;
    private final Function<String, T> parse;

    /**
     * @param file    the checkpoint file; its directory must exist before the first write
     * @param version the version written on line 1 and required on read
     * @param format  turns one entry into one line (no line terminator); must not return text containing a line break
     * @param parse   turns one line back into an entry; signals a malformed line by throwing any
     *                {@link RuntimeException} (e.g. {@link NumberFormatException}, {@link IllegalArgumentException}),
     *                which {@link #read()} reports as a {@link CorruptCheckpointException} naming the line
     */
    CheckpointFile(Path file, int version, Function<T, String> format, Function<String, T> parse) {
        this.file = Objects.requireNonNull(file, "file");
        this.tmpFile = file.resolveSibling(file.getFileName() + ".tmp");
        this.version = version;
        this.format = Objects.requireNonNull(format, "format");
        this.parse = Objects.requireNonNull(parse, "parse");
    }

    Path file() {
        return file;
    }

    /**
     * Splits an entry line into exactly {@code expected} fields separated by single spaces, for use in a parse
     * function. Doubled, leading or trailing spaces produce empty fields and so a wrong count: the writer never
     * produces them, so they mean damage.
     *
     * @throws IllegalArgumentException if the line does not have exactly {@code expected} non-empty fields
     */
    static String[] fields(String line, int expected) {
        String[] fields = line.split(" ", -1);
        if (fields.length != expected) {
            throw new IllegalArgumentException(
                    "expected " + expected + " fields separated by single spaces but found " + fields.length);
        }
        for (String field : fields) {
            if (field.isEmpty()) {
                throw new IllegalArgumentException("empty field (doubled, leading or trailing space)");
            }
        }
        return fields;
    }

    /**
     * Reads the entries in file order.
     *
     * @return the entries, unmodifiable; empty if the file does not exist
     * @throws CorruptCheckpointException if the file exists but is not a well-formed checkpoint of this version
     * @throws IOException                if the file cannot be read
     */
    List<T> read() throws IOException {
        BufferedReader reader;
        try {
            reader = Files.newBufferedReader(file, UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        try (reader) {
            return parseAll(new Lines(reader));
        }
    }

    /**
     * Replaces the file's contents with {@code entries}, durably, in iteration order. When this returns the new list is
     * on disk. If it throws, the file holds the old list, or the new one if only the final directory sync failed.
     *
     * @throws IllegalArgumentException if the formatter returns text containing a line break
     */
    void write(Collection<T> entries) throws IOException {
        byte[] content = render(List.copyOf(entries));
        try {
            try (FileChannel channel = FileChannel.open(tmpFile, CREATE, TRUNCATE_EXISTING, WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                // Data before rename: otherwise a crash could leave the new name pointing at an empty file.
                channel.force(true);
            }
            Files.move(tmpFile, file, ATOMIC_MOVE, REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmpFile);
            } catch (IOException cleanupFailure) {
                e.addSuppressed(cleanupFailure);
            }
            throw e;
        }
        forceDirectory(file.toAbsolutePath().getParent());
    }

    private byte[] render(List<T> entries) {
        StringBuilder text = new StringBuilder(16 + 24 * entries.size());
        text.append(version).append('\n').append(entries.size()).append('\n');
        for (T entry : entries) {
            String line = format.apply(entry);
            if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
                throw new IllegalArgumentException("Checkpoint entry for " + file + " formats to more than one line: "
                        + quote(line));
            }
            text.append(line).append('\n');
        }
        return text.toString().getBytes(UTF_8);
    }

    /**
     * Makes a completed rename durable. Linux and macOS allow a directory to be opened and forced; some platforms
     * (Windows) refuse to open a directory at all, and there the rename is as durable as the OS makes it, so a refusal
     * to open is logged and ignored. A failure of the force itself is a real I/O error and propagates.
     */
    private static void forceDirectory(Path directory) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(directory, READ);
        } catch (IOException e) {
            log.debug("Cannot open directory {} to sync it; relying on the platform to persist the rename", directory, e);
            return;
        }
        try (channel) {
            channel.force(true);
        }
    }

    private List<T> parseAll(Lines lines) throws IOException {
        int foundVersion = lines.nextInt("the version");
        if (foundVersion != version) {
            throw lines.corrupt("expected version " + version + " but found " + foundVersion);
        }
        int count = lines.nextInt("the entry count");
        if (count < 0) {
            throw lines.corrupt("negative entry count " + count);
        }
        // The count is untrusted until the lines are there, so it does not size the list beyond reason.
        List<T> entries = new ArrayList<>(Math.min(count, 1024));
        for (int i = 1; i <= count; i++) {
            String line = lines.next("entry " + i + " of " + count);
            T entry;
            try {
                entry = parse.apply(line);
            } catch (RuntimeException e) {
                throw lines.corrupt("cannot parse entry " + quote(line) + ": " + e.getMessage(), e);
            }
            if (entry == null) {
                throw lines.corrupt("cannot parse entry " + quote(line));
            }
            entries.add(entry);
        }
        if (lines.hasMore()) {
            throw lines.corruptAtNext("expected " + count + " entries but found more lines");
        }
        return Collections.unmodifiableList(entries);
    }

    private static String quote(String line) {
        return line.length() <= MAX_QUOTED_LINE_CHARS
                ? "'" + line + "'"
                : "'" + line.substring(0, MAX_QUOTED_LINE_CHARS) + "...' (" + line.length() + " chars)";
    }

    /** A cursor over the file's lines that knows which line it is on, so every complaint can name it. */
    private final class Lines {
        private final BufferedReader reader;
        private int number;

        Lines(BufferedReader reader) {
            this.reader = reader;
        }

        String next(String expected) throws IOException {
            String line = readLine();
            if (line == null) {
                throw corruptAtNext("expected " + expected + " but the file ends after " + number + " lines");
            }
            number++;
            return line;
        }

        int nextInt(String expected) throws IOException {
            String line = next(expected);
            try {
                return Integer.parseInt(line);
            } catch (NumberFormatException e) {
                throw corrupt("expected " + expected + " as a decimal int but found " + quote(line));
            }
        }

        boolean hasMore() throws IOException {
            return readLine() != null;
        }

        private String readLine() throws IOException {
            try {
                return reader.readLine();
            } catch (CharacterCodingException e) {
                // No line number: the reader decodes ahead in blocks, so the bad bytes may be lines past this one.
                throw new CorruptCheckpointException(file, "not UTF-8 text");
            }
        }

        CorruptCheckpointException corrupt(String problem) {
            return new CorruptCheckpointException(file, number, problem);
        }

        CorruptCheckpointException corrupt(String problem, Throwable cause) {
            return new CorruptCheckpointException(file, number, problem, cause);
        }

        CorruptCheckpointException corruptAtNext(String problem) {
            return new CorruptCheckpointException(file, number + 1, problem);
        }
    }
}
