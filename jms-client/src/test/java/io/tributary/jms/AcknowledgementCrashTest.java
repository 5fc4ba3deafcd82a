package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.InProcessBroker;
import jakarta.jms.Connection;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import io.tributary.broker.BrokerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each acknowledgement mode redelivers when the consumer's process dies: for each mode, a consumer in a child JVM
 * ({@link CrashingConsumerMain}) receives 7 of 10 queued messages, reports what it received and acknowledged, and is
 * killed ({@code SIGKILL}) with its connection open (all four before the tests, in parallel); each test then lets a
 * new receiver of its mode's queue get the rest. Jakarta Messaging
 * 3.1 §6.2.10 decides what may come again:
 * <ul>
 *   <li>AUTO_ACKNOWLEDGE: a message is acknowledged when its receive returns; only the last one, whose
 *       acknowledgement a crash may have cut short, may be redelivered;</li>
 *   <li>CLIENT_ACKNOWLEDGE and transacted sessions: exactly the messages after the last acknowledge or commit;</li>
 *   <li>DUPS_OK_ACKNOWLEDGE: duplicates are allowed, losses are not.</li>
 * </ul>
 * In every mode each message sent is received at least once. AUTO_ACKNOWLEDGE commits are pipelined (sent when a
 * message is handed over, awaited before the next one), so a second AUTO consumer receives 30 of 50 queued messages
 * as fast as it can and halts at once, with the last commit likely in flight: again only the last message may come
 * back. A redelivery after a crash may carry
 * {@code JMSRedelivered=false}: the new consumer cannot know the dead one received the message, so the flag is not
 * asserted here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AcknowledgementCrashTest {

    private static final long WAIT_MS = 20_000;
    private static final int SENT = 10;
    private static final int RECEIVED_BEFORE_CRASH = 7;
    private static final int ACKNOWLEDGE_EVERY = 3;
    /** The AUTO consumer that halts right after a receive: how many messages are queued and how many it takes. */
    private static final String AUTO_HALTED = "AUTO_ACKNOWLEDGE_HALTED";
    private static final int HALTED_SENT = 50;
    private static final int HALTED_RECEIVED = 30;

    private InProcessBroker cluster;
    private TributaryConnectionFactory factory;
    /** By session mode: what the killed consumer received and acknowledged. */
    private Map<String, Crash> crashes;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        // The killed consumer's session lapses after CrashingConsumerMain.SESSION_TIMEOUT_MS; the default minimum
        // (6 s) would refuse so short a session, and every test would wait twice as long for the group to let go.
        cluster = InProcessBroker.builder(dir).override(BrokerConfig.GROUP_MIN_SESSION_TIMEOUT_MS, "1000").start();
        factory = TestConnectionFactory.groupMode(cluster.bootstrapServers());
        crashes = crashAll(List.of(new Crash("AUTO_ACKNOWLEDGE"), new Crash("CLIENT_ACKNOWLEDGE"),
                new Crash("DUPS_OK_ACKNOWLEDGE"), new Crash("SESSION_TRANSACTED"),
                new Crash(AUTO_HALTED, "AUTO_ACKNOWLEDGE", HALTED_SENT, HALTED_RECEIVED, true)));
    }

    @AfterAll
    void stop() throws Exception {
        cluster.close();
    }

    @Test
    void autoAcknowledgeRedeliversAtMostTheMessageInFlightWhenTheConsumerCrashes() throws Exception {
        assertAtMostTheLastMessageRedelivered(restartAfterCrash("AUTO_ACKNOWLEDGE"), RECEIVED_BEFORE_CRASH, SENT);
    }

    @Test
    void autoAcknowledgeRedeliversOnlyTheLastMessageWhenTheConsumerDiesRightAfterAReceive() throws Exception {
        assertAtMostTheLastMessageRedelivered(restartAfterCrash(AUTO_HALTED), HALTED_RECEIVED, HALTED_SENT);
    }

    /**
     * After the restart only the last message received before the crash may come again, then everything not yet
     * received, in order, and nothing is missing.
     */
    private static void assertAtMostTheLastMessageRedelivered(Crash crash, int receivedBeforeCrash, int sent) {
        String last = crash.received.get(crash.received.size() - 1);
        Set<String> redelivered = crash.redelivered();
        assertTrue(Set.of(last).containsAll(redelivered),
                "only the last message (" + last + ") may come again, but " + redelivered + " did; " + crash);
        assertEquals(texts(receivedBeforeCrash - redelivered.size(), sent), crash.afterRestart, crash.toString());
        crash.assertEveryMessageReceived();
    }

    @Test
    void clientAcknowledgeRedeliversExactlyTheMessagesAfterTheLastAcknowledgeWhenTheConsumerCrashes()
            throws Exception {
        Crash crash = restartAfterCrash("CLIENT_ACKNOWLEDGE");
        assertEquals(List.of("m2", "m5"), crash.acknowledged, "acknowledge() after every third message");
        assertEquals(List.of("m6", "m7", "m8", "m9"), crash.afterRestart,
                "m6 was received after the last acknowledge, so it comes again, then the rest; " + crash);
        crash.assertEveryMessageReceived();
    }

    @Test
    void aTransactedSessionRedeliversExactlyTheMessagesAfterTheLastCommitWhenTheConsumerCrashes()
            throws Exception {
        Crash crash = restartAfterCrash("SESSION_TRANSACTED");
        assertEquals(List.of("m2", "m5"), crash.acknowledged, "commit() after every third message");
        assertEquals(List.of("m6", "m7", "m8", "m9"), crash.afterRestart,
                "m6 was received in the transaction the crash cut short, so it comes again, then the rest; " + crash);
        crash.assertEveryMessageReceived();
    }

    @Test
    void dupsOkAcknowledgeLosesNoMessageWhenTheConsumerCrashes() throws Exception {
        Crash crash = restartAfterCrash("DUPS_OK_ACKNOWLEDGE");
        // Commits are asynchronous, so the new receiver resumes anywhere from the start to just after the last
        // message received, and from there it gets everything in order.
        String first = crash.afterRestart.get(0);
        int resumedAt = Integer.parseInt(first.substring(1));
        assertTrue(resumedAt <= RECEIVED_BEFORE_CRASH, "resumed after a message nobody received: " + crash);
        assertEquals(texts(resumedAt, SENT), crash.afterRestart, crash.toString());
        crash.assertEveryMessageReceived();
    }

    /**
     * Queues {@code m0..m<sent-1>} for each scenario, lets a child JVM per scenario receive some of them and kills it
     * (or lets it halt). The children run at once: each costs a JVM start, and the test JVM then waits out each dead
     * member's session only once.
     */
    private Map<String, Crash> crashAll(List<Crash> scenarios) throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = session.createProducer(null);
            for (Crash crash : scenarios) {
                Queue queue = session.createQueue(queueName(crash.name));
                for (String text : texts(0, crash.sent)) {
                    producer.send(queue, session.createTextMessage(text));
                }
            }
        }
        Map<String, Crash> crashes = new LinkedHashMap<>();
        List<ChildConsumer> children = new ArrayList<>();
        try {
            for (Crash crash : scenarios) {
                crashes.put(crash.name, crash);
                children.add(ChildConsumer.start(cluster.bootstrapServers(), queueName(crash.name), crash.mode,
                        crash.receivedBeforeCrash, ACKNOWLEDGE_EVERY, crash.halt));
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS * 2);
            for (int i = 0; i < scenarios.size(); i++) {
                Crash crash = scenarios.get(i);
                ChildConsumer child = children.get(i);
                for (String line = child.nextLine(deadline); !isLast(crash, line); line = child.nextLine(deadline)) {
                    if (line.startsWith("received ")) {
                        crash.received.add(line.substring("received ".length()));
                    } else if (line.startsWith("acknowledged ")) {
                        crash.acknowledged.add(line.substring("acknowledged ".length()));
                    } else if (line.startsWith("failed ")) {
                        fail("the " + crash.name + " child consumer failed: " + child.output());
                    }
                }
                if (crash.halt) {
                    crash.received.add(lastMessage(crash));
                }
                child.kill();
            }
        } finally {
            for (ChildConsumer child : children) {
                child.close();
            }
        }
        return crashes;
    }

    /** Whether {@code line} is the child's last: {@code done}, or for one that halts its last message's report. */
    private static boolean isLast(Crash crash, String line) {
        return crash.halt ? line.equals("received " + lastMessage(crash)) : line.equals("done");
    }

    private static String lastMessage(Crash crash) {
        return "m" + (crash.receivedBeforeCrash - 1);
    }

    /**
     * After the scenario's consumer was killed: receives with a new receiver of its queue until the last message
     * sent, checks that nothing follows, and returns what both consumers got.
     */
    private Crash restartAfterCrash(String name) throws Exception {
        Crash crash = crashes.get(name);
        assertEquals(texts(0, crash.receivedBeforeCrash), crash.received, "the child received the first messages");
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue(queueName(name)));
            connection.start();
            String last = "m" + (crash.sent - 1);
            while (crash.afterRestart.isEmpty() || !crash.afterRestart.get(crash.afterRestart.size() - 1)
                    .equals(last)) {
                Message message = consumer.receive(WAIT_MS);
                assertNotNull(message, "after the crash, " + crash.afterRestart + " arrived, then nothing");
                crash.afterRestart.add(((TextMessage) message).getText());
            }
            assertNull(consumer.receive(500), "nothing after " + last + "; " + crash);
        }
        return crash;
    }

    private static String queueName(String mode) {
        return "crash-" + mode.toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static List<String> texts(int from, int to) {
        List<String> texts = new ArrayList<>();
        for (int i = from; i < to; i++) {
            texts.add("m" + i);
        }
        return texts;
    }

    /**
     * A scenario (its child's session mode, how many messages are queued and received, whether the child halts on
     * its own), what the killed consumer received and acknowledged, and what its successor received.
     */
    private static final class Crash {
        final String name;
        final String mode;
        final int sent;
        final int receivedBeforeCrash;
        final boolean halt;
        final List<String> received = new ArrayList<>();
        final List<String> acknowledged = new ArrayList<>();
        final List<String> afterRestart = new ArrayList<>();

        Crash(String mode) {
            this(mode, mode, SENT, RECEIVED_BEFORE_CRASH, false);
        }

        Crash(String name, String mode, int sent, int receivedBeforeCrash, boolean halt) {
            this.name = name;
            this.mode = mode;
            this.sent = sent;
            this.receivedBeforeCrash = receivedBeforeCrash;
            this.halt = halt;
        }

        /** The messages both consumers received. */
        Set<String> redelivered() {
            Set<String> both = new LinkedHashSet<>(afterRestart);
            both.retainAll(received);
            return both;
        }

        void assertEveryMessageReceived() {
            Set<String> all = new LinkedHashSet<>(received);
            all.addAll(afterRestart);
            assertEquals(new LinkedHashSet<>(texts(0, sent)), all, "every message sent was received; " + this);
        }

        @Override
        public String toString() {
            return name + ": before the crash received " + received + ", acknowledged up to " + acknowledged
                    + "; after it received " + afterRestart;
        }
    }

    /** A {@link CrashingConsumerMain} process whose output is read line by line. Closing it kills it. */
    private static final class ChildConsumer implements AutoCloseable {
        private final Process process;
        private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final List<String> transcript = new CopyOnWriteArrayList<>();
        /** Set by the reader once the output ended, after it queued every line. */
        private volatile boolean outputEnded;

        private ChildConsumer(Process process) {
            this.process = process;
            Thread reader = new Thread(this::readOutput, "child-consumer-output");
            reader.setDaemon(true);
            reader.start();
        }

        static ChildConsumer start(String bootstrapServers, String queue, String mode, int count, int ackEvery,
                                   boolean halt) throws IOException {
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    // A small client: the machine is shared, and a JVM that compiles less starts sooner.
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"),
                    CrashingConsumerMain.class.getName(), bootstrapServers, queue, mode, Integer.toString(count),
                    Integer.toString(ackEvery), halt ? "halt" : "wait", "group");
            return new ChildConsumer(new ProcessBuilder(command).redirectErrorStream(true).start());
        }

        private void readOutput() {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    transcript.add(line);
                    lines.add(line);
                }
            } catch (IOException e) {
                transcript.add("(output unreadable: " + e + ")");
            } finally {
                outputEnded = true;
            }
        }

        /** The next line of output, failing the test if none comes before {@code deadline} ({@code nanoTime}). */
        String nextLine(long deadline) throws InterruptedException {
            while (true) {
                String line = lines.poll(100, TimeUnit.MILLISECONDS);
                if (line != null) {
                    return line;
                }
                if (outputEnded && lines.isEmpty()) {
                    fail("the child consumer's output ended (alive: " + process.isAlive() + "): " + output());
                }
                if (System.nanoTime() > deadline) {
                    fail("the child consumer printed nothing more in time: " + output());
                }
            }
        }

        String output() {
            return String.join("\n", transcript);
        }

        /** SIGKILL, and waits until the process is gone. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertTrue(process.waitFor(WAIT_MS, TimeUnit.MILLISECONDS), "the child consumer did not die");
        }

        /** SIGKILL without waiting, for clean-up after a failure. */
        @Override
        public void close() {
            process.destroyForcibly();
        }
    }
}
