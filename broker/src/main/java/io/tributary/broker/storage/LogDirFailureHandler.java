package io.tributary.broker.storage;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Told when an I/O error makes a log directory unusable; the {@link LogManager} takes that directory offline and
 * leaves the other directories alone. Called on whichever thread met the error.
 */
@FunctionalInterface
public interface LogDirFailureHandler {

    LogDirFailureHandler IGNORE = (logDir, cause) -> { };

    void onFailure(Path logDir, IOException cause);
}
