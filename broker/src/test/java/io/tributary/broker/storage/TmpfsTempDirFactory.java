package io.tributary.broker.storage;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * Puts a test's {@code @TempDir} on tmpfs ({@code /dev/shm}) when the machine has one, else in the default temporary
 * directory. Storage tests that create many segments spend their time creating, mapping and forcing index files:
 * measured on the project's CI disk (ext4 on a virtual disk) 12 ms per index file, on tmpfs 0.2 ms. What the tests
 * check does not depend on the file system.
 */
public final class TmpfsTempDirFactory implements TempDirFactory {

    private static final Path TMPFS = Path.of("/dev/shm");

    @Override
    public Path createTempDirectory(AnnotatedElementContext elementContext, ExtensionContext extensionContext)
            throws Exception {
        if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
            return Files.createTempDirectory(TMPFS, "tributary-test-");
        }
        return TempDirFactory.Standard.INSTANCE.createTempDirectory(elementContext, extensionContext);
    }
}
