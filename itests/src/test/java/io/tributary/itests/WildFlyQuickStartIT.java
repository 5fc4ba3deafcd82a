package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.tributary.itests.quickstart.QuickStarts;
import io.tributary.itests.quickstart.ReadmeBlock;
import io.tributary.itests.quickstart.ReadmeBroker;
import io.tributary.itests.quickstart.Shell;
import io.tributary.testsupport.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;

/**
 * The README's quick start, "An MDB in WildFly", as a newcomer types it: the test reads the commands from README.md and
 * runs them with bash from the repository's root, after starting the broker of the README's first command
 * ({@link ReadmeBroker}). It replaces only what must differ on a shared machine: where WildFly is unpacked (this
 * module's target/ instead of servers/), WildFly's ports (a port offset of its own, never the other ITs' 100, so
 * that its own WildFly, not the one Arquillian manages, runs the commands) and the broker's address. It waits where
 * the README says to wait (WildFly's "started" message), and repeats the last GET until the order is listed, as a
 * reader would.
 *
 * <p>It checks that the order posted is stored by the EAR's MDB and listed with the partition and offset of its
 * record. Then, beyond the README, that the stand-alone tributary-ra.rar deploys beside the EAR (whose embedded
 * adapter binds its factory under a name of its own) and that a second order still arrives. The README's last command
 * stops WildFly; whatever still runs at the end, server or broker, is stopped by PID.
 *
 * <p>Everything the commands print is in target/itests-work/quickstart-wildfly/commands.log, WildFly's console in
 * wildfly-console.log there. Measured on the shared 2-core machine: 2 min at a load of 8-10, 4.7 min at 14 (the
 * README's unpack 12-29 s, its build 29-79 s, WildFly's start 39-68 s).
 */
@DisabledIfSystemProperty(named = "tributary.itests.server", matches = "payara",
        disabledReason = "WildFly's quick start (PayaraQuickStartIT is Payara's)")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class WildFlyQuickStartIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** The port offsets tried for this WildFly, skipping the other ITs' 100. */
    private static final int[] PORT_OFFSETS = {200, 300, 400, 500, 600, 700, 800, 900};

    /** WildFly's default ports in standalone.xml, before the offset. */
    private static final int[] WILDFLY_PORTS = {8080, 8443, 9990, 9993, 8009, 4712, 4713};

    @Test
    void theReadmesCommandsBringAnOrderToTheMdb() throws Exception {
        Path repository = QuickStarts.repository();
        Path work = QuickStarts.freshWorkDirectory("quickstart-wildfly");
        String wildFly = Path.of(QuickStarts.requiredProperty("jboss.home")).getFileName().toString(); // wildfly-<v>
        int offset = freePortOffset();
        int http = 8080 + offset;
        int management = 9990 + offset;

        Process server = null;
        try (ReadmeBroker broker = ReadmeBroker.start(repository, work.resolve("broker"), Duration.ofMinutes(3))) {
            Map<String, String> replacements = new LinkedHashMap<>();
            replacements.put("-DoutputDirectory=servers", "-DoutputDirectory=" + work.resolve("servers"));
            replacements.put("$PWD/servers/", work.resolve("servers") + "/");
            replacements.put("127.0.0.1:9092", broker.bootstrapServers());
            replacements.put("bin/standalone.sh ",
                    "bin/standalone.sh -Djboss.socket.binding.port-offset=" + offset + " ");
            replacements.put("http://127.0.0.1:8080/", "http://127.0.0.1:" + http + "/");
            replacements.put("jboss-cli.sh -c ", "jboss-cli.sh --controller=127.0.0.1:" + management + " -c ");
            ReadmeBlock readme = ReadmeBlock.after(repository.resolve("README.md"), "### An MDB in WildFly");
            // The README unpacks the WildFly the ITs run.
            readme.commandContaining("org.wildfly:wildfly-dist:" + wildFly.substring("wildfly-".length()) + ":zip");
            readme.commandContaining("/servers/" + wildFly);
            ReadmeBlock block = readme.substitute(replacements);

            Shell shell = QuickStarts.readmeShell(repository, work.resolve("commands.log"));
            List<String> commands = new ArrayList<>(block.commands());
            String shutdown = block.commandContaining(":shutdown");
            assertEquals(shutdown, commands.get(commands.size() - 1), "the README's last command stops WildFly");
            commands.remove(commands.size() - 1);
            String list = commands.remove(commands.size() - 1);
            assertTrue(list.startsWith("curl ") && !list.contains(" -d "), "the last command but one lists orders");

            for (String command : commands) {
                if (command.startsWith("export ")) {
                    shell.runExport(command);
                } else if (command.endsWith("&")) {
                    server = shell.start(command.substring(0, command.length() - 1).strip(),
                            work.resolve("wildfly-console.log"));
                    awaitStarted(server, work.resolve("wildfly-console.log"), Duration.ofMinutes(5));
                } else if (command.startsWith("curl ")) {
                    String answer = shell.run(command, Duration.ofMinutes(1));
                    assertTrue(answer.startsWith("HTTP/1.1 202"), "the order was not accepted: " + answer);
                } else {
                    shell.run(command, Duration.ofMinutes(10));
                }
            }
            assertTrue(server != null, "the README starts no server: " + block);

            JsonNode alice = QuickStarts.awaitOrder(() -> shell.run(list, Duration.ofMinutes(1)), "alice",
                    Duration.ofMinutes(2));
            assertEquals("apples", alice.path("item").asText(), alice.toString());
            assertEquals(3, alice.path("quantity").asInt(), alice.toString());
            assertTrue(alice.path("partition").isInt() && alice.path("offset").isIntegralNumber(),
                    "stored without its partition and offset: " + alice);

            // Beyond the README: the stand-alone adapter beside the EAR, and an order after it.
            Path deployments = Path.of(shell.exported("JBOSS_HOME"), "standalone/deployments");
            deploy(repository.resolve("resource-adapter/target/tributary-ra.rar"), deployments, server,
                    Duration.ofMinutes(3));
            HttpResponse<String> posted = HTTP.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + http + "/tributary-example/api/orders"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"customer\": \"bob\", \"item\": \"pears\", \"quantity\": 2}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(202, posted.statusCode(), posted.body());
            JsonNode bob = QuickStarts.awaitOrder(() -> shell.run(list, Duration.ofMinutes(1)), "bob",
                    Duration.ofMinutes(2));
            assertEquals("pears", bob.path("item").asText(), bob.toString());

            shell.run(shutdown, Duration.ofMinutes(2));
            assertTrue(server.waitFor(2, TimeUnit.MINUTES), "WildFly still runs after the README's shutdown");
            String console = Files.readString(work.resolve("wildfly-console.log"));
            assertTrue(!console.contains("DuplicateServiceException"), "see " + work.resolve("wildfly-console.log"));
        } finally {
            if (server != null && server.isAlive()) {
                Shell.stop(server, Duration.ofSeconds(30));
            }
        }
    }

    /** Waits for WildFly's "started" message (WFLYSRV0025); fails on "started (with errors)" or if it exits. */
    private static void awaitStarted(Process server, Path console, Duration timeout) {
        Waits.await("WildFly's started message (see " + console + ")").atMost(timeout)
                .pollInterval(Duration.ofMillis(500)).until(() -> {
                    String text = Files.exists(console) ? Files.readString(console) : "";
                    if (text.contains("WFLYSRV0026")) {
                        throw new AssertionError("WildFly started with errors (see " + console + ")");
                    }
                    if (!text.contains("WFLYSRV0025") && !server.isAlive()) {
                        throw new AssertionError("WildFly exited with " + server.exitValue() + " (see " + console
                                + ")");
                    }
                    return text.contains("WFLYSRV0025");
                });
    }

    /**
     * Deploys {@code archive} through the deployment scanner (moved in whole, so never seen half-copied) and waits
     * for its .deployed marker; fails on .failed, with the marker's reason.
     */
    private static void deploy(Path archive, Path deployments, Process server, Duration timeout) throws Exception {
        String name = archive.getFileName().toString();
        Path copy = deployments.resolve(name + ".copying");
        Files.copy(archive, copy, StandardCopyOption.REPLACE_EXISTING);
        Files.move(copy, deployments.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        Waits.await(name + " deployed beside the EAR").atMost(timeout).pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    Path failed = deployments.resolve(name + ".failed");
                    if (Files.exists(failed)) {
                        throw new AssertionError(name + " beside the EAR failed: " + Files.readString(failed));
                    }
                    if (!server.isAlive()) {
                        throw new AssertionError("WildFly exited while " + name + " was being deployed");
                    }
                    return Files.exists(deployments.resolve(name + ".deployed"));
                });
    }

    /** The first of {@link #PORT_OFFSETS} at which none of WildFly's ports is in use. */
    private static int freePortOffset() {
        for (int offset : PORT_OFFSETS) {
            boolean free = true;
            for (int port : WILDFLY_PORTS) {
                try (ServerSocket socket = new ServerSocket(port + offset, 1, InetAddress.getByName("127.0.0.1"))) {
                    socket.setReuseAddress(true);
                } catch (IOException e) {
                    free = false;
                    break;
                }
            }
            if (free) {
                return offset;
            }
        }
        throw new AssertionError("no free port offset for WildFly among " + Arrays.toString(PORT_OFFSETS));
    }
}
