package io.tributary.itests;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.tributary.itests.seen.SeenTopic;
import io.tributary.itests.xacrash.CrashPoint;
import io.tributary.itests.xacrash.ReplyingListener;
import io.tributary.jms.TributaryConnection;
import io.tributary.jms.TributaryConnectionFactory;
import jakarta.jms.Connection;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.IsolationLevel;
import org.jboss.arquillian.container.test.api.ContainerController;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.TargetsContainer;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * XA across a crash of the application server: an XA MDB ({@link ReplyingListener}) handles a request in one
 * transaction of three resources (the consumed offset, a JPA row in an XA datasource, a reply sent through the
 * adapter), and the server process is SIGKILLed in the middle of the two-phase commit, at a fault point of the
 * test's own (an XAResource of the same transaction that stops there and says so:
 * {@code io.tributary.itests.xacrash.CrashPoint}); then the server starts again and its transaction manager
 * recovers. Afterwards the row, the reply and the consumed offset agree, and nothing is left in doubt, neither in the
 * database nor in Tributary's XA log nor as an open Kafka transaction:
 *
 * <ul>
 *   <li>killed after every branch prepared, before the decision: recovery rolls them back (presumed abort), the
 *       request is delivered again and handled then, once;</li>
 *   <li>killed in the commit phase, after the decision, when the delivery's branch has committed (the transaction
 *       managers commit in the order the branches joined) and the row's and the reply's are prepared: recovery
 *       commits them; the request is not handled a second time.</li>
 * </ul>
 *
 * <p>The server is Arquillian's container {@value #SERVER}, in manual mode (arquillian-crash.xml, read by this
 * class's own failsafe execution), so that the test can kill it and start it again; the deployments stay
 * registered with the server across the restart.
 */
@ExtendWith({TributaryBroker.class, ArquillianExtension.class})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class XaCrashRecoveryIT {

    static final String SERVER = "crash";
    private static final String ADAPTER = "adapter";
    private static final String APP = "app";
    private static final String STARTER = "starter";
    private static final String WAR = "xacrash";
    /** Bounds the restart and the transaction manager's recovery scans. */
    private static final Duration RECOVERY_TIMEOUT = Duration.ofMinutes(4);
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @Deployment(name = ADAPTER, order = 1, managed = false, testable = false)
    @TargetsContainer(SERVER)
    static ResourceAdapterArchive adapter() {
        return Deployments.resourceAdapter();
    }

    @Deployment(name = APP, order = 2, managed = false, testable = false)
    @TargetsContainer(SERVER)
    static WebArchive application() {
        WebArchive war = Deployments.applicationBesideAdapter(WAR + ".war", ReplyingListener.class)
                .addClass(SeenTopic.class)
                .addAsResource(new StringAsset(persistenceXml()), "META-INF/persistence.xml");
        war.delete("WEB-INF/glassfish-resources.xml");
        return war.addAsWebInfResource(new StringAsset(Deployments.payaraResources("XATransaction")),
                "glassfish-resources.xml");
    }

    /**
     * Deployed after the restart only to have the server started: Payara's managed container starts its domain at
     * the first deployment, not when the container is started (on WildFly it is already running then).
     */
    @Deployment(name = STARTER, order = 3, managed = false, testable = false)
    @TargetsContainer(SERVER)
    static WebArchive starter() {
        return ShrinkWrap.create(WebArchive.class, WAR + "-starter.war")
                .addAsWebResource(new StringAsset("started"), "index.html");
    }

    /** The XA datasource the server's configuration defines (itests: configure.cli; itests-payara: domain.xml). */
    private static String persistenceXml() {
        String dataSource = "payara".equals(System.getProperty("tributary.itests.server"))
                ? "jdbc/tributaryXaCrash" : "java:jboss/datasources/TributaryXaCrashDS";
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <persistence xmlns="https://jakarta.ee/xml/ns/persistence" version="3.0">
                  <persistence-unit name="xacrash" transaction-type="JTA">
                    <jta-data-source>%s</jta-data-source>
                    <class>io.tributary.itests.xacrash.HandledRequest</class>
                    <exclude-unlisted-classes>true</exclude-unlisted-classes>
                    <properties>
                      <!-- Kept across the restart: created when missing, never dropped. -->
                      <property name="jakarta.persistence.schema-generation.database.action" value="create"/>
                    </properties>
                  </persistence-unit>
                </persistence>
                """.formatted(dataSource);
    }

    @ArquillianResource
    private ContainerController controller;

    @ArquillianResource
    private Deployer deployer;

    private final URI app = URI.create("http://127.0.0.1:"
            + TributaryBroker.requiredProperty("tributary.itests.http.port") + "/" + WAR + "/");

    /**
     * First: Narayana's orphan detection (presumed abort) stops while its log holds a transaction it cannot finish,
     * which the other test leaves (its crash point and its delivery's branch, committed before the crash, are
     * found by no recovery scan).
     */
    @Test
    @Order(1)
    void killedBeforeTheCommitDecisionTheTransactionRollsBackAndTheRequestIsHandledAgain() throws Exception {
        crashAndRecover(CrashPoint.Phase.PREPARE);
    }

    @Test
    @Order(2)
    void killedAfterTheCommitDecisionTheTransactionCommitsWhenTheServerIsBack() throws Exception {
        crashAndRecover(CrashPoint.Phase.COMMIT);
    }

    private void crashAndRecover(CrashPoint.Phase phase) throws Exception {
        String id = phase.name().toLowerCase(Locale.ROOT) + "-" + UUID.randomUUID().toString().substring(0, 8);
        Path marker = Files.createDirectories(Path.of(TributaryBroker.requiredProperty("tributary.itests.work")))
                .resolve("crash-point-" + id);
        String request = id + "|" + phase + "|" + marker;
        controller.start(SERVER);
        boolean deployed = false;
        boolean restarted = false;
        try {
            deployer.deploy(ADAPTER);
            deployer.deploy(APP);
            deployed = true;
            Clients.sendToQueue(ReplyingListener.REQUESTS, List.of(request));

            long pid = Clients.await(() -> serverPid(marker), Optional::isPresent, TIMEOUT)
                    .orElseThrow(() -> new AssertionError("the delivery of " + id + " never reached its crash point ("
                            + phase + ")"));
            ProcessHandle server = ProcessHandle.of(pid)
                    .orElseThrow(() -> new AssertionError("no server process " + pid));
            assertFalse(handled().contains(id), "the row of " + id + " is visible before the commit");
            server.destroyForcibly(); // SIGKILL
            server.onExit().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            controller.kill(SERVER); // Arquillian's view: stopped
            controller.start(SERVER);
            deployer.deploy(STARTER); // the server runs again, with the deployments; its transaction manager recovers
            restarted = true;
            restartIfPayaraFailedToLoadTheAdapter();

            assertEquals(List.of(id, "in-doubt=0"), Clients.await(() -> handledOf(id),
                    rows -> rows.equals(List.of(id, "in-doubt=0")), RECOVERY_TIMEOUT), "the row after recovery");
            assertEquals(List.of(request), Clients.await(() -> replies(request), replies -> !replies.isEmpty(),
                    TIMEOUT), "the committed reply");
            Map<Integer, Long> end = Clients.endOffsets(ReplyingListener.REQUESTS);
            assertEquals(end, Clients.await(() -> Clients.committedOffsets(ReplyingListener.REQUESTS), end::equals,
                    TIMEOUT),
                    "the request's offset is consumed");
            assertAll(
                    () -> assertEquals(List.of(), Arrays.asList(inDoubtBranches()), "Tributary branches in doubt"),
                    () -> assertEquals(List.of(), openTransactions(), "open Kafka transactions"),
                    () -> assertEquals(List.of(request), replies(request), "replies, once more"),
                    () -> assertEquals(List.of(id, "in-doubt=0"), handledOf(id), "the row, once more"));
        } finally {
            Optional<ProcessHandle> running = runningServer();
            if (restarted) {
                deployer.undeploy(STARTER);
            }
            if (deployed) {
                deployer.undeploy(APP);
                deployer.undeploy(ADAPTER);
            }
            controller.stop(SERVER);
            // Payara's managed container fails to stop a domain after it has been killed once (its stop-domain
            // command then names the domain twice): the next test could not start it. Stopped by its pid then.
            if (running.isPresent() && running.get().isAlive()) {
                running.get().destroy();
                running.get().onExit().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Payara 6.2025.9 now and then fails to load a resource adapter while it starts: {@code NullPointerException} in
     * {@code ConnectorValidator.getClass}, because the start-up thread that opens the archive has no context class
     * loader (a race among its start-up threads, before any of the adapter's code runs). The application that
     * needs the adapter is not loaded either, so nothing recovers until the server is restarted, which is what an
     * operator does and what this does, once (by killing it, so the restart is one more crash to recover from): the
     * transactions in doubt stay in both logs until then.
     */
    private void restartIfPayaraFailedToLoadTheAdapter() throws Exception {
        if (!"payara".equals(System.getProperty("tributary.itests.server"))) {
            return;
        }
        Path home = Path.of(TributaryBroker.requiredProperty("payara.home"));
        Path log = home.resolve("glassfish/domains/domain1/logs/server.log");
        String failure = "Exception while deploying the app [tributary-ra]"; // the adapter's name in Payara
        // Which comes first: the failure in the log, or the application answering (the adapter loaded).
        Boolean failed = Clients.await(() -> lastStartOf(log).contains(failure) ? Boolean.TRUE
                        : applicationAnswers() ? Boolean.FALSE : null,
                outcome -> outcome != null, TIMEOUT);
        if (!Boolean.TRUE.equals(failed)) {
            return;
        }
        ProcessHandle server = ProcessHandle.allProcesses()
                .filter(process -> process.info().commandLine()
                        .filter(line -> line.contains(home.toString()) && line.contains("ASMain")).isPresent())
                .findFirst().orElseThrow(() -> new AssertionError("no Payara process under " + home));
        deployer.undeploy(STARTER);
        // Killed again (SIGKILL), as the crash itself: a clean stop in the middle of the transaction manager's
        // recovery would close the database with its branch still in doubt.
        server.destroyForcibly();
        server.onExit().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        controller.kill(SERVER);
        controller.start(SERVER);
        deployer.deploy(STARTER);
    }

    private boolean applicationAnswers() {
        try {
            return Clients.send(HttpRequest.newBuilder(app.resolve("handled")).GET().build()).statusCode() == 200;
        } catch (AssertionError notListening) {
            return false;
        }
    }

    /** The server log since the server last started. */
    private static String lastStartOf(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            return text.substring(Math.max(0, text.lastIndexOf("Running Payara Version")));
        } catch (IOException e) {
            throw new AssertionError("cannot read " + log, e);
        }
    }

    /** The server process, as the application says; empty if it does not answer. */
    private Optional<ProcessHandle> runningServer() {
        try {
            return handled().stream().filter(line -> line.startsWith("pid="))
                    .map(line -> Long.parseLong(line.substring("pid=".length())))
                    .findFirst().flatMap(ProcessHandle::of);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The server's process id, once the delivery reached its crash point. */
    private static Optional<Long> serverPid(Path marker) {
        try {
            return Files.exists(marker)
                    ? Optional.of(Long.parseLong(Files.readString(marker, StandardCharsets.US_ASCII).trim()))
                    : Optional.empty();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + marker, e);
        }
    }

    /** The committed rows (ids) and the database's count of prepared transactions in doubt, last. */
    private List<String> handled() {
        var response = Clients.send(HttpRequest.newBuilder(app.resolve("handled")).GET().build());
        return response.statusCode() == 200 ? Clients.lines(response.body())
                : List.of("GET handled answered " + response.statusCode());
    }

    private List<String> handledOf(String id) {
        return handled().stream().filter(line -> line.equals(id) || line.startsWith("in-doubt=")).toList();
    }

    /**
     * The committed replies to {@code request} (read_committed), each as the request it answers: a reply is the
     * request's text followed by the {@link SeenTopic} fields of its delivery.
     */
    private static List<String> replies(String request) {
        return Clients.texts(Clients.readTopic(ReplyingListener.REPLIES, records -> false, Duration.ofSeconds(3),
                        IsolationLevel.READ_COMMITTED)).stream()
                .filter(reply -> reply.startsWith(request + "|"))
                .map(reply -> request).toList();
    }

    /** The branches Tributary's XA log holds prepared, as a transaction manager's recovery scan lists them. */
    private static Xid[] inDoubtBranches() throws Exception {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(TributaryBroker.bootstrapServers());
        try (Connection connection = factory.createConnection()) {
            return ((TributaryConnection) connection).createDeliveryXAResource()
                    .recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
        }
    }

    /** The transactional ids with a transaction still open (ongoing, or between a decision and its markers). */
    private static List<String> openTransactions() throws Exception {
        try (Admin admin = Clients.admin()) {
            return admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(t -> t.state() != TransactionState.COMPLETE_COMMIT
                            && t.state() != TransactionState.COMPLETE_ABORT && t.state() != TransactionState.EMPTY)
                    .map(TransactionListing::transactionalId).toList();
        }
    }
}
