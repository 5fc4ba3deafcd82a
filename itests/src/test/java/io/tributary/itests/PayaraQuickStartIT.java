package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import io.tributary.itests.quickstart.QuickStarts;
import io.tributary.itests.quickstart.ReadmeBlock;
import io.tributary.itests.quickstart.ReadmeBroker;
import io.tributary.itests.quickstart.Shell;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Payara's quick start (docs/deploy-payara.md, "Quick start") as a newcomer types it, as {@link WildFlyQuickStartIT}
 * does WildFly's: the commands read from the document and run with bash from the repository's root, after the
 * README's broker command ({@link ReadmeBroker}). Replaced: where Payara is unpacked (target/itests-work/
 * quickstart-payara/servers), and the ports: domain1's listeners are rewritten in its domain.xml right after the
 * unpack (free ports, as itests-payara's configure-domain.xml does for Arquillian's domain), asadmin finds the admin
 * port in {@code AS_ADMIN_PORT}, and the URLs name the HTTP port. The document uses the adapter's default broker
 * address, 127.0.0.1:9092; the test's broker, on a free port, goes into domain.xml as the JVM option
 * tributary.bootstrap.servers, as the document's step 1 of "Deploy on Payara" would put it.
 *
 * <p>Measured on the shared 2-core machine at a load of 12-15: 3.5-4.9 min (the build 50 s, the start 40 s, the
 * deployment 70 s), also with Arquillian's Payara (ExampleEarIT) up beside it.
 *
 * <p>Checks that the order posted is listed with its partition and offset. The document's last command stops the
 * domain; if it still runs after that (or the test failed before), its PID (domain1/config/pid) is killed.
 */
@EnabledIfSystemProperty(named = "tributary.itests.server", matches = "payara",
        disabledReason = "Payara's quick start (WildFlyQuickStartIT is WildFly's)")
@Timeout(value = 25, unit = TimeUnit.MINUTES)
class PayaraQuickStartIT {

    /** domain1's listeners in domain.xml as the distribution has it: a pattern whose group 1 is kept around the port. */
    private static final List<String> PORTS = List.of(
            "port=\"\\d+\"( protocol=\"http-listener-1\")", "port=\"\\d+\"( protocol=\"http-listener-2\")",
            "port=\"\\d+\"( protocol=\"admin-listener\")", "port=\"\\d+\"( id=\"orb-listener-1\")",
            "port=\"\\d+\"( id=\"SSL\")", "port=\"\\d+\"( id=\"SSL_MUTUALAUTH\")", "port=\"\\d+\"( name=\"system\")");

    @Test
    void theQuickStartsCommandsBringAnOrderToTheMdb() throws Exception {
        Path repository = QuickStarts.repository();
        Path work = QuickStarts.freshWorkDirectory("quickstart-payara");
        Path payaraHome = work.resolve("servers/payara6");
        int http = ReadmeBroker.freePort();
        int admin = ReadmeBroker.freePort();

        try (ReadmeBroker broker = ReadmeBroker.start(repository, work.resolve("broker"), Duration.ofMinutes(3))) {
            Map<String, String> replacements = new LinkedHashMap<>();
            replacements.put("-DoutputDirectory=servers", "-DoutputDirectory=" + work.resolve("servers"));
            replacements.put("$PWD/servers/", work.resolve("servers") + "/");
            replacements.put("http://127.0.0.1:8080/", "http://127.0.0.1:" + http + "/");
            ReadmeBlock document = ReadmeBlock.after(repository.resolve("docs/deploy-payara.md"), "## Quick start");
            document.commandContaining("fish.payara.distributions:payara:"
                    + QuickStarts.requiredProperty("tributary.itests.payara.version") + ":zip");
            ReadmeBlock block = document.substitute(replacements);

            Shell shell = QuickStarts.readmeShell(repository, work.resolve("commands.log"));
            shell.export("AS_ADMIN_PORT", Integer.toString(admin));
            List<String> commands = new ArrayList<>(block.commands());
            String stop = block.commandContaining("stop-domain");
            assertEquals(stop, commands.remove(commands.size() - 1), "the last command stops the domain");
            String list = commands.remove(commands.size() - 1);
            assertTrue(list.startsWith("curl ") && !list.contains(" -d "), "the last command but one lists orders");

            boolean stopped = false;
            try {
                for (String command : commands) {
                    if (command.startsWith("export ")) {
                        shell.runExport(command);
                        if (command.startsWith("export PAYARA_HOME=")) {
                            assertEquals(payaraHome.toString(), shell.exported("PAYARA_HOME"));
                            configure(payaraHome, http, admin, broker.bootstrapServers());
                        }
                    } else if (command.startsWith("curl ")) {
                        String answer = shell.run(command, Duration.ofMinutes(1));
                        assertTrue(answer.startsWith("HTTP/1.1 202"), "the order was not accepted: " + answer);
                    } else {
                        shell.run(command, Duration.ofMinutes(10));
                    }
                }
                JsonNode alice = QuickStarts.awaitOrder(() -> shell.run(list, Duration.ofMinutes(1)), "alice",
                        Duration.ofMinutes(2));
                assertEquals("apples", alice.path("item").asText(), alice.toString());
                assertEquals(3, alice.path("quantity").asInt(), alice.toString());
                assertTrue(alice.path("partition").isInt() && alice.path("offset").isIntegralNumber(),
                        "stored without its partition and offset: " + alice);

                Optional<ProcessHandle> server = domainProcess(payaraHome);
                shell.run(stop, Duration.ofMinutes(3));
                stopped = true;
                if (server.isPresent()) {
                    server.get().onExit().get(1, TimeUnit.MINUTES);   // or a TimeoutException: it still runs
                }
            } finally {
                Optional<ProcessHandle> server = domainProcess(payaraHome);
                if (!stopped && server.isPresent()) {
                    try {
                        shell.run(stop, Duration.ofMinutes(3));
                    } catch (AssertionError e) {
                        shell.note("stop-domain failed: " + e.getMessage());
                    }
                }
                server.filter(ProcessHandle::isAlive).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /**
     * Gives every listener of domain1 a free port, the HTTP and admin listeners {@code http} and {@code admin}, and
     * the server the JVM option {@code tributary.bootstrap.servers} (the document relies on the default broker).
     */
    private static void configure(Path payaraHome, int http, int admin, String bootstrapServers) throws Exception {
        Path domainXml = payaraHome.resolve("glassfish/domains/domain1/config/domain.xml");
        String xml = Files.readString(domainXml);
        for (String port : PORTS) {
            int value = port.contains("http-listener-1") ? http : port.contains("admin-listener") ? admin
                    : ReadmeBroker.freePort();
            xml = replaceOnce(xml, port, "port=\"" + value + "\"$1");
        }
        xml = replaceOnce(xml, "(name=\"JMS_PROVIDER_PORT\" value=)\"\\d+\"", "$1\"" + ReadmeBroker.freePort() + "\"");
        xml = replaceOnce(xml, "-Dosgi\\.shell\\.telnet\\.port=\\d+",
                "-Dosgi.shell.telnet.port=" + ReadmeBroker.freePort());
        xml = replaceOnce(xml, "(debug-options=\"[^\"]*address=)\\d+", "$1" + ReadmeBroker.freePort());
        xml = replaceOnce(xml, "start-port=\"\\d+\" das-port=\"\\d+\"",
                "start-port=\"" + ReadmeBroker.freePort() + "\" das-port=\"" + ReadmeBroker.freePort() + "\"");
        xml = replaceOnce(xml, "(\\n(\\s*)<jvm-options>-server</jvm-options>)",   // server-config's, the first
                "$1\n$2<jvm-options>-Dtributary.bootstrap.servers=" + bootstrapServers + "</jvm-options>");
        Files.writeString(domainXml, xml);
    }

    private static String replaceOnce(String text, String regex, String replacement) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        if (!matcher.find()) {
            throw new AssertionError("domain.xml has no " + regex + " (another Payara version?)");
        }
        return matcher.replaceFirst(replacement);
    }

    /** The running domain1's server process, from its pid file. */
    private static Optional<ProcessHandle> domainProcess(Path payaraHome) throws Exception {
        Path pid = payaraHome.resolve("glassfish/domains/domain1/config/pid");
        if (!Files.exists(pid)) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(Files.readString(pid).strip())).filter(ProcessHandle::isAlive);
    }
}
