package io.tributary.jms.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.testsupport.InProcessBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * A transacted session benchmark program (not a test): how many messages per second one transacted session moves,
 * committing every {@code --commit-every} messages, through any {@link ConnectionFactory}, so that Tributary's
 * provider (on Tributary or on Apache Kafka) and ActiveMQ Artemis's JMS client run the same code.
 *
 * <pre>
 *   TransactedBenchmark tributary &lt;bootstrap&gt; [options]     e.g. tributary 127.0.0.1:9092
 *   TransactedBenchmark artemis &lt;url&gt; [options]             e.g. artemis tcp://127.0.0.1:61626
 *   TransactedBenchmark inprocess &lt;data dir&gt; [options]       Tributary in this JVM (test-support's InProcessBroker,
 *                                                       with an embedded ZooKeeper), for a quick look
 *
 *   --messages N         messages per measured phase (default 5000)
 *   --commit-every K     messages per transaction (default 1)
 *   --size BYTES         BytesMessage body size (default 1024)
 *   --warmup N           messages sent and copied, unmeasured, before (default 2000)
 *   --property KEY=VALUE Tributary only: a pass-through Kafka client property (repeatable)
 *   --queue NAME         the input queue; the output is NAME.out (default: new names per run for Tributary,
 *                        BENCH.Q and BENCH.LAT for Artemis)
 * </pre>
 *
 * <p>Two phases, each printed as one line on stdout:
 * <ul>
 *   <li>{@code send}: a transacted session sends N persistent messages to the input queue, committing every K;</li>
 *   <li>{@code copy}: a transacted session receives them and sends each to the output queue, committing every K
 *       (consume-transform-produce: with Tributary each commit is one Kafka transaction holding the sends and the
 *       consumed offsets).</li>
 * </ul>
 * {@code <provider> <phase> commit_every=K msgs/s=<..> commits/s=<..>}
 */
public final class TransactedBenchmark {

    private TransactedBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        String provider = args[0];
        String address = args[1];
        InProcessBroker broker = null;
        if (provider.equals("inprocess")) {
            broker = InProcessBroker.builder(Path.of(address)).start();
            address = broker.bootstrapServers();
            provider = "tributary";
        }
        int messages = 5_000;
        int commitEvery = 1;
        int size = 1024;
        int warmup = 2_000;
        String queue = null;
        List<String> properties = new java.util.ArrayList<>();
        for (int i = 2; i < args.length; i += 2) {
            switch (args[i]) {
                case "--messages" -> messages = Integer.parseInt(args[i + 1]);
                case "--commit-every" -> commitEvery = Integer.parseInt(args[i + 1]);
                case "--size" -> size = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--queue" -> queue = args[i + 1];
                case "--property" -> properties.add(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String in;
        String out;
        if (queue != null) {
            in = queue;
            out = queue + ".out";
        } else if (provider.equals("tributary")) {
            in = "txbench-" + System.currentTimeMillis();
            out = in + ".out";
        } else {
            in = "BENCH.Q";
            out = "BENCH.LAT";
        }
        if (provider.equals("tributary")) {
            // Clusters that do not create topics on first use (the bench's Kafka) need them made.
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, address))) {
                for (String topic : List.of(in, out)) {
                    if (!admin.listTopics().names().get().contains(topic)) {
                        admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
                    }
                }
            }
        }
        ConnectionFactory factory;
        if (provider.equals("tributary")) {
            TributaryConnectionFactory tributary = new TributaryConnectionFactory(address);
            for (String property : properties) {
                int eq = property.indexOf('=');
                tributary.setKafkaProperty(property.substring(0, eq), property.substring(eq + 1));
            }
            factory = tributary;
        } else {
            factory = new ActiveMQConnectionFactory(address);
        }
        byte[] payload = new byte[size];
        new Random(42).nextBytes(payload);
        int status = 0;
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            Queue input = session.createQueue(in);
            Queue output = session.createQueue(out);
            MessageProducer toInput = session.createProducer(input);
            toInput.setDeliveryMode(DeliveryMode.PERSISTENT);
            MessageProducer toOutput = session.createProducer(output);
            toOutput.setDeliveryMode(DeliveryMode.PERSISTENT);
            MessageConsumer fromInput = session.createConsumer(input);
            MessageConsumer fromOutput = session.createConsumer(output);
            connection.start();
            drain(session, fromInput);
            drain(session, fromOutput);
            if (warmup > 0) {
                send(session, toInput, payload, warmup, commitEvery);
                copy(session, fromInput, toOutput, warmup, commitEvery);
                drain(session, fromOutput);
            }
            long start = System.nanoTime();
            send(session, toInput, payload, messages, commitEvery);
            print(provider, "send", commitEvery, messages, System.nanoTime() - start);
            start = System.nanoTime();
            copy(session, fromInput, toOutput, messages, commitEvery);
            print(provider, "copy", commitEvery, messages, System.nanoTime() - start);
            drain(session, fromOutput);
        } catch (Exception e) {
            System.err.println("# FAILED: " + e);
            status = 1;
        }
        if (broker != null) {
            broker.close();
        }
        System.exit(status);
    }

    private static void send(Session session, MessageProducer producer, byte[] payload, int count, int commitEvery)
            throws Exception {
        for (int i = 1; i <= count; i++) {
            BytesMessage message = session.createBytesMessage();
            message.writeBytes(payload);
            producer.send(message);
            if (i % commitEvery == 0 || i == count) {
                session.commit();
            }
        }
    }

    private static void copy(Session session, MessageConsumer consumer, MessageProducer producer, int count,
                             int commitEvery) throws Exception {
        for (int i = 1; i <= count; i++) {
            Message message = consumer.receive(30_000);
            if (message == null) {
                throw new IllegalStateException("message " + i + " of " + count + " did not arrive in 30 s");
            }
            BytesMessage copy = session.createBytesMessage();
            copy.writeBytes(message.getBody(byte[].class));
            producer.send(copy);
            if (i % commitEvery == 0 || i == count) {
                session.commit();
            }
        }
    }

    /** Receives and commits whatever is there (an earlier run's leftovers, the warm-up's copies). */
    private static void drain(Session session, MessageConsumer consumer) throws Exception {
        while (consumer.receive(1_000) != null) {
            // consumed
        }
        session.commit();
    }

    private static void print(String provider, String phase, int commitEvery, int messages, long nanos) {
        double seconds = nanos / 1e9;
        System.out.printf(Locale.ROOT, "%s %s commit_every=%d msgs/s=%.1f commits/s=%.1f%n", provider, phase,
                commitEvery, messages / seconds, Math.ceil(messages / (double) commitEvery) / seconds);
    }
}
