package io.tributary.jms;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
 * output queue and commits every few messages, and that dies ({@code Runtime.halt}, nothing closed or committed) at
 * a chosen point of a chosen commit.
 *
 * <p>Arguments: bootstrap servers, input queue, output queue, the connection factory's {@code transactionalIdPrefix},
 * messages per transaction, the text of the last input message to copy (the loop commits after it and ends), the
 * crash point ({@code none}, {@code beforeCommit}, {@code afterSends}: once the transaction's sends are written and
 * before its offsets and its commit, {@code afterCommit}) and the number (from 1) of the transaction it cuts. The
 * {@code afterSends} point is reached without a hook in the provider: a Kafka {@link ProducerInterceptor}, configured
 * through the factory's pass-through properties and told the count by the system property {@value #HALT_AFTER_ACKS},
 * halts the JVM when the broker has acknowledged that many records; {@code commit()} waits for those
 * acknowledgements before it commits the offsets and the transaction.
 *
 * <p>Mode {@code send}: instead of the loop, one transaction of two sends to the output queue, {@code successor-1}
 * and {@code successor-2} (the fencing test's second application instance; a commit of a single send would need no
 * transaction).
 *
 * <p>Output, one line per event, flushed: {@code received <text>}, {@code committed <text>} (the last message of a
 * committed transaction), {@code done}, or {@code failed <reason>}.
 */
final class TransactedCopyMain {

    static final String HALT_AFTER_ACKS = "tributary.test.haltAfterAcks";

    private TransactedCopyMain() {
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try {
            TributaryConnectionFactory factory = TestConnectionFactory.create(args[0]);
            factory.setTransactionalIdPrefix(args[3]);
            if (System.getProperty(HALT_AFTER_ACKS) != null) {
                factory.setKafkaProperty("producer.interceptor.classes", HaltAfterAcks.class.getName());
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
        Connection connection = factory.createConnection(); // not closed: the process halts
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
                Runtime.getRuntime().halt(0);
            }
            session.commit();
            out.println("committed " + text);
            if (crashHere && crashPoint.equals("afterCommit")) {
                Runtime.getRuntime().halt(0);
            }
            if (text.equals(last)) {
                return;
            }
            transaction++;
            inTransaction = 0;
        }
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

    /** Halts the JVM once the broker acknowledged {@value #HALT_AFTER_ACKS} records (sender thread). */
    public static final class HaltAfterAcks implements ProducerInterceptor<byte[], byte[]> {
        private static final AtomicInteger ACKNOWLEDGED = new AtomicInteger();

        @Override
        public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            // Runs before the send's future completes, so before commit() can go on to the offsets and EndTxn.
            if (exception == null
                    && ACKNOWLEDGED.incrementAndGet() == Integer.getInteger(HALT_AFTER_ACKS, Integer.MAX_VALUE)) {
                Runtime.getRuntime().halt(0);
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
