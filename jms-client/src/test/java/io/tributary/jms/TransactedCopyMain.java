package io.tributary.jms;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.jms.Connection;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The application that {@link TransactedSessionCrashTest} and {@link TransactedSessionTest} run in a JVM of its own:
 * a transacted consume-and-send loop that copies each message of an input queue, as {@code copy-of-<text>}, to an
 * output queue and commits every few messages, and that stops at a chosen point of a chosen commit, prints
 * {@code killable <point>} and waits to be killed ({@code SIGKILL}: nothing closed or committed).
 *
 * <p>Arguments: bootstrap servers, input queue, output queue, the connection factory's {@code transactionalIdPrefix},
 * messages per transaction, the text of the last input message to copy (the loop commits after it and ends), the
 * crash point ({@code none}, {@code beforeCommit}, {@code afterSends}: once the transaction's sends are written and
 * before its offsets and its commit, {@code afterCommit}) and the number (from 1) of the transaction it cuts. The
 * {@code afterSends} point is reached without a hook in the provider: a Kafka {@link ProducerInterceptor}, configured
 * through the factory's pass-through properties and told the count by the system property {@value #STOP_AFTER_ACKS},
 * stops the producer's network thread when the broker has acknowledged that many records; {@code commit()} waits
 * for those acknowledgements before it commits the offsets and the transaction, so it stops there too.
 *
 * <p>Mode {@code send}: instead of the loop, one transaction of two sends to the output queue, {@code successor-1}
 * and {@code successor-2} (the fencing test's second application instance; a commit of a single send would need no
 * transaction).
 *
 * <p>Output, one line per event, flushed: {@code received <text>}, {@code committed <text>} (the last message of a
 * committed transaction), {@code done}, or {@code failed <reason>}.
 */
final class TransactedCopyMain {

    static final String STOP_AFTER_ACKS = "tributary.test.stopAfterAcks";

    private TransactedCopyMain() {
    }

    public static void main(String[] args) {
        PrintStream out = System.out; // flushed at every line
        try {
            TributaryConnectionFactory factory = TestConnectionFactory.groupMode(args[0]);
            factory.setTransactionalIdPrefix(args[3]);
            if (System.getProperty(STOP_AFTER_ACKS) != null) {
                factory.setKafkaProperty("producer.interceptor.classes", StopAfterAcks.class.getName());
            }
            if (args[4].equals("send")) {
                sendTwo(factory, args[2]);
            } else {
                copy(out, factory, args[1], args[2], Integer.parseInt(args[4]), args[5], args[6],
                        Integer.parseInt(args[7]));
            }
            out.println("done");
        } catch (JMSException | RuntimeException e) {
            out.println("failed " + e);
            Runtime.getRuntime().halt(1);
        }
        Runtime.getRuntime().halt(0);
    }

    private static void copy(PrintStream out, TributaryConnectionFactory factory, String input, String output,
                             int perTransaction, String last, String crashPoint, int crashTransaction)
            throws JMSException {
        Connection connection = factory.createConnection(); // not closed: the process is killed, or halts
        Session session = connection.createSession(Session.SESSION_TRANSACTED);
        MessageConsumer consumer = session.createConsumer(session.createQueue(input));
        MessageProducer producer = session.createProducer(session.createQueue(output));
        connection.start();
        int transaction = 1;
        int inTransaction = 0;
        while (true) {
            Message message = consumer.receive(30_000);
            if (message == null) {
                throw new IllegalStateException("no message within 30 s");
            }
            String text = ((TextMessage) message).getText();
            out.println("received " + text);
            producer.send(session.createTextMessage("copy-of-" + text));
            inTransaction++;
            if (inTransaction < perTransaction && !text.equals(last)) {
                continue;
            }
            boolean crashHere = transaction == crashTransaction;
            if (crashHere && crashPoint.equals("beforeCommit")) {
                awaitKill("beforeCommit");
            }
            session.commit();
            out.println("committed " + text);
            if (crashHere && crashPoint.equals("afterCommit")) {
                awaitKill("afterCommit");
            }
            if (text.equals(last)) {
                return;
            }
            transaction++;
            inTransaction = 0;
        }
    }

    /**
     * Tells the test that the process reached {@code point} and blocks until it is killed. Should the test JVM die
     * first, its end of the pipe closes, and this process halts without closing anything either.
     */
    static void awaitKill(String point) {
        System.out.println("killable " + point);
        System.out.flush();
        try {
            while (System.in.read() != -1) {
                // wait to be killed
            }
        } catch (java.io.IOException e) {
            // the test is gone
        }
        Runtime.getRuntime().halt(0);
    }

    private static void sendTwo(TributaryConnectionFactory factory, String output) throws JMSException {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            Queue queue = session.createQueue(output);
            MessageProducer producer = session.createProducer(queue);
            producer.send(session.createTextMessage("successor-1"));
            producer.send(session.createTextMessage("successor-2"));
            session.commit();
        }
    }

    /**
     * Stops, in the producer's network thread, once the broker acknowledged {@value #STOP_AFTER_ACKS} records, and
     * waits to be killed ({@link #awaitKill}).
     */
    public static final class StopAfterAcks implements ProducerInterceptor<byte[], byte[]> {
        private static final AtomicInteger ACKNOWLEDGED = new AtomicInteger();

        @Override
        public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            // Runs before the send's future completes, so before commit() can go on to the offsets and EndTxn.
            if (exception == null
                    && ACKNOWLEDGED.incrementAndGet() == Integer.getInteger(STOP_AFTER_ACKS, Integer.MAX_VALUE)) {
                awaitKill("afterSends");
            }
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(Map<String, ?> configs) {
        }
    }
}
