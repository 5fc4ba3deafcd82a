package io.tributary.broker.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Failover benchmark: how long acknowledged writes stop when a partition leader is SIGKILLed, and whether anything
 * acknowledged is lost, duplicated or reordered. A program, not a test: {@code broker/bin/failover-benchmark} runs it;
 * {@code mvn verify} never does. It speaks only the Kafka protocol and drives the cluster through two shell commands,
 * so it measures Tributary ({@code broker/bin/tributary-cluster}) and Apache Kafka 3.9 in ZooKeeper mode
 * ({@code ../shared/bench/kafka39/kafka39-cluster.sh}) alike.
 *
 * <p>The run: create the topic with Admin (RF {@value #REPLICATION_FACTOR}, {@code min.insync.replicas}
 * {@value #MIN_INSYNC_REPLICAS}); wait until every partition has its full ISR; produce with a {@link PacedProducer}
 * (one acknowledged record per partition first, then at a fixed rate); after the warm-up, per kill:
 * <ol>
 *   <li>pick a partition (seeded {@link Random}), look up every partition's leader with Admin;
 *   <li>run the kill command with {@code {topic}} and {@code {partition}} replaced; it prints
 *       {@code broker=ID killed_at_ms=EPOCH_MS};
 *   <li>wait until every partition has acknowledged a record sent after the kill (at most
 *       {@value #MAX_STALL_MS} ms, the producer's delivery timeout), so the restart does not end the stall;
 *   <li>run the restart command; wait for full ISRs plus {@value #SETTLE_AFTER_ISR_MS} ms (or {@code --settle-ms});
 *       wait until the observation window after the kill has passed, so that windows do not overlap;
 *   <li>print the kill's line.
 * </ol>
 * Then produce {@value #TAIL_MS} ms more, stop, wait for every acknowledgement, read every partition from the
 * beginning with a group-less consumer and check it with {@link DeliveryAudit}.
 *
 * <p>Per kill and per group of partitions (those the killed broker led just before the kill, and the others):
 * <ul>
 *   <li><b>stall</b>: from {@code killed_at_ms} until the group's last partition to recover acknowledged its first
 *       record sent after the kill (records sent before it may be acknowledged later, after client retries; they do
 *       not end a stall);
 *   <li><b>max gap</b>: the longest time any partition of the group went without an acknowledgement in the window
 *       after the kill (see {@link AckLog.Snapshot#maxAckGap}); it includes the restart's effects, if any.
 * </ul>
 * Times come from one clock: the kill command's {@code date +%s%3N} and this JVM's
 * {@link System#currentTimeMillis()}, on the same machine.
 *
 * <p>Output: lines starting with {@code #} are parameters, command output and summary; one {@code kill i/n ...} line
 * per kill; last, one {@code failover-result key=value ...} line. Exit code 0 when every acknowledged record is in
 * the log exactly once, in order, at its acknowledged offset; 1 when not; 2 for bad arguments; 3 when the run could
 * not be completed (a command failed, the cluster never acknowledged anything, ...).
 *
 * <p>Threads: the main thread runs commands, Admin calls and the final read; the producer's two threads are
 * described in {@link PacedProducer}.
 */
public final class FailoverBenchmark {

    private static final short REPLICATION_FACTOR = 3;
    private static final int MIN_INSYNC_REPLICAS = 2;
    /** The producer's delivery timeout: a partition that took no write for this long will not without help. */
    private static final long MAX_STALL_MS = PacedProducer.DELIVERY_TIMEOUT_MS;
    private static final long SETTLE_AFTER_ISR_MS = 5_000;
    /** Producing after the last restart, so that the last window is followed by normal traffic. */
    private static final long TAIL_MS = 5_000;
    /** Kafka 3.9's restart alone waits out an 18 s ZooKeeper session and then recovers its logs. */
    private static final long COMMAND_TIMEOUT_MS = 300_000;
    private static final long ISR_TIMEOUT_MS = 300_000;
    private static final long FIRST_ACK_TIMEOUT_MS = 60_000;
    private static final long READ_BACK_TIMEOUT_MS = 300_000;
    private static final Pattern BROKER = Pattern.compile("(?:^|\\s)broker=(\\d+)");
    private static final Pattern KILLED_AT = Pattern.compile("(?:^|\\s)killed_at_ms=(\\d+)");

    private final Options options;

    private FailoverBenchmark(Options options) {
        this.options = options;
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException | ArithmeticException e) { // ArithmeticException: a number beyond int
            System.err.println("failover-benchmark: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options == null) {
            return;
        }
        int exitCode;
        try {
            exitCode = new FailoverBenchmark(options).run() ? 0 : 1;
        } catch (BenchmarkException e) {
            System.out.flush();
            System.err.println("failover-benchmark: " + e.getMessage());
            exitCode = 3;
        }
        if (exitCode != 0) {
            System.exit(exitCode);
        }
    }

    /** A run that cannot go on: a command failed, the cluster does not answer, the topic exists. */
    static final class BenchmarkException extends RuntimeException {
        BenchmarkException(String message) {
            super(message);
        }

        BenchmarkException(String message, Throwable cause) {
            super(message + ": " + cause, cause);
        }
    }

    /** One kill, measured. Stalls are {@link AckLog#NOT_ACKED} if a partition never recovered. */
    private record Kill(int number, int chosenPartition, int broker, long killedAtMs, List<Integer> led,
                        List<Integer> others, long restartMs, long isrFullMs) {
    }

    /** @return whether the delivery audit passed */
    private boolean run() {
        printHeader();
        try (Admin admin = Admin.create(adminConfig())) {
            createTopic(admin);
            long isrMs = awaitFullIsr(admin);
            System.out.printf(Locale.ROOT, "# topic %s created, every ISR full after %d ms%n", options.topic, isrMs);

            AckLog acks = new AckLog(options.partitions);
            List<Kill> kills = new ArrayList<>();
            try (PacedProducer producer = new PacedProducer(options.bootstrap, options.topic, options.partitions,
                    options.rate, acks)) {
                producer.start(Duration.ofMillis(FIRST_ACK_TIMEOUT_MS));
                long startedAt = System.currentTimeMillis();
                sleepUntil(startedAt + options.warmupMs);
                List<Integer> silent = awaitWrites(acks, startedAt, options.warmupMs + FIRST_ACK_TIMEOUT_MS);
                if (!silent.isEmpty()) {
                    throw new BenchmarkException("partitions " + silent + " acknowledged nothing in "
                            + (options.warmupMs + FIRST_ACK_TIMEOUT_MS) + " ms of producing; can the cluster take "
                            + "acks=all writes with min.insync.replicas=" + MIN_INSYNC_REPLICAS + "?");
                }
                Random random = new Random(options.seed);
                for (int k = 1; k <= options.kills; k++) {
                    Kill kill = killAndRecover(admin, acks, random, k);
                    kills.add(kill);
                    printKill(kill, acks.snapshot());
                }
                sleepUntil(System.currentTimeMillis() + TAIL_MS);
                System.out.printf(Locale.ROOT, "# sender max_late_ms=%d%s%n", producer.maxLateMs(),
                        producer.maxLateMs() > 1_000 ? " WARNING: send times, and so the stalls, are distorted" : "");
                System.out.println("# stopping the producer; waiting for every outstanding acknowledgement");
            }
            AckLog.Snapshot snapshot = acks.snapshot();
            System.out.printf(Locale.ROOT, "# reading %s back from the beginning%n", options.topic);
            DeliveryAudit.Result audit = DeliveryAudit.audit(snapshot, readBack());
            printSummary(kills, snapshot, audit);
            return audit.ok();
        }
    }

    private Kill killAndRecover(Admin admin, AckLog acks, Random random, int number) {
        int chosen = random.nextInt(options.partitions);
        Map<Integer, TopicPartitionInfo> before = describe(admin);
        List<Integer> notFull = partitionsWithoutFullIsr(before);
        if (!notFull.isEmpty()) {
            System.out.printf(Locale.ROOT, "# WARNING kill %d: partitions %s do not have a full ISR%n", number,
                    notFull);
        }
        String killCommand = options.killCmd.replace("{topic}", options.topic)
                .replace("{partition}", Integer.toString(chosen));
        String output = runCommand("kill-cmd", killCommand);
        int broker = Integer.parseInt(find(BROKER, output, "broker=ID", killCommand));
        long killedAt = Long.parseLong(find(KILLED_AT, output, "killed_at_ms=EPOCH_MS", killCommand));

        List<Integer> led = new ArrayList<>();
        List<Integer> others = new ArrayList<>();
        for (int p = 0; p < options.partitions; p++) {
            TopicPartitionInfo info = before.get(p);
            (info.leader() != null && info.leader().id() == broker ? led : others).add(p);
        }
        if (!led.contains(chosen)) {
            System.out.printf(Locale.ROOT, "# WARNING kill %d: broker %d was killed, but Admin saw broker %s "
                    + "leading partition %d just before%n", number, broker, leaderId(before.get(chosen)), chosen);
        }

        // The restart must not be what ends the stall: wait until every partition took writes without the broker.
        List<Integer> stalled = awaitWrites(acks, killedAt, MAX_STALL_MS);
        if (!stalled.isEmpty()) {
            // Reported as a stall that never ended; the restart may still bring the partitions back.
            System.out.printf(Locale.ROOT, "# WARNING kill %d: partitions %s took no write in %d ms; restarting%n",
                    number, stalled, MAX_STALL_MS);
        }

        long restartAt = System.currentTimeMillis();
        runCommand("restart-cmd", options.restartCmd);
        long restartMs = System.currentTimeMillis() - restartAt;
        long isrFullMs = -1;
        if (options.settleMs < 0) {
            isrFullMs = awaitFullIsr(admin);
            sleepUntil(System.currentTimeMillis() + SETTLE_AFTER_ISR_MS);
        } else {
            sleepUntil(System.currentTimeMillis() + options.settleMs);
        }
        sleepUntil(killedAt + options.windowMs);
        return new Kill(number, chosen, broker, killedAt, List.copyOf(led), List.copyOf(others), restartMs, isrFullMs);
    }

    /**
     * Waits until every partition acknowledged a record sent at or after {@code sinceMs}, at most until
     * {@code sinceMs + timeoutMs}.
     *
     * @return the partitions still without such an acknowledgement (empty when all have one)
     */
    private static List<Integer> awaitWrites(AckLog acks, long sinceMs, long timeoutMs) {
        List<Integer> waiting = acks.partitionsWithoutAckOfSentSince(sinceMs);
        while (!waiting.isEmpty() && System.currentTimeMillis() < sinceMs + timeoutMs) {
            sleepUntil(System.currentTimeMillis() + 50);
            waiting = acks.partitionsWithoutAckOfSentSince(sinceMs);
        }
        return waiting;
    }

    private void printKill(Kill kill, AckLog.Snapshot acks) {
        long windowEnd = kill.killedAtMs + options.windowMs;
        System.out.printf(Locale.ROOT, "kill %d/%d broker=%d chosen_partition=%d killed_at_ms=%d led=%s others=%s"
                        + " stall_led_ms=%s stall_other_ms=%s max_gap_led_ms=%s max_gap_other_ms=%s restart_ms=%d"
                        + " isr_full_ms=%s stall_by_partition_ms=%s%n",
                kill.number, options.kills, kill.broker, kill.chosenPartition, kill.killedAtMs, list(kill.led),
                list(kill.others), ms(stall(acks, kill, kill.led)), ms(stall(acks, kill, kill.others)),
                ms(maxGap(acks, kill.led, kill.killedAtMs, windowEnd)),
                ms(maxGap(acks, kill.others, kill.killedAtMs, windowEnd)), kill.restartMs, ms(kill.isrFullMs),
                stallByPartition(acks, kill));
    }

    /** When the group's slowest partition acknowledged its first record sent after the kill, relative to the kill. */
    private static long stall(AckLog.Snapshot acks, Kill kill, List<Integer> group) {
        if (group.isEmpty()) {
            return -1;
        }
        long worst = 0;
        for (int p : group) {
            long first = acks.firstAckOfSentSince(p, kill.killedAtMs);
            if (first == AckLog.NOT_ACKED) {
                return Long.MAX_VALUE;
            }
            worst = Math.max(worst, first - kill.killedAtMs);
        }
        return worst;
    }

    /** "p:ms,..." for every partition: which partitions made a group's stall. */
    private String stallByPartition(AckLog.Snapshot acks, Kill kill) {
        List<String> stalls = new ArrayList<>();
        for (int p = 0; p < options.partitions; p++) {
            stalls.add(p + ":" + ms(stall(acks, kill, List.of(p))));
        }
        return String.join(",", stalls);
    }

    private static long maxGap(AckLog.Snapshot acks, List<Integer> group, long fromMs, long toMs) {
        long longest = -1;
        for (int p : group) {
            longest = Math.max(longest, acks.maxAckGap(p, fromMs, toMs));
        }
        return longest;
    }

    private void printSummary(List<Kill> kills, AckLog.Snapshot acks, DeliveryAudit.Result audit) {
        Stats led = Stats.of(kills, kill -> stall(acks, kill, kill.led));
        Stats other = Stats.of(kills, kill -> stall(acks, kill, kill.others));
        long gapLed = kills.stream().mapToLong(k -> maxGap(acks, k.led, k.killedAtMs, k.killedAtMs + options.windowMs))
                .max().orElse(-1);
        long gapOther = kills.stream()
                .mapToLong(k -> maxGap(acks, k.others, k.killedAtMs, k.killedAtMs + options.windowMs)).max().orElse(-1);
        System.out.printf(Locale.ROOT, "# stall_led_ms   (partitions the killed broker led) %s%n", led);
        System.out.printf(Locale.ROOT, "# stall_other_ms (the other partitions)              %s%n", other);
        System.out.printf(Locale.ROOT, "# max_gap_ms in the %d ms after a kill, worst over kills: led=%s other=%s%n",
                options.windowMs, ms(gapLed), ms(gapOther));
        System.out.printf(Locale.ROOT,
                "# records sent=%d acked=%d failed=%d%s in_log=%d unacked_in_log=%d foreign=%d%n",
                acks.sent(), acks.acked(), acks.failed(), acks.failures().isEmpty() ? "" : " " + acks.failures(),
                audit.inLog(), audit.unackedInLog(), audit.foreign());
        System.out.printf(Locale.ROOT, "# acked records: lost=%d duplicated=%d reordered=%d moved=%d -> %s%n",
                audit.lost(), audit.duplicated(), audit.reordered(), audit.moved(), audit.ok() ? "PASS" : "FAIL");
        for (String example : acks.failureExamples()) {
            System.out.println("#   failed: " + example);
        }
        for (String example : audit.examples()) {
            System.out.println("#   " + example);
        }
        System.out.printf(Locale.ROOT, "failover-result topic=%s kills=%d rate=%d partitions=%d"
                        + " stall_led_ms_min=%s stall_led_ms_median=%s stall_led_ms_max=%s"
                        + " stall_other_ms_min=%s stall_other_ms_median=%s stall_other_ms_max=%s"
                        + " max_gap_led_ms=%s max_gap_other_ms=%s sent=%d acked=%d failed=%d"
                        + " lost=%d duplicated=%d reordered=%d moved=%d unacked_in_log=%d verdict=%s%n",
                options.topic, kills.size(), options.rate, options.partitions, ms(led.min), ms(led.median),
                ms(led.max), ms(other.min), ms(other.median), ms(other.max), ms(gapLed), ms(gapOther), acks.sent(),
                acks.acked(), acks.failed(), audit.lost(), audit.duplicated(), audit.reordered(), audit.moved(),
                audit.unackedInLog(), audit.ok() ? "PASS" : "FAIL");
    }

    /**
     * Min, median (the lower middle one for an even count) and max of one figure over the kills, skipping kills
     * without a value (-1: an empty group); {@link Long#MAX_VALUE} is a stall that never ended and sorts last.
     */
    private record Stats(long min, long median, long max, int count) {
        static Stats of(List<Kill> kills, ToLongFunction<Kill> figure) {
            List<Long> values = new ArrayList<>();
            for (Kill kill : kills) {
                long value = figure.applyAsLong(kill);
                if (value >= 0) {
                    values.add(value);
                }
            }
            if (values.isEmpty()) {
                return new Stats(-1, -1, -1, 0);
            }
            Collections.sort(values);
            int n = values.size();
            // the lower of the two middle values for an even count: a value that was measured, never an average
            return new Stats(values.get(0), values.get((n - 1) / 2), values.get(n - 1), n);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "min=%s median=%s max=%s (%d kills)", ms(min), ms(median), ms(max),
                    count);
        }
    }

    /** -1 (no value) prints as "-", {@link Long#MAX_VALUE} (never ended) as "never". */
    private static String ms(long value) {
        return value < 0 ? "-" : value == Long.MAX_VALUE ? "never" : Long.toString(value);
    }

    private static String list(List<Integer> partitions) {
        return partitions.stream().map(String::valueOf).collect(Collectors.joining(",", "[", "]"));
    }

    private Properties adminConfig() {
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "failover-benchmark-admin");
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return config;
    }

    private void createTopic(Admin admin) {
        NewTopic topic = new NewTopic(options.topic, options.partitions, REPLICATION_FACTOR)
                .configs(Map.of("min.insync.replicas", Integer.toString(MIN_INSYNC_REPLICAS)));
        try {
            admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                throw new BenchmarkException("topic " + options.topic + " exists already; the benchmark needs a new "
                        + "one (its sequence numbers start at 0): pass another --topic");
            }
            throw new BenchmarkException("cannot create topic " + options.topic + " on " + options.bootstrap,
                    e.getCause());
        } catch (TimeoutException e) {
            throw new BenchmarkException("creating topic " + options.topic + " on " + options.bootstrap
                    + " took more than 60 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted while creating topic " + options.topic);
        }
    }

    /** Every partition's leader, replicas and ISR, retried until Admin answers (brokers may be down). */
    private Map<Integer, TopicPartitionInfo> describe(Admin admin) {
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                TopicDescription description = admin.describeTopics(List.of(options.topic)).allTopicNames()
                        .get(20, TimeUnit.SECONDS).get(options.topic);
                Map<Integer, TopicPartitionInfo> partitions = new HashMap<>();
                for (TopicPartitionInfo info : description.partitions()) {
                    partitions.put(info.partition(), info);
                }
                if (partitions.size() == options.partitions) {
                    return partitions;
                }
            } catch (ExecutionException | TimeoutException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new BenchmarkException("cannot describe topic " + options.topic + " for 60 s", e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("interrupted while describing " + options.topic);
            }
            sleepUntil(System.currentTimeMillis() + 500);
        }
    }

    private List<Integer> partitionsWithoutFullIsr(Map<Integer, TopicPartitionInfo> partitions) {
        List<Integer> notFull = new ArrayList<>();
        for (int p = 0; p < options.partitions; p++) {
            TopicPartitionInfo info = partitions.get(p);
            if (info.leader() == null || info.leader().isEmpty() || info.replicas().size() != REPLICATION_FACTOR
                    || info.isr().size() != info.replicas().size()) {
                notFull.add(p);
            }
        }
        return notFull;
    }

    /**
     * Waits until every partition has a leader and all {@value #REPLICATION_FACTOR} replicas in its ISR.
     *
     * @return how long that took, in ms; after {@value #ISR_TIMEOUT_MS} ms a warning, and -1
     */
    private long awaitFullIsr(Admin admin) {
        long start = System.currentTimeMillis();
        List<Integer> notFull = partitionsWithoutFullIsr(describe(admin));
        while (!notFull.isEmpty()) {
            if (System.currentTimeMillis() - start > ISR_TIMEOUT_MS) {
                System.out.printf(Locale.ROOT, "# WARNING partitions %s still without a full ISR after %d ms%n",
                        notFull, ISR_TIMEOUT_MS);
                return -1;
            }
            sleepUntil(System.currentTimeMillis() + 250);
            notFull = partitionsWithoutFullIsr(describe(admin));
        }
        return System.currentTimeMillis() - start;
    }

    private static String leaderId(TopicPartitionInfo info) {
        return info.leader() == null || info.leader().isEmpty() ? "none" : Integer.toString(info.leader().id());
    }

    /** Reads every partition from its first offset to the end offset it has once the producer stopped. */
    private List<DeliveryAudit.ReadBack> readBack() {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "failover-benchmark-reader");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<TopicPartition> partitions = new ArrayList<>();
        for (int p = 0; p < options.partitions; p++) {
            partitions.add(new TopicPartition(options.topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(60));
            DeliveryAudit.Longs[] offsets = new DeliveryAudit.Longs[options.partitions];
            DeliveryAudit.Longs[] sequences = new DeliveryAudit.Longs[options.partitions];
            long[] foreign = new long[options.partitions];
            for (int p = 0; p < options.partitions; p++) {
                offsets[p] = new DeliveryAudit.Longs();
                sequences[p] = new DeliveryAudit.Longs();
            }
            long deadline = System.currentTimeMillis() + READ_BACK_TIMEOUT_MS;
            while (!caughtUp(consumer, end)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new BenchmarkException("could not read " + options.topic + " to its end offsets " + end
                            + " in " + READ_BACK_TIMEOUT_MS + " ms");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    int p = record.partition();
                    if (record.offset() >= end.get(new TopicPartition(options.topic, p))) {
                        continue;
                    }
                    ProbeValue probe = ProbeValue.decode(record.value());
                    if (probe == null || probe.partition() != p) {
                        foreign[p]++;
                    } else {
                        offsets[p].add(record.offset());
                        sequences[p].add(probe.sequence());
                    }
                }
            }
            List<DeliveryAudit.ReadBack> result = new ArrayList<>();
            for (int p = 0; p < options.partitions; p++) {
                result.add(new DeliveryAudit.ReadBack(offsets[p].toArray(), sequences[p].toArray(), foreign[p]));
            }
            return result;
        }
    }

    private static boolean caughtUp(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> entry : end.entrySet()) {
            if (consumer.position(entry.getKey(), Duration.ofSeconds(30)) < entry.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Runs {@code bash -c command}; its standard error goes to ours, its standard output is echoed with a "# name>"
     * prefix and returned.
     */
    private static String runCommand(String name, String command) {
        System.out.printf(Locale.ROOT, "# %s: %s%n", name, command);
        File stdout = null;
        try {
            stdout = File.createTempFile("failover-benchmark-", ".out");
            Process process = new ProcessBuilder("bash", "-c", command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(stdout)
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            boolean exited = process.waitFor(COMMAND_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            String output = Files.readString(stdout.toPath(), StandardCharsets.UTF_8);
            for (String line : output.split("\n")) {
                if (!line.isBlank()) {
                    System.out.println("# " + name + "> " + line);
                }
            }
            if (!exited) {
                process.destroyForcibly();
                throw new BenchmarkException(name + " did not finish in " + COMMAND_TIMEOUT_MS + " ms: " + command);
            }
            if (process.exitValue() != 0) {
                throw new BenchmarkException(name + " exited with " + process.exitValue() + ": " + command);
            }
            return output;
        } catch (IOException e) {
            throw new BenchmarkException("cannot run " + name + " '" + command + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted while running " + name);
        } finally {
            if (stdout != null && !stdout.delete()) {
                stdout.deleteOnExit();
            }
        }
    }

    private static String find(Pattern pattern, String output, String what, String command) {
        Matcher matcher = pattern.matcher(output);
        if (!matcher.find()) {
            throw new BenchmarkException("the kill command printed no " + what + " (it must print a line with "
                    + "broker=ID killed_at_ms=EPOCH_MS): " + command);
        }
        return matcher.group(1);
    }

    private static void sleepUntil(long epochMs) {
        long wait;
        while ((wait = epochMs - System.currentTimeMillis()) > 0) {
            try {
                Thread.sleep(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("interrupted");
            }
        }
    }

    private void printHeader() {
        System.out.printf(Locale.ROOT, "# failover-benchmark bootstrap=%s topic=%s partitions=%d replication_factor=%d"
                        + " min_insync_replicas=%d rate=%d kills=%d seed=%d warmup_ms=%d window_ms=%d settle=%s%n",
                options.bootstrap, options.topic, options.partitions, REPLICATION_FACTOR, MIN_INSYNC_REPLICAS,
                options.rate, options.kills, options.seed, options.warmupMs, options.windowMs,
                options.settleMs < 0 ? "full-isr+" + SETTLE_AFTER_ISR_MS + "ms" : options.settleMs + "ms");
        System.out.printf(Locale.ROOT, "# producer: acks=all enable.idempotence=true delivery.timeout.ms=%d, "
                + "record value %d bytes%n", PacedProducer.DELIVERY_TIMEOUT_MS, ProbeValue.BYTES);
    }

    private record Options(String bootstrap, String killCmd, String restartCmd, int kills, int rate, String topic,
                           int partitions, long settleMs, long seed, long warmupMs, long windowMs) {

        static final String USAGE = String.join("\n",
                "usage: failover-benchmark --bootstrap LIST --kill-cmd CMD --restart-cmd CMD [--kills N] [--rate R]",
                "                          [--topic NAME] [--partitions N] [--settle-ms MS] [--seed S]",
                "                          [--warmup-ms MS] [--window-ms MS]",
                "  --bootstrap LIST     host:port[,host:port...] of the cluster",
                "  --kill-cmd CMD       bash command that SIGKILLs the leader of {topic}-{partition} and prints",
                "                       broker=ID killed_at_ms=EPOCH_MS, e.g.",
                "                       'broker/bin/tributary-cluster kill-leader {topic} {partition}'",
                "  --restart-cmd CMD    bash command that starts the killed broker again, e.g.",
                "                       'broker/bin/tributary-cluster restart last'",
                "  --kills N            kills, each followed by a restart (default 5)",
                "  --rate R             records per second, round-robin over the partitions (default 500)",
                "  --topic NAME         a new topic to create (default failover-<yyyyMMdd-HHmmss>)",
                "  --partitions N       partitions of the topic, replication factor 3, min.insync.replicas 2 "
                        + "(default 3)",
                "  --settle-ms MS       time from the restart to the next kill (default: until every ISR is full, "
                        + "plus 5000)",
                "  --seed S             seed of the choice of the partition whose leader is killed (default 1)",
                "  --warmup-ms MS       producing before the first kill (default 10000)",
                "  --window-ms MS       observation window after each kill for the largest ack gap; the next kill",
                "                       comes after it (default 60000)");

        /** @return null after printing the usage for --help */
        static Options parse(String[] args) {
            String bootstrap = null;
            String killCmd = null;
            String restartCmd = null;
            int kills = 5;
            int rate = 500;
            String topic = "failover-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            int partitions = 3;
            long settleMs = -1;
            long seed = 1;
            long warmupMs = 10_000;
            long windowMs = 60_000;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--bootstrap" -> bootstrap = value(args, ++i);
                    case "--kill-cmd" -> killCmd = value(args, ++i);
                    case "--restart-cmd" -> restartCmd = value(args, ++i);
                    case "--kills" -> kills = Math.toIntExact(number(args, ++i));
                    case "--rate" -> rate = Math.toIntExact(number(args, ++i));
                    case "--topic" -> topic = value(args, ++i);
                    case "--partitions" -> partitions = Math.toIntExact(number(args, ++i));
                    case "--settle-ms" -> settleMs = number(args, ++i);
                    case "--seed" -> seed = number(args, ++i);
                    case "--warmup-ms" -> warmupMs = number(args, ++i);
                    case "--window-ms" -> windowMs = number(args, ++i);
                    case "--help", "-h" -> {
                        System.out.println(USAGE);
                        return null;
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'\n" + USAGE);
                }
            }
            if (bootstrap == null || killCmd == null || restartCmd == null) {
                throw new IllegalArgumentException("--bootstrap, --kill-cmd and --restart-cmd are required\n" + USAGE);
            }
            if (kills < 1 || partitions < 1 || rate < 1 || rate > 1_000_000) {
                throw new IllegalArgumentException("--kills and --partitions must be at least 1, --rate 1..1000000");
            }
            if (warmupMs < 0 || windowMs < 0 || settleMs < -1) {
                throw new IllegalArgumentException("--warmup-ms, --window-ms and --settle-ms must not be negative");
            }
            return new Options(bootstrap, killCmd, restartCmd, kills, rate, topic, partitions, settleMs, seed,
                    warmupMs, windowMs);
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(args[i - 1] + " needs a value\n" + USAGE);
            }
            return args[i];
        }

        private static long number(String[] args, int i) {
            String text = value(args, i);
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(args[i - 1] + " takes a number, not '" + text + "'");
            }
        }
    }
}
