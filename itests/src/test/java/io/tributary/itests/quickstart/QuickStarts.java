package io.tributary.itests.quickstart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tributary.testsupport.Waits;
import org.awaitility.core.ConditionTimeoutException;

/** What the quick-start ITs share: where things are, and waiting for an order to be listed. */
public final class QuickStarts {

    private static final ObjectMapper JSON = new ObjectMapper();

    private QuickStarts() {
    }

    /** The repository's root: the parent of the module's directory, failsafe's working directory. */
    public static Path repository() {
        Path repository = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        if (!Files.exists(repository.resolve("README.md"))) {
            throw new IllegalStateException("no README.md in " + repository + ": run the ITs through Maven");
        }
        return repository;
    }

    /** A fresh, empty directory {@code name} under the build's work directory (tributary.itests.work). */
    public static Path freshWorkDirectory(String name) throws IOException {
        Path work = Path.of(requiredProperty("tributary.itests.work")).resolve(name);
        if (Files.exists(work)) {
            try (Stream<Path> paths = Files.walk(work)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        return Files.createDirectories(work);
    }

    /** A shell in the repository's root for the README's commands, its ./mvnw using the build's local repository. */
    public static Shell readmeShell(Path repository, Path log) {
        Shell shell = new Shell(repository, log);
        String localRepository = System.getProperty("tributary.itests.maven.repo.local", "");
        if (!localRepository.isEmpty()) {
            shell.export("MAVEN_ARGS", "-Dmaven.repo.local=" + localRepository);
        }
        return shell;
    }

    /**
     * Runs {@code list} (the README's GET) until it lists the order of {@code customer}, as one who sent it would
     * repeat it: the MDB stores it asynchronously.
     */
    public static JsonNode awaitOrder(Supplier<String> list, String customer, Duration timeout) {
        AtomicReference<String> last = new AtomicReference<>();
        AtomicReference<JsonNode> found = new AtomicReference<>();
        try {
            Waits.await("the order of " + customer + " listed").atMost(timeout).pollInterval(Duration.ofMillis(500))
                    .until(() -> {
                        last.set(list.get());
                        for (JsonNode order : JSON.readTree(last.get())) {
                            if (customer.equals(order.path("customer").asText())) {
                                found.set(order);
                                return true;
                            }
                        }
                        return false;
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the order of " + customer + " was not listed within " + timeout + ": "
                    + last.get(), e);
        }
        return found.get();
    }

    /** A system property that the module's pom.xml sets for failsafe. */
    public static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("system property " + name + " is not set: run the ITs through Maven");
        }
        return value;
    }
}
