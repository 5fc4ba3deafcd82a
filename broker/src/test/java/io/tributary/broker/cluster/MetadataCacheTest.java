package io.tributary.broker.cluster;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static io.tributary.broker.cluster.ClusterTestSupport.TIMEOUT;
import static io.tributary.broker.cluster.ClusterTestSupport.config;
import static io.tributary.broker.cluster.ClusterTestSupport.startBroker;
import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MetadataCacheTest extends ZooKeeperTestBase {

    @Test
    void listenerHearsTheCurrentStateFirstThenEveryPartitionChangeInOrder() throws Exception {
        try (ClusterManager broker = startBroker(config(1, connect, dir))) {
            TopicAdmin admin = broker.topicAdmin();
            admin.createTopic("before", 1, 1, null, Map.of(), false);
            admin.whenPartitionStatesWritten("before", 1).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);

            List<MetadataChange> heard = new CopyOnWriteArrayList<>();
            broker.metadataCache().addListener(heard::add);
            await("the initial state is heard").until(() -> !heard.isEmpty());
            MetadataChange initial = heard.get(0);
            assertEquals(MetadataSnapshot.EMPTY, initial.previous());
            assertEquals(List.of(new TopicPartition("before", 0)),
                    initial.partitionChanges().stream().map(PartitionChange::topicPartition).toList());
            assertTrue(initial.partitionChanges().get(0).isNew());

            Uuid id = admin.createTopic("after", 1, 1, null, Map.of("retention.ms", "5000"), false).topicId();
            await("the new partition's leader is heard").until(() -> heard.stream()
                    .flatMap(change -> change.partitionChanges().stream())
                    .anyMatch(c -> c.after() != null && c.after().topicPartition().topic().equals("after")
                            && c.after().hasLeader()));
            assertTrue(heard.stream().anyMatch(change -> change.configChangedTopics().contains("after")));

            admin.whenDeleted(admin.deleteTopic("after")).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            await("the deletion is heard").until(() -> heard.stream()
                    .flatMap(change -> change.partitionChanges().stream())
                    .anyMatch(c -> c.isDeleted() && c.before().topicId().equals(id)));
            MetadataSnapshot last = heard.get(heard.size() - 1).current();
            assertTrue(last.topic("after").isEmpty());
            assertTrue(last.topic(id).isEmpty());
            for (int i = 1; i < heard.size(); i++) {
                assertEquals(heard.get(i - 1).current(), heard.get(i).previous(), "changes follow each other");
            }
        }
    }

    @Test
    void snapshotAnswersByNameAndByIdAndShowsPartitionsWithoutStateAsLeaderless() {
        try (ClusterManager broker = ClusterManager.open(config(1, connect, dir))) {
            // Not registered: no live broker, so explicit assignments are refused and the controller is absent.
            new TopicStore(broker.connection()).create("waiting",
                    new TopicAssignment(Uuid.randomUuid(), new TreeMap<>(Map.of(0, List.of(1)))), Map.of());
            MetadataSnapshot snapshot = broker.metadataCache().when(s -> s.topic("waiting").isPresent()).join();
            TopicMetadata topic = snapshot.topic("waiting").orElseThrow();
            assertEquals(topic, snapshot.topic(topic.topicId()).orElseThrow());
            PartitionMetadata p = snapshot.partition(new TopicPartition("waiting", 0)).orElseThrow();
            assertEquals(-1, p.leader());
            assertEquals(-1, p.zkVersion());
            assertNull(p.leaderAndIsr());
            assertEquals(MetadataSnapshot.NO_CONTROLLER, snapshot.controllerId());
            assertTrue(snapshot.brokers().isEmpty());
        }
    }
}
