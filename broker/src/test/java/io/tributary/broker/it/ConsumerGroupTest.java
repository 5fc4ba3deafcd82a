package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three consumers share a 6-partition topic while a producer writes to it without pause; one member leaves, another
 * joins. Each member commits, in {@link ConsumerRebalanceListener#onPartitionsRevoked}, exactly what it has processed
 * of the partitions it gives up, and commits nothing otherwise. The expectation is then exact: every record written is
 * consumed, by one member, once; in particular, while the membership is stable no two members consume the same
 * record, and no record below a committed offset is consumed after that commit.
 *
 * <p>Why exactly once holds with a correct coordinator: a member processes every record of a poll before it polls
 * again, and revocation happens inside poll, so at revocation its processed offsets are its positions; with the
 * eager protocol ({@link RangeAssignor}) every member gives up its partitions, commits them and only then rejoins, so
 * the coordinator cannot complete the rebalance, and no new owner can fetch the committed offset, before the commit is
 * written. A coordinator that accepts a commit from the current generation while it prepares the rebalance (as Kafka
 * does) makes every such commit succeed, which the test asserts, as it asserts that no member ever loses partitions
 * without a revocation (removed from the group by the coordinator).
 *
 * <p>Each consumer is polled on a thread of its own (a {@link KafkaConsumer} is single-threaded), as in an
 * application; the test thread observes them through what each publishes after every poll and through the
 * coordinator's description of the group. Consumptions and commits are stamped from one shared counter, which orders
 * them across threads: a commit is stamped after the coordinator acknowledged it, a consumption after the record was
 * returned by poll.
 */
class ConsumerGroupTest {

    private static final String TOPIC = "work";
    private static final String GROUP = "workers";
    private static final int PARTITIONS = 6;
    /** Records each member consumes in a stable membership before the test changes it. */
    private static final int CONSUMED_WHILE_STABLE = 30;

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Admin admin;

    @TempDir
    Path dataDir;

    /** Orders consumptions and commits across the members' threads. */
    private final AtomicLong clock = new AtomicLong();
    private final Queue<Consumption> consumptions = new ConcurrentLinkedQueue<>();
    private final Queue<Commit> commits = new ConcurrentLinkedQueue<>();
    /** Failed revocation commits, partitions lost without revocation, failed threads: each one fails the test. */
    private final Queue<String> problems = new ConcurrentLinkedQueue<>();
    /** Distinct offsets consumed, by partition: the test thread's view of progress. */
    private final Map<Integer, Set<Long>> seen = new ConcurrentHashMap<>();
    /** Set once every record has been consumed: what happens while the members shut down is not judged. */
    private volatile boolean finishing;

    /** One record returned by a member's poll, {@code at} on {@link #clock}. */
    private record Consumption(String member, int partition, long offset, String value, long at) {
    }

    /** One offset a member committed (acknowledged by the coordinator), {@code at} on {@link #clock}. */
    private record Commit(String member, int partition, long offset, long at) {
    }

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
        admin = Clients.admin(broker.bootstrapServers());
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        for (int p = 0; p < PARTITIONS; p++) {
            seen.put(p, ConcurrentHashMap.newKeySet());
        }
    }

    @AfterEach
    void stopBroker() throws Exception {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @Test
    void eachRecordIsConsumedOnceThroughALeaveAndAJoinWithCommitsOnRevocation() throws Exception {
        Production production = new Production();
        List<Member> members = new ArrayList<>();
        long cutoff;
        try {
            Member first = new Member("first");
            Member second = new Member("second");
            Member third = new Member("third");
            members.addAll(List.of(first, second, third));
            awaitStableAndConsuming(List.of(first, second, third));

            second.leave();
            awaitStableAndConsuming(List.of(first, third));

            Member fourth = new Member("fourth");
            members.add(fourth);
            awaitStableAndConsuming(List.of(first, third, fourth));

            production.stop();
            await().untilAsserted(() -> assertTrue(() -> production.produced.entrySet().stream()
                            .allMatch(partition -> seen.get(partition.getKey())
                                    .containsAll(partition.getValue().keySet())),
                    () -> "every record produced consumed; produced " + counts(production.produced)
                            + ", consumed " + seenCounts()));
        } finally {
            cutoff = clock.incrementAndGet();
            finishing = true;
            production.stop();
            members.forEach(Member::leave);
        }
        assertTrue(problems.isEmpty(), () -> "during the run: " + problems);

        List<Consumption> run = consumptions.stream().filter(c -> c.at() < cutoff).toList();
        assertConsumedAsProduced(run, production.produced);
        assertNoneLost(run, production.produced);
        assertNoCommittedRecordConsumedAgain(run);
        assertEachConsumedOnce(run);
        assertTrue(commits.stream().anyMatch(commit -> commit.member().equals("second") && commit.at() < cutoff),
                "the member that left committed what it had processed: " + commits.size() + " commits");
    }

    /**
     * Waits until the group is Stable with exactly {@code members}, each holding the assignment the coordinator
     * describes for it, together covering every partition once; then until each has consumed
     * {@link #CONSUMED_WHILE_STABLE} more records.
     */
    private void awaitStableAndConsuming(List<Member> members) {
        Set<String> names = members.stream().map(member -> member.name).collect(Collectors.toSet());
        await().untilAsserted(() -> assertTrue(() -> {
            Optional<ConsumerGroupDescription> group = Groups.describeIfExists(admin, GROUP);
            if (group.isEmpty() || group.get().groupState() != GroupState.STABLE) {
                return false;
            }
            Map<String, Set<TopicPartition>> described = Groups.assignmentsByClientId(group.get());
            Set<TopicPartition> union = new HashSet<>();
            int total = 0;
            for (Member member : members) {
                Set<TopicPartition> assignment = described.get(member.name);
                if (assignment == null || assignment.isEmpty() || !assignment.equals(member.owned)) {
                    return false;
                }
                union.addAll(assignment);
                total += assignment.size();
            }
            return described.keySet().equals(names) && union.size() == PARTITIONS && total == PARTITIONS;
        }, () -> "group stable with " + names + "; described " + Groups.describeIfExists(admin, GROUP)
                + "; members hold "
                + members.stream().collect(Collectors.toMap(member -> member.name, member -> member.owned))));
        Map<Member, Integer> before = new HashMap<>();
        members.forEach(member -> before.put(member, member.consumed.get()));
        await().untilAsserted(() -> assertTrue(() -> members.stream().allMatch(
                        member -> member.consumed.get() >= before.get(member) + CONSUMED_WHILE_STABLE),
                () -> "each of " + names + " consuming " + CONSUMED_WHILE_STABLE + " records; consumed "
                        + members.stream().collect(Collectors.toMap(member -> member.name,
                        member -> member.consumed.get() - before.get(member)))));
    }

    private static void assertConsumedAsProduced(List<Consumption> run,
                                                 Map<Integer, NavigableMap<Long, String>> produced) {
        List<Consumption> wrong = run.stream()
                .filter(c -> !c.value().equals(produced.get(c.partition()).get(c.offset()))).limit(5).toList();
        if (!wrong.isEmpty()) {
            fail("records consumed that differ from what was produced at their offsets: " + wrong);
        }
    }

    private static void assertNoneLost(List<Consumption> run, Map<Integer, NavigableMap<Long, String>> produced) {
        Map<Integer, Set<Long>> consumed = new TreeMap<>();
        run.forEach(c -> consumed.computeIfAbsent(c.partition(), p -> new HashSet<>()).add(c.offset()));
        produced.forEach((partition, offsets) -> {
            List<Long> lost = offsets.keySet().stream()
                    .filter(offset -> !consumed.getOrDefault(partition, Set.of()).contains(offset)).limit(10).toList();
            if (!lost.isEmpty()) {
                fail("partition " + partition + ": records never consumed, first ones at " + lost + " of "
                        + offsets.size());
            }
        });
    }

    /**
     * No record at an offset below a committed offset of its partition was consumed after that commit: for each
     * consumption, the highest offset committed for its partition before it (on the shared clock) is at most the
     * consumed offset.
     */
    private void assertNoCommittedRecordConsumedAgain(List<Consumption> run) {
        Map<Integer, List<Commit>> byPartition = commits.stream()
                .sorted(Comparator.comparingLong(Commit::at))
                .collect(Collectors.groupingBy(Commit::partition));
        List<String> violations = new ArrayList<>();
        for (Consumption consumption : run) {
            Commit highest = null;
            for (Commit commit : byPartition.getOrDefault(consumption.partition(), List.of())) {
                if (commit.at() > consumption.at()) {
                    break;
                }
                if (highest == null || commit.offset() > highest.offset()) {
                    highest = commit;
                }
            }
            if (highest != null && consumption.offset() < highest.offset()) {
                violations.add(consumption + " after " + highest);
            }
        }
        if (!violations.isEmpty()) {
            fail(violations.size() + " committed records consumed again, e.g. "
                    + violations.subList(0, Math.min(5, violations.size())));
        }
    }

    /** Every record consumed once: while stable by one member only, and across rebalances thanks to the commits. */
    private static void assertEachConsumedOnce(List<Consumption> run) {
        Map<String, List<Consumption>> byRecord = run.stream()
                .collect(Collectors.groupingBy(c -> c.partition() + "@" + c.offset()));
        List<List<Consumption>> twice = byRecord.values().stream().filter(list -> list.size() > 1)
                .sorted(Comparator.comparingLong(list -> list.get(0).at())).toList();
        if (!twice.isEmpty()) {
            fail(twice.size() + " records consumed more than once (by two members at once, or again after a"
                    + " rebalance without the commit made on revocation), e.g. "
                    + twice.subList(0, Math.min(5, twice.size())));
        }
    }

    private static Map<Integer, Integer> counts(Map<Integer, NavigableMap<Long, String>> produced) {
        Map<Integer, Integer> counts = new TreeMap<>();
        produced.forEach((partition, offsets) -> counts.put(partition, offsets.size()));
        return counts;
    }

    private Map<Integer, Integer> seenCounts() {
        Map<Integer, Integer> counts = new TreeMap<>();
        seen.forEach((partition, offsets) -> counts.put(partition, offsets.size()));
        return counts;
    }

    /**
     * Writes records round robin over the partitions until stopped, with at most {@link #IN_FLIGHT} unacknowledged
     * (which paces production by the broker's acknowledgements); values are unique.
     */
    private final class Production {

        private static final int IN_FLIGHT = 8;

        /** What was written (acknowledged), by partition and offset. Written by the production thread. */
        final Map<Integer, NavigableMap<Long, String>> produced = new ConcurrentHashMap<>();
        private final Thread thread = new Thread(this::run, "production");
        private volatile boolean stopRequested;

        Production() {
            for (int p = 0; p < PARTITIONS; p++) {
                produced.put(p, new ConcurrentSkipListMap<>());
            }
            thread.start();
        }

        private void run() {
            Deque<Map.Entry<String, Future<RecordMetadata>>> unacknowledged = new ArrayDeque<>();
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
                for (long n = 0; !stopRequested; n++) {
                    String value = "record-" + n;
                    unacknowledged.add(Map.entry(value, producer.send(
                            new ProducerRecord<>(TOPIC, (int) (n % PARTITIONS), "key-" + n, value))));
                    if (unacknowledged.size() > IN_FLIGHT) {
                        acknowledged(unacknowledged.poll());
                    }
                }
                while (!unacknowledged.isEmpty()) {
                    acknowledged(unacknowledged.poll());
                }
            } catch (Throwable t) {
                problems.add("production failed: " + t);
            }
        }

        private void acknowledged(Map.Entry<String, Future<RecordMetadata>> sent) throws Exception {
            RecordMetadata written = sent.getValue().get();
            produced.get(written.partition()).put(written.offset(), sent.getKey());
        }

        /** Stops writing and waits until the last record written is acknowledged. */
        void stop() {
            stopRequested = true;
            await().untilAsserted(() -> assertTrue(() -> !thread.isAlive(), () -> "the production thread ending"));
        }
    }

    /**
     * One member of the group, polling on its own thread until asked to leave, then closing its consumer (which
     * revokes its partitions, committing them, and sends LeaveGroup).
     */
    private final class Member implements ConsumerRebalanceListener {

        final String name;
        final AtomicInteger consumed = new AtomicInteger();
        /** The consumer's assignment after its latest poll. Written by the member's thread. */
        volatile Set<TopicPartition> owned = Set.of();
        private final Thread thread;
        private volatile boolean leaving;
        /** The next offset to process, by partition, since the partition was assigned. Member's thread only. */
        private final Map<TopicPartition, Long> processed = new HashMap<>();
        /** Member's thread only. */
        private KafkaConsumer<String, String> consumer;

        Member(String name) {
            this.name = name;
            thread = new Thread(this::run, "member-" + name);
            thread.start();
        }

        private void run() {
            try (KafkaConsumer<String, String> c = Clients.groupConsumer(broker.bootstrapServers(), GROUP,
                    ConsumerConfig.CLIENT_ID_CONFIG, name,
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName())) {
                consumer = c;
                c.subscribe(List.of(TOPIC), this);
                while (!leaving) {
                    for (ConsumerRecord<String, String> record : c.poll(Duration.ofMillis(100))) {
                        consumptions.add(new Consumption(name, record.partition(), record.offset(), record.value(),
                                clock.incrementAndGet()));
                        seen.get(record.partition()).add(record.offset());
                        processed.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
                        consumed.incrementAndGet();
                    }
                    owned = Set.copyOf(c.assignment());
                }
            } catch (Throwable t) {
                problems.add(name + " failed: " + t);
            } finally {
                owned = Set.of();
            }
        }

        /** Asks the member to leave and waits until its consumer is closed. */
        void leave() {
            leaving = true;
            await().untilAsserted(() -> assertTrue(() -> !thread.isAlive(), () -> name + " closing its consumer"));
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
            for (TopicPartition tp : partitions) {
                Long next = processed.remove(tp);
                if (next != null) {
                    done.put(tp, new OffsetAndMetadata(next));
                }
            }
            if (done.isEmpty()) {
                return;
            }
            try {
                consumer.commitSync(done);
                long at = clock.incrementAndGet();
                done.forEach((tp, offset) -> commits.add(new Commit(name, tp.partition(), offset.offset(), at)));
            } catch (RuntimeException e) {
                if (!finishing) {
                    problems.add(name + " could not commit " + done + " on revoking " + partitions + ": " + e);
                }
            }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            partitions.forEach(processed::remove);
            if (!finishing) {
                problems.add(name + " lost " + partitions + " without a revocation (removed from the group)");
            }
        }
    }
}
