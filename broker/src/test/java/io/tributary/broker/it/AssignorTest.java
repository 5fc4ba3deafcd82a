package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each of the Java client's assignors (chosen with {@code partition.assignment.strategy}) completes rebalances
 * against the coordinator: two members form a group on a 6-partition topic, a third joins, the first leaves. After
 * each rebalance the group is Stable, every partition is owned by exactly one member, the shares are balanced (3 + 3,
 * 2 + 2 + 2) and the coordinator describes the assignor by name. The sticky assignors depend on the coordinator
 * handing each member's metadata (its previous assignment) to the leader unchanged; for them the test also checks
 * that members keep the partitions they had. Throughout, however the rebalances go (eagerly, or in the two rounds of
 * the cooperative protocol), no partition is ever held by two members at once.
 *
 * <p>The members are polled in turn on the test thread, each for a short while, so that their views are observed
 * one after another: a partition seen with one member and then with another must have been given up by the first
 * in between, which is exactly what the test checks.
 */
class AssignorTest {

    private static final int PARTITIONS = 6;

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @TempDir
    static Path dataDir;

    enum Strategy {
        RANGE(RangeAssignor.class, false),
        ROUND_ROBIN(RoundRobinAssignor.class, false),
        STICKY(StickyAssignor.class, true),
        COOPERATIVE_STICKY(CooperativeStickyAssignor.class, true);

        final Class<? extends ConsumerPartitionAssignor> assignor;
        final boolean sticky;

        Strategy(Class<? extends ConsumerPartitionAssignor> assignor, boolean sticky) {
            this.assignor = assignor;
            this.sticky = sticky;
        }

        /** The protocol name the members send in JoinGroup, and the coordinator describes. */
        String protocolName() {
            try {
                return assignor.getDeclaredConstructor().newInstance().name();
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
    }

    @BeforeAll
    static void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void rebalancesCompleteWithEachPartitionOwnedByExactlyOneMember(Strategy strategy) throws Exception {
        String topic = "assigned-" + strategy.protocolName();
        String group = "assignees-" + strategy.protocolName();
        Set<TopicPartition> all = Set.copyOf(Records.partitions(topic, PARTITIONS));
        List<KafkaConsumer<String, String>> opened = new ArrayList<>();
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
            Map<String, KafkaConsumer<String, String>> members = new TreeMap<>();
            for (String name : List.of("one", "two")) {
                members.put(name, member(strategy, group, name, topic, opened));
            }
            Map<String, Set<TopicPartition>> ofTwo = settle(admin, group, members, all, strategy);
            assertBalanced(ofTwo, 3);

            members.put("three", member(strategy, group, "three", topic, opened));
            Map<String, Set<TopicPartition>> ofThree = settle(admin, group, members, all, strategy);
            assertBalanced(ofThree, 2);
            if (strategy.sticky) {
                for (String name : List.of("one", "two")) {
                    assertTrue(ofTwo.get(name).containsAll(ofThree.get(name)),
                            name + " keeps what it can when three join: " + ofTwo + " then " + ofThree);
                }
            }

            members.remove("one").close();
            Map<String, Set<TopicPartition>> afterLeave = settle(admin, group, members, all, strategy);
            assertBalanced(afterLeave, 3);
            if (strategy.sticky) {
                for (String name : List.of("two", "three")) {
                    assertTrue(afterLeave.get(name).containsAll(ofThree.get(name)),
                            name + " keeps its partitions when one leaves: " + ofThree + " then " + afterLeave);
                }
            }
        } finally {
            for (KafkaConsumer<String, String> consumer : opened) {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
            }
        }
    }

    private static KafkaConsumer<String, String> member(Strategy strategy, String group, String name, String topic,
                                                        List<KafkaConsumer<String, String>> opened) {
        KafkaConsumer<String, String> consumer = Clients.groupConsumer(broker.bootstrapServers(), group,
                ConsumerConfig.CLIENT_ID_CONFIG, name,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, strategy.assignor.getName());
        opened.add(consumer);
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    /**
     * Polls the members until the group is Stable with them, covering every partition (with the cooperative
     * protocol, after its second round); checks after every round of polls that no partition is held twice.
     */
    private static Map<String, Set<TopicPartition>> settle(Admin admin, String group,
                                                           Map<String, KafkaConsumer<String, String>> members,
                                                           Set<TopicPartition> all, Strategy strategy) {
        Groups.pollUntil(new ArrayList<>(members.values()), () -> {
            assertNeverHeldTwice(members);
            return Groups.stableAs(admin, group, members, all);
        }, () -> "group " + group + " stable with " + members.keySet() + " covering " + all + "; described "
                + Groups.describeIfExists(admin, group));
        assertEquals(strategy.protocolName(), Groups.describe(admin, group).partitionAssignor());
        Map<String, Set<TopicPartition>> assignments = new TreeMap<>();
        members.forEach((name, consumer) -> assignments.put(name, Set.copyOf(consumer.assignment())));
        return assignments;
    }

    private static void assertNeverHeldTwice(Map<String, KafkaConsumer<String, String>> members) {
        Map<TopicPartition, String> holders = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        members.forEach((name, consumer) -> {
            for (TopicPartition tp : consumer.assignment()) {
                String other = holders.put(tp, name);
                if (other != null) {
                    fail(tp + " held by both " + other + " and " + name);
                }
            }
        });
    }

    private static void assertBalanced(Map<String, Set<TopicPartition>> assignments, int each) {
        Set<TopicPartition> seen = new HashSet<>();
        assignments.forEach((name, partitions) -> {
            assertEquals(each, partitions.size(), name + "'s share of " + assignments);
            partitions.forEach(tp -> assertTrue(seen.add(tp), tp + " twice in " + assignments));
        });
        assertEquals(PARTITIONS, seen.size(), assignments.toString());
    }
}
