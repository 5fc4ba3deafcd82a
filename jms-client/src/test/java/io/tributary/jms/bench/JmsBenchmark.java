package io.tributary.jms.bench;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.jms.BytesMessage;
import jakarta.jms.Connection;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.DeliveryMode;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;

import io.tributary.jms.TributaryConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

/**
 * A JMS queue benchmark program (not a test): one producer and one or more consumers on one queue, through any
 * {@link ConnectionFactory}, so that Tributary's provider and ActiveMQ Artemis's JMS client run the same code.
 *
 * <pre>
 *   JmsBenchmark tributary &lt;bootstrap&gt; [options]     e.g. tributary 127.0.0.1:9092
 *   JmsBenchmark artemis &lt;url&gt; [options]             e.g. artemis tcp://127.0.0.1:61626
 *
 *   --mode auto|dups_ok     the consumer session's acknowledgement mode (default auto)
 *   --messages N            measured messages (default 50000)
 *   --warmup N              messages per warm-up round, sent and received before the measured ones (default 5000);
 *                           rounds repeat until the JIT compilers worked less than 10% of a round's time
 *   --warmup-max-s S        stop warming up after S seconds even if the JIT has not settled (default 120)
 *   --size BYTES            BytesMessage body size (default 1024)
 *   --queue NAME            default: a new queue per run for Tributary (jmsbench-&lt;mode&gt;-&lt;millis&gt;), BENCH.Q for Artemis
 *   --property KEY=VALUE    Tributary only: a pass-through Kafka client property (repeatable)
 *   --queue-mode share|group Tributary only: the factory's queueMode (default: the factory's, share)
 *   --timeout-s S           the whole run's limit (default 900)
 *   --rate N                the measured phase offers N messages per second (default: as fast as the producer can);
 *                           the warm-up rounds run as fast as they can
 *   --settle-s S            with --rate: after the warm-up rounds, S seconds at that rate, not measured (default 10)
 *   --dump FILE             writes one line per measured message: sequence number, send start (ms from the first),
 *                           send latency and end-to-end latency (ms)
 *   --phases together|apart together (default): producer and consumer run at once; apart: the measured phase sends
 *                           every message first and receives them after, which gives the producer's rate alone
 *                           and the rate at which the consumer drains a backlog (no latency)
 *   --consumers N           N consumers on the queue, each with its own connection, session and thread (default 1)
 *   --work-ms MS            each consumer spends MS milliseconds on each message before it takes the next (asleep, as
 *                           an application waiting for a database would; default 0)
 *   --selective true|false  true: message k carries the property benchLane = k mod N and consumer i of N selects
 *                           benchLane = i, so each message has exactly one consumer that wants it (default false)
 * </pre>
 *
 * <p>Workload: the producer has its own connection and a non-transacted session, sends persistent messages
 * synchronously, one at a time. A synchronous send returns when the broker confirmed it: Tributary's waits for the
 * acks=all produce response (in the leader's page cache, no fsync per message); Artemis's client blocks persistent
 * sends by default ({@code blockOnDurableSend=true}) until the broker has written and synced its journal. The
 * consumer has its own connection and a session in the chosen mode, and calls {@code receive} in a loop, reading
 * each body (and, with {@code --work-ms}, sleeping that long). Each message carries its {@link System#nanoTime()} send time in a long property; producer and consumer
 * run in this one JVM, so end-to-end latency is receive time minus that. The warm-up phase is drained completely
 * before the measured phase starts, so the measured phase starts on an empty queue. Messages left on the queue
 * by an earlier run are drained first and not counted.
 *
 * <p>Prints one line on stdout:
 * {@code <provider> <mode> msgs/s=<consumer throughput> producer_msgs/s=<..> p50_ms=<..> p99_ms=<..> max_ms=<..>}
 * where both rates count from the first measured send, to the last receive and to the last send completing. Details
 * go to stderr as lines starting with {@code #}, among them {@code client_cpu_ms_per_msg}: this JVM's CPU time
 * (application, client library, JIT and GC threads) during the measured phase per message, and a breakdown of
 * where the time goes ({@link #printBreakdown}).
 */
public final class JmsBenchmark {

    private static final String SEQ = "benchSeq";
    private static final String LANE = "benchLane";
    private static final String PHASE = "benchPhase";
    private static final String SENT_NANOS = "benchSentNanos";
    private static final long RECEIVE_TIMEOUT_MS = 30_000;
    private static final long DRAIN_TIMEOUT_MS = 1_000;
    private static final int WARMUP = 1;
    private static final int MEASURED = 2;
    private static final double JIT_SETTLED_SHARE = 0.10;

    private final String provider;
    private final String address;
    private final String mode;
    private final int ackMode;
    private final int messages;
    private final int warmup;
    private final int warmupMaxS;
    private final int settleS;
    private final String dump;
    private final int size;
    private final String queueName;
    private final List<String> properties;
    /** The factory's queueMode, or null for its default. */
    private final String queueMode;
    private final long deadlineNanos;
    /** Messages per second the producer offers; 0: as fast as it can. */
    private final int rate;
    /** The measured phase sends every message before the consumer starts receiving them. */
    private final boolean apart;
    private final int consumerCount;
    /** Nanoseconds each consumer spends on a message. */
    private final long workNanos;
    /** Consumer i selects {@code benchLane = i}; every message has its lane. */
    private final boolean selective;

    private JmsBenchmark(Options o) {
        this.provider = o.provider;
        this.address = o.address;
        this.mode = o.mode;
        this.ackMode = o.mode.equals("auto") ? Session.AUTO_ACKNOWLEDGE : Session.DUPS_OK_ACKNOWLEDGE;
        this.messages = o.messages;
        this.warmup = o.warmup;
        this.warmupMaxS = o.warmupMaxS;
        this.settleS = o.settleS;
        this.dump = o.dump;
        this.size = o.size;
        this.queueName = o.queue != null ? o.queue
                : provider.equals("tributary") ? "jmsbench-" + o.mode.replace('_', '-') + "-" + System.currentTimeMillis()
                : "BENCH.Q";
        this.properties = o.properties;
        this.queueMode = o.queueMode;
        this.deadlineNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.timeoutS);
        this.rate = o.rate;
        this.apart = o.apart;
        this.consumerCount = o.consumers;
        this.workNanos = TimeUnit.MILLISECONDS.toNanos(o.workMs);
        this.selective = o.selective;
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: JmsBenchmark tributary <bootstrap> | artemis <url> [--mode auto|dups_ok] "
                    + "[--messages N] [--warmup N] [--warmup-max-s S] [--size BYTES] [--queue NAME] [--property KEY=VALUE]... "
                    + "[--queue-mode share|group] "
                    + "[--timeout-s S] [--rate N] [--settle-s S] [--dump FILE] [--phases together|apart] "
                    + "[--consumers N] [--work-ms MS] [--selective true|false]");
            System.exit(64);
            return;
        }
        int status;
        try {
            status = new JmsBenchmark(options).run();
        } catch (Throwable e) {
            System.err.println("# FAILED: " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.err.flush();
        // Client libraries may leave non-daemon threads behind after a failure.
        System.exit(status);
    }

    private ConnectionFactory factory() {
        if (provider.equals("tributary")) {
            TributaryConnectionFactory factory = new TributaryConnectionFactory(address);
            if (queueMode != null) {
                factory.setQueueMode(queueMode);
            }
            for (String property : properties) {
                int eq = property.indexOf('=');
                factory.setKafkaProperty(property.substring(0, eq), property.substring(eq + 1));
            }
            return factory;
        }
        if (!properties.isEmpty() || queueMode != null) {
            throw new IllegalArgumentException("--property and --queue-mode are for Tributary; give Artemis settings "
                    + "in its URL");
        }
        return new ActiveMQConnectionFactory(address);
    }

    private int run() throws Exception {
        ConnectionFactory factory = factory();
        System.err.printf(Locale.ROOT, "# provider=%s address=%s mode=%s queue=%s messages=%d warmup=%d size=%d "
                + "consumers=%d work_ms=%d selective=%b java=%s%n", provider, address, mode, queueName, messages, warmup,
                size, consumerCount, TimeUnit.NANOSECONDS.toMillis(workNanos), selective,
                System.getProperty("java.version"));
        List<Connection> consumerConnections = new ArrayList<>();
        Connection producerConnection = null;
        try {
            List<MessageConsumer> consumers = new ArrayList<>();
            for (int i = 0; i < consumerCount; i++) {
                Connection consumerConnection = factory.createConnection();
                consumerConnections.add(consumerConnection);
                Session consumerSession = consumerConnection.createSession(false, ackMode);
                Queue queue = consumerSession.createQueue(queueName);
                consumers.add(selective ? consumerSession.createConsumer(queue, LANE + " = " + i)
                        : consumerSession.createConsumer(queue));
                consumerConnection.start();
            }
            int stale;
            try (Session drainSession = consumerConnections.get(0).createSession(false, ackMode)) {
                stale = drain(drainSession.createConsumer(drainSession.createQueue(queueName)));
            }
            if (stale > 0) {
                System.err.printf(Locale.ROOT, "# drained %d messages left on %s by an earlier run%n", stale,
                        queueName);
            }

            producerConnection = factory.createConnection();
            Session producerSession = producerConnection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageProducer producer = producerSession.createProducer(producerSession.createQueue(queueName));
            producer.setDeliveryMode(DeliveryMode.PERSISTENT);

            byte[] payload = new byte[size];
            new Random(42).nextBytes(payload);

            warmUp(producerSession, producer, consumers, payload);
            settle(producerSession, producer, consumers, payload);
            // A mark for external profilers and logs: the measured phase starts.
            System.err.printf(Locale.ROOT, "# measuring from epoch_ms=%d%n", System.currentTimeMillis());
            System.err.flush();
            long cpuBefore = processCpuNanos();
            Phase m = runPhase(MEASURED, messages, rate > 0, apart, producerSession, producer, consumers, payload);
            if (apart) {
                System.out.printf(Locale.ROOT, "%s %s apart producer_msgs/s=%.1f drain_msgs/s=%.1f%n", provider, mode,
                        messages * 1e9 / m.producerNanos, messages * 1e9 / (m.consumerNanos - m.producerNanos));
                System.err.printf(Locale.ROOT, "# duplicates=%d received per consumer: %s%n", m.duplicates,
                        Arrays.toString(m.perConsumer));
                return 0;
            }

            long[] lat = m.latencies;
            Arrays.sort(lat);
            double consumerRate = messages * 1e9 / m.consumerNanos;
            double producerRate = messages * 1e9 / m.producerNanos;
            System.out.printf(Locale.ROOT, "%s %s msgs/s=%.1f producer_msgs/s=%.1f p50_ms=%.3f p99_ms=%.3f "
                    + "max_ms=%.3f%n", provider, mode, consumerRate, producerRate, ms(percentile(lat, 0.50)),
                    ms(percentile(lat, 0.99)), ms(lat[lat.length - 1]));
            long cpuNanos = processCpuNanos() - cpuBefore;
            long sum = 0;
            for (long l : lat) {
                sum += l;
            }
            System.err.printf(Locale.ROOT, "# min_ms=%.3f p90_ms=%.3f p99.9_ms=%.3f mean_ms=%.3f elapsed_s=%.2f "
                    + "duplicates=%d stragglers=%d client_cpu_ms_per_msg=%.3f%n", ms(lat[0]), ms(percentile(lat, 0.90)),
                    ms(percentile(lat, 0.999)), ms(sum / (double) lat.length), m.consumerNanos / 1e9, m.duplicates,
                    m.stragglers, cpuNanos / 1e6 / messages);
            if (consumerCount > 1) {
                System.err.printf(Locale.ROOT, "# received per consumer: %s%n", Arrays.toString(m.perConsumer));
            }
            printBreakdown(m);
            if (dump != null) {
                writeDump(m, Path.of(dump));
            }
            return 0;
        } finally {
            long closeStart = System.nanoTime();
            if (producerConnection != null) {
                producerConnection.close();
            }
            for (Connection consumerConnection : consumerConnections) {
                consumerConnection.close();
            }
            System.err.printf(Locale.ROOT, "# connections closed in %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeStart));
        }
    }

    /**
     * Warm-up rounds of {@code warmup} messages each, as fast as they go, until the JIT has settled: a round in which
     * the compilers worked less than {@value #JIT_SETTLED_SHARE} of the round's time, or {@code --warmup-max-s}.
     * The Kafka client is a lot of code: on 2 cores its C2 compilation takes tens of seconds, and a measured phase
     * that starts before it is done measures the compiler as much as the provider.
     */
    private void warmUp(Session producerSession, MessageProducer producer, List<MessageConsumer> consumers,
                        byte[] payload) throws Exception {
        if (warmup == 0) {
            return;
        }
        long start = System.nanoTime();
        for (int round = 1; ; round++) {
            long compiledMsBefore = compiledMs();
            Phase w = runPhase(WARMUP, warmup, false, false, producerSession, producer, consumers, payload);
            double jitShare = (compiledMs() - compiledMsBefore) * 1e6 / w.consumerNanos;
            System.err.printf(Locale.ROOT, "# warmup round %d: %d msgs in %.2f s, %.1f msgs/s, jit %.0f%% of the "
                    + "time%n", round, warmup, w.consumerNanos / 1e9, warmup * 1e9 / w.consumerNanos, jitShare * 100);
            if (jitShare < JIT_SETTLED_SHARE) {
                return;
            }
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(warmupMaxS)) {
                System.err.printf(Locale.ROOT, "# warmup: the JIT had not settled after %d s; measuring anyway%n",
                        warmupMaxS);
                return;
            }
        }
    }

    /**
     * With {@code --rate}: {@code --settle-s} seconds at that rate, not measured. The JIT compiles the fast warm-up's
     * paths; at a low rate other branches run (polls that wait, fetches that return one record), and the compiled
     * code is deoptimized and compiled again in the first seconds at that rate (seen with -XX:+PrintCompilation:
     * ~200 compilations, half of them "made not entrant", in the first 8 s at 300 msg/s after a settled warm-up).
     */
    private void settle(Session producerSession, MessageProducer producer, List<MessageConsumer> consumers,
                        byte[] payload) throws Exception {
        if (rate == 0 || settleS == 0) {
            return;
        }
        long compiledMsBefore = compiledMs();
        int count = (int) Math.min(Integer.MAX_VALUE, (long) rate * settleS);
        Phase s = runPhase(WARMUP, count, true, false, producerSession, producer, consumers, payload);
        System.err.printf(Locale.ROOT, "# settle: %d msgs at %d msgs/s in %.2f s, jit %.0f%% of the time%n", count,
                rate, s.consumerNanos / 1e9, (compiledMs() - compiledMsBefore) * 1e8 / s.consumerNanos);
    }

    /** Milliseconds the JIT compilers have worked in this JVM; 0 where the JVM does not tell. */
    private static long compiledMs() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    /** Receives until the queue stays empty for a second; returns how many messages it removed. */
    private int drain(MessageConsumer consumer) throws JMSException {
        int count = 0;
        while (consumer.receive(DRAIN_TIMEOUT_MS) != null) {
            count++;
            checkDeadline("draining the queue");
        }
        return count;
    }

    /**
     * What a phase measured. Indexed by sequence number: when each send started and returned (the broker's
     * confirmation), and when a consumer received the message; {@code latencies} in receive order;
     * {@code perConsumer}: how many distinct messages each consumer received.
     */
    private record Phase(long producerNanos, long consumerNanos, long[] latencies, int duplicates, int stragglers,
                         long[] sendStarted, long[] sendReturned, long[] received, int[] perConsumer) {
    }

    /**
     * Sends {@code count} messages from one thread and receives them on one thread per consumer; returns when the
     * consumers together have every one of them. {@code apart}: the consumers start receiving once the last send
     * has returned.
     */
    private Phase runPhase(int phase, int count, boolean paced, boolean apart, Session producerSession,
                           MessageProducer producer, List<MessageConsumer> consumers, byte[] payload)
            throws Exception {
        long[] latencies = new long[count];
        long[] sendStarted = new long[count];
        long[] sendReturned = new long[count];
        long[] receivedAt = new long[count];
        BitSet seen = new BitSet(count);
        int[] duplicates = new int[1];
        int[] stragglers = new int[1];
        int[] received = new int[1];
        int[] perConsumer = new int[consumers.size()];
        long[] times = new long[3]; // start, producer end, consumers end
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch consumersReady = new CountDownLatch(consumers.size());
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch allSent = new CountDownLatch(1);

        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < consumers.size(); c++) {
            MessageConsumer consumer = consumers.get(c);
            int index = c;
            threads.add(new Thread(() -> {
                byte[] body = new byte[payload.length + 1];
                try {
                    consumersReady.countDown();
                    if (apart) {
                        allSent.await();
                    }
                    long lastMessage = System.nanoTime();
                    while (failure.get() == null) {
                        synchronized (seen) {
                            if (received[0] == count) {
                                break;
                            }
                        }
                        // Short receives: a consumer that gets nothing more must notice that the others finished.
                        Message message = consumer.receive(100);
                        long now = System.nanoTime();
                        if (message == null) {
                            if (now - lastMessage > TimeUnit.MILLISECONDS.toNanos(RECEIVE_TIMEOUT_MS)) {
                                synchronized (seen) {
                                    throw new IllegalStateException("no message for " + RECEIVE_TIMEOUT_MS
                                            + " ms after " + received[0] + " of " + count + " in phase " + phase);
                                }
                            }
                            continue;
                        }
                        lastMessage = now;
                        if (!message.propertyExists(PHASE) || message.getIntProperty(PHASE) != phase) {
                            synchronized (seen) {
                                stragglers[0]++;
                            }
                            continue;
                        }
                        long sent = message.getLongProperty(SENT_NANOS);
                        int seq = message.getIntProperty(SEQ);
                        int length = ((BytesMessage) message).readBytes(body);
                        if (length != payload.length) {
                            throw new IllegalStateException("message " + seq + " has " + length + " bytes, expected "
                                    + payload.length);
                        }
                        synchronized (seen) {
                            if (seen.get(seq)) {
                                duplicates[0]++;
                                continue;
                            }
                            seen.set(seq);
                            receivedAt[seq] = now;
                            latencies[received[0]++] = now - sent;
                            perConsumer[index]++;
                            if (received[0] == count) {
                                times[2] = now;
                            }
                        }
                        if (workNanos > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(workNanos);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "bench-consumer-" + c));
        }

        Thread producerThread = new Thread(() -> {
            try {
                go.await();
                times[0] = System.nanoTime();
                for (int i = 0; i < count && failure.get() == null; i++) {
                    if (paced) {
                        // A fixed offered rate: latency then measures the path, not a growing backlog.
                        long due = times[0] + i * 1_000_000_000L / rate;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                        }
                    }
                    BytesMessage message = producerSession.createBytesMessage();
                    message.writeBytes(payload);
                    message.setIntProperty(PHASE, phase);
                    message.setIntProperty(SEQ, i);
                    if (selective) {
                        message.setIntProperty(LANE, i % consumerCount);
                    }
                    long sendStart = System.nanoTime();
                    message.setLongProperty(SENT_NANOS, sendStart);
                    producer.send(message);
                    sendStarted[i] = sendStart;
                    sendReturned[i] = System.nanoTime();
                }
                times[1] = System.nanoTime();
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                allSent.countDown();
            }
        }, "bench-producer");

        threads.forEach(Thread::start);
        producerThread.start();
        consumersReady.await();
        go.countDown();
        threads.add(producerThread);
        for (Thread thread : threads) {
            while (thread.isAlive()) {
                thread.join(1_000);
                checkDeadline("phase " + phase);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("phase " + phase + " failed", failure.get());
        }
        return new Phase(times[1] - times[0], times[2] - times[0], latencies, duplicates[0], stragglers[0],
                sendStarted, sendReturned, receivedAt, perConsumer);
    }

    /**
     * Where the time goes: the send's own latency (until the broker confirmed it), and for the slowest 1 % of
     * messages end to end, the median of their send latency and of the time from the send's return to the receive
     * (negative when the consumer had the message before the producer had its confirmation).
     */
    private static void printBreakdown(Phase m) {
        int n = m.sendStarted.length;
        long[] send = new long[n];
        Integer[] bySlowness = new Integer[n];
        for (int i = 0; i < n; i++) {
            send[i] = m.sendReturned[i] - m.sendStarted[i];
            bySlowness[i] = i;
        }
        Arrays.sort(bySlowness, (a, b) -> Long.compare(m.received[b] - m.sendStarted[b],
                m.received[a] - m.sendStarted[a]));
        int slow = Math.max(1, n / 100);
        long[] slowSend = new long[slow];
        long[] slowAfterSend = new long[slow];
        int slowerSend = 0;
        for (int k = 0; k < slow; k++) {
            int i = bySlowness[k];
            slowSend[k] = send[i];
            slowAfterSend[k] = m.received[i] - m.sendReturned[i];
            if (slowSend[k] > slowAfterSend[k]) {
                slowerSend++;
            }
        }
        Arrays.sort(send);
        Arrays.sort(slowSend);
        Arrays.sort(slowAfterSend);
        System.err.printf(Locale.ROOT, "# send_p50_ms=%.3f send_p99_ms=%.3f slowest_1%%: send_median_ms=%.3f "
                + "after_send_median_ms=%.3f send_dominated=%d/%d%n", ms(percentile(send, 0.50)),
                ms(percentile(send, 0.99)), ms(percentile(slowSend, 0.50)), ms(percentile(slowAfterSend, 0.50)),
                slowerSend, slow);
    }

    private static void writeDump(Phase m, Path file) throws IOException {
        StringBuilder out = new StringBuilder("seq start_ms send_ms e2e_ms\n");
        long first = m.sendStarted[0];
        for (int i = 0; i < m.sendStarted.length; i++) {
            out.append(String.format(Locale.ROOT, "%d %.3f %.3f %.3f%n", i, ms(m.sendStarted[i] - first),
                    ms(m.sendReturned[i] - m.sendStarted[i]), ms(m.received[i] - m.sendStarted[i])));
        }
        Files.writeString(file, out);
    }

    private void checkDeadline(String doing) {
        if (System.nanoTime() - deadlineNanos > 0) {
            System.err.println("# FAILED: --timeout-s exceeded while " + doing);
            System.err.flush();
            System.exit(2);
        }
    }

    /**
     * CPU time of this whole JVM (producer, consumer, the client libraries' threads, JIT and GC), so that the two
     * providers' clients can be compared per message; -1 where the JVM does not report it.
     */
    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** Nearest-rank percentile of sorted values. */
    private static long percentile(long[] sorted, double q) {
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double ms(double nanos) {
        return nanos / 1e6;
    }

    private static final class Options {
        String provider;
        String address;
        String mode = "auto";
        int messages = 50_000;
        int warmup = 5_000;
        int warmupMaxS = 120;
        int settleS = 10;
        String dump;
        int size = 1024;
        String queue;
        String queueMode;
        final List<String> properties = new ArrayList<>();
        long timeoutS = 900;
        int rate;
        boolean apart;
        int consumers = 1;
        int workMs;
        boolean selective;

        static Options parse(String[] args) {
            if (args.length < 2) {
                throw new IllegalArgumentException("a provider and its address are required");
            }
            Options o = new Options();
            o.provider = args[0].toLowerCase(Locale.ROOT);
            if (!o.provider.equals("tributary") && !o.provider.equals("artemis")) {
                throw new IllegalArgumentException("provider must be tributary or artemis, not " + args[0]);
            }
            o.address = args[1];
            for (int i = 2; i < args.length; i++) {
                String name = args[i];
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                String value = args[++i];
                switch (name) {
                    case "--mode" -> {
                        o.mode = value.toLowerCase(Locale.ROOT).replace("_acknowledge", "").replace('-', '_');
                        if (!o.mode.equals("auto") && !o.mode.equals("dups_ok")) {
                            throw new IllegalArgumentException("--mode must be auto or dups_ok, not " + value);
                        }
                    }
                    case "--messages" -> o.messages = positive(name, value);
                    case "--warmup" -> o.warmup = Integer.parseInt(value);
                    case "--warmup-max-s" -> o.warmupMaxS = positive(name, value);
                    case "--settle-s" -> o.settleS = Integer.parseInt(value);
                    case "--dump" -> o.dump = value;
                    case "--size" -> o.size = positive(name, value);
                    case "--queue" -> o.queue = value;
                    case "--queue-mode" -> {
                        if (!value.equals("share") && !value.equals("group")) {
                            throw new IllegalArgumentException("--queue-mode must be share or group, not " + value);
                        }
                        o.queueMode = value;
                    }
                    case "--property" -> {
                        if (value.indexOf('=') <= 0) {
                            throw new IllegalArgumentException("--property needs KEY=VALUE, not " + value);
                        }
                        o.properties.add(value);
                    }
                    case "--timeout-s" -> o.timeoutS = positive(name, value);
                    case "--rate" -> o.rate = positive(name, value);
                    case "--phases" -> {
                        if (!value.equals("together") && !value.equals("apart")) {
                            throw new IllegalArgumentException("--phases must be together or apart, not " + value);
                        }
                        o.apart = value.equals("apart");
                    }
                    case "--consumers" -> o.consumers = positive(name, value);
                    case "--work-ms" -> o.workMs = Integer.parseInt(value);
                    case "--selective" -> o.selective = Boolean.parseBoolean(value);
                    default -> throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (o.apart && o.rate > 0) {
                throw new IllegalArgumentException("--phases apart measures rates, not latency: it takes no --rate");
            }
            if (o.warmup < 0 || o.settleS < 0) {
                throw new IllegalArgumentException("--warmup and --settle-s must not be negative");
            }
            return o;
        }

        private static int positive(String name, String value) {
            int n;
            try {
                n = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " needs a number, not " + value);
            }
            if (n <= 0) {
                throw new IllegalArgumentException(name + " must be positive");
            }
            return n;
        }
    }
}
