package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;

/** An index file whose contents cannot be trusted; the segment rebuilds it from the log. */
final class CorruptIndexException extends IOException {
    CorruptIndexException(Path file, String reason) {
        super("corrupt index " + file + ": " + reason);
    }
}
