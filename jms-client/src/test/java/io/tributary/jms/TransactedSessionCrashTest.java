package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.jms.Connection;
import jakarta.jms.MessageProducer;
import jakarta.jms.Session;

import io.tributary.testsupport.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A transacted consume-and-send application killed at each step of {@code commit()} (issue 23): a child JVM
 * ({@link TransactedCopyMain}) copies the twelve messages {@code m0..m11} of a queue to another, three per
 * transaction, and dies in its second transaction (m3..m5) before {@code commit()}, in it (the copies written, the
 * offsets and the transaction's commit not), or after it. A successor with the same {@code transactionalIdPrefix}
 * then copies what is left. Whatever the point, the read_committed log of the output holds each input's copy
 * exactly once, in order, and the successor receives exactly the inputs the dead one had not committed: the
 * transaction is all or nothing across the crash.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactedSessionCrashTest {

    private static final long CHILD_MS = 90_000;
    private static final int INPUTS = 12;
    private static final String PER_TRANSACTION = "3";
    private static final String CRASHED_TRANSACTION = "2";

    private TransactionTestCluster cluster;
    private TributaryConnectionFactory factory;
    /** The class\'s temporary directory: the children\'s output goes there. */
    private Path dir;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        this.dir = dir;
        cluster = TransactionTestCluster.start(dir);
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aCrashBeforeCommitLeavesTheTransactionUnwrittenAndItsMessagesAreDeliveredAgain() throws Exception {
        Outcome outcome = crashAndRecover("beforeCommit", List.of());
        assertEquals(List.of("m2"), outcome.committedByTheDeadOne);
        assertEquals(texts(3, INPUTS), outcome.receivedByTheSuccessor);
        assertEquals(copies(0, INPUTS), outcome.output);
    }

    /**
     * The dead application's copies of m3..m5 were written (the broker acknowledged them: the child stops in a
     * producer interceptor when it does) in a transaction that never committed; the successor's producer, with the
     * same transactional id, aborts it.
     */
    @Test
    void aCrashAfterTheSendsAndBeforeTheOffsetsAndTheCommitWritesNothingVisibleAndItsMessagesAreDeliveredAgain()
            throws Exception {
        Outcome outcome = crashAndRecover("afterSends",
                List.of("-D" + TransactedCopyMain.STOP_AFTER_ACKS + "=6")); // the first transaction's 3, then 3
        assertEquals(List.of("m2"), outcome.committedByTheDeadOne);
        assertEquals(texts(3, INPUTS), outcome.receivedByTheSuccessor);
        assertEquals(copies(0, INPUTS), outcome.output);
    }

    @Test
    void aCrashAfterCommitKeepsTheTransactionAndItsMessagesAreNotDeliveredAgain() throws Exception {
        Outcome outcome = crashAndRecover("afterCommit", List.of());
        assertEquals(List.of("m2", "m5"), outcome.committedByTheDeadOne);
        assertEquals(texts(6, INPUTS), outcome.receivedByTheSuccessor);
        assertEquals(copies(0, INPUTS), outcome.output);
    }

    private Outcome crashAndRecover(String crashPoint, List<String> crashProperties) throws Exception {
        String in = cluster.createTopic("tx-crash-" + crashPoint.toLowerCase() + "-in", 1);
        String out = cluster.createTopic("tx-crash-" + crashPoint.toLowerCase() + "-out", 1);
        String prefix = in;
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(session.createQueue(in));
            for (String text : texts(0, INPUTS)) {
                producer.send(session.createTextMessage(text));
            }
        }
        String last = "m" + (INPUTS - 1);
        Outcome outcome = new Outcome();
        try (ChildJvm dying = new ChildJvm(dir.resolve("dying-" + crashPoint + ".log"), crashProperties,
                TransactedCopyMain.class, cluster.bootstrapServers(),
                in, out, prefix, PER_TRANSACTION, last, crashPoint, CRASHED_TRANSACTION).start()) {
            dying.awaitLine("killable " + crashPoint, Duration.ofMillis(CHILD_MS));
            dying.kill();
            assertFalse(dying.output().contains("done") || dying.output().contains("failed"), dying.output());
            outcome.committedByTheDeadOne.addAll(dying.lines("committed "));
        }
        try (ChildJvm successor = new ChildJvm(dir.resolve("successor-" + crashPoint + ".log"),
                TransactedCopyMain.class, cluster.bootstrapServers(),
                in, out, prefix, PER_TRANSACTION, last, "none", "0").start()) {
            assertEquals(0, successor.awaitExit(Duration.ofMillis(CHILD_MS)), successor.output());
            assertTrue(successor.printed("done"), successor.output());
            outcome.receivedByTheSuccessor.addAll(successor.lines("received "));
        }
        outcome.output.addAll(CommittedRecords.read(cluster.bootstrapServers(), out));
        return outcome;
    }

    private static List<String> texts(int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add("m" + i);
        }
        return texts;
    }

    private static List<String> copies(int from, int to) {
        return texts(from, to).stream().map(text -> "copy-of-" + text).toList();
    }

    /** What the killed application committed, what its successor received, and the committed output. */
    private static final class Outcome {
        final List<String> committedByTheDeadOne = new ArrayList<>();
        final List<String> receivedByTheSuccessor = new ArrayList<>();
        final List<String> output = new ArrayList<>();
    }
}
