package io.tributary.jms;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

/**
 * The consumer that {@link AcknowledgementCrashTest} kills: run in a JVM of its own, it receives messages from a queue
 * in one session mode, reports on standard output what it received and where it acknowledged, and then waits to be
 * killed with nothing closed.
 *
 * <p>Arguments: bootstrap servers, queue name, session mode ({@code AUTO_ACKNOWLEDGE}, {@code CLIENT_ACKNOWLEDGE},
 * {@code DUPS_OK_ACKNOWLEDGE} or {@code SESSION_TRANSACTED}), how many messages to receive, and after how many
 * messages to call {@code Message.acknowledge()} (CLIENT) or {@code Session.commit()} (transacted), and optionally
 * {@code halt}: die at once after reporting the last message, instead of waiting to be killed, so that the
 * acknowledgement of that message (an AUTO commit sent without waiting) may still be in flight (or {@code wait}),
 * and optionally the queue mode, {@code share} (default) or {@code group}.
 *
 * <p>Output, one line per event, flushed at once:
 * <ul>
 *   <li>{@code received <text>} when a receive returned the message;</li>
 *   <li>{@code acknowledged <text>} when the acknowledgement of everything up to that message returned: in AUTO mode
 *       the receive itself (Jakarta Messaging 3.1 §6.2.10), in CLIENT mode {@code acknowledge()}, in a transacted
 *       session {@code commit()}; DUPS_OK has no acknowledgement point an application can observe;</li>
 *   <li>{@code done} after the last message; {@code failed <reason>} (and exit status 1) on any error.</li>
 * </ul>
 * With {@code halt} the process halts right after reporting its last message, without {@code done}.
 * After {@code done} it waits for its standard input to close (the test kills it first; should the test JVM die, the
 * closed pipe ends this one) and then halts, so that nothing is closed or committed on the way out.
 */
final class CrashingConsumerMain {

    /** Three seconds, so that the killed member leaves its group soon; the broker's minimum must allow it. */
    static final String SESSION_TIMEOUT_MS = "3000";

    private CrashingConsumerMain() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try {
            consume(out, args[0], args[1], sessionMode(args[2]), Integer.parseInt(args[3]),
                    Integer.parseInt(args[4]), args.length > 6 ? args[6] : "share");
            if (args.length > 5 && args[5].equals("halt")) {
                Runtime.getRuntime().halt(0);
            }
        } catch (JMSException | RuntimeException e) {
            report(out, "failed " + e);
            Runtime.getRuntime().halt(1);
        }
        report(out, "done");
        while (System.in.read() != -1) {
            // wait to be killed
        }
        Runtime.getRuntime().halt(0);
    }

    private static void consume(PrintStream out, String bootstrapServers, String queueName, int mode, int count,
                                int acknowledgeEvery, String queueMode) throws JMSException {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers);
        factory.setQueueMode(queueMode);
        factory.setKafkaProperty("consumer.session.timeout.ms", SESSION_TIMEOUT_MS);
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "500");
        // Not closed: the process is killed with the connection open.
        Connection connection = factory.createConnection();
        Session session = connection.createSession(mode);
        MessageConsumer consumer = session.createConsumer(session.createQueue(queueName));
        connection.start();
        for (int i = 1; i <= count; i++) {
            Message message = consumer.receive(20_000);
            if (message == null) {
                throw new IllegalStateException("message " + i + " of " + count + " did not arrive in 20 s");
            }
            String text = ((TextMessage) message).getText();
            report(out, "received " + text);
            if (mode == Session.AUTO_ACKNOWLEDGE) {
                report(out, "acknowledged " + text);
            } else if (i % acknowledgeEvery == 0 && mode == Session.CLIENT_ACKNOWLEDGE) {
                message.acknowledge();
                report(out, "acknowledged " + text);
            } else if (i % acknowledgeEvery == 0 && mode == Session.SESSION_TRANSACTED) {
                session.commit();
                report(out, "acknowledged " + text);
            }
        }
    }

    static int sessionMode(String name) {
        return switch (name) {
            case "AUTO_ACKNOWLEDGE" -> Session.AUTO_ACKNOWLEDGE;
            case "CLIENT_ACKNOWLEDGE" -> Session.CLIENT_ACKNOWLEDGE;
            case "DUPS_OK_ACKNOWLEDGE" -> Session.DUPS_OK_ACKNOWLEDGE;
            case "SESSION_TRANSACTED" -> Session.SESSION_TRANSACTED;
            default -> throw new IllegalArgumentException("unknown session mode " + name);
        };
    }

    private static void report(PrintStream out, String line) {
        out.println(line);
        out.flush();
    }
}
