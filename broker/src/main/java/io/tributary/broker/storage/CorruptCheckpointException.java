package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalInt;

/**
 * A checkpoint file exists but does not hold what its reader expects: a wrong version, an entry count that does not
 * match the entry lines, a line that does not parse, or entries that break the owner's invariants.
 *
 * <p>It is an {@link IOException} because the cause is the content of a file on disk, and callers that load state at
 * start-up already treat I/O failures of a log directory as one kind of problem. It is public so that other packages
 * (the log manager, the broker's start-up) can tell a corrupt checkpoint apart from a failing disk.
 */
public final class CorruptCheckpointException extends IOException {

    private final Path file;
    /** 1-based line of the file where the problem was found, or 0 when it is not on one line. */
    private final int lineNumber;

    CorruptCheckpointException(Path file, int lineNumber, String problem) {
        this(file, lineNumber, problem, null);
    }

    CorruptCheckpointException(Path file, int lineNumber, String problem, Throwable cause) {
        super("Corrupt checkpoint file " + file + ", line " + lineNumber + ": " + problem, cause);
        this.file = file;
        this.lineNumber = lineNumber;
    }

    CorruptCheckpointException(Path file, String problem) {
        super("Corrupt checkpoint file " + file + ": " + problem);
        this.file = file;
        this.lineNumber = 0;
    }

    public Path file() {
        return file;
    }

    public OptionalInt lineNumber() {
        return lineNumber > 0 ? OptionalInt.of(lineNumber) : OptionalInt.empty();
    }
}
