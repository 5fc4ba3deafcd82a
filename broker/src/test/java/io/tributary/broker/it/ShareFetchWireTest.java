package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ShareAcknowledgeRequest;
import org.apache.kafka.common.requests.ShareAcknowledgeResponse;
import org.apache.kafka.common.requests.ShareFetchRequest;
import org.apache.kafka.common.requests.ShareFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ShareFetch and ShareAcknowledge on the wire, as share consumers' requests without the group heartbeat: two members
 * of one share group on a one-partition topic never acquire the same record; an accepted record is never acquired
 * again; a released one is, with its delivery count raised, and wakes a member waiting for records; closing a
 * session releases what its member held; the session epochs are checked.
 */
class ShareFetchWireTest {

    private static final String TOPIC = "jobs";
    private static final String GROUP = "workers";

    private TestingServer zooKeeper;
    private InProcessBroker broker;
    private Uuid topicId;
    private int correlation;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        // earliest: the records are produced before the share-partition is made
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir);
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            topicId = admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).topicId(TOPIC).get();
        }
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.close();
        zooKeeper.close();
    }

    @Test
    void membersShareOnePartitionAndAcknowledgementsDecideRedelivery() throws Exception {
        try (RawConnection a = new RawConnection(broker.port()); RawConnection b = new RawConnection(broker.port())) {
            // The share-partition starts at the end (latest), before anything is produced.
            ShareFetchResponseData empty = fetch(a, "a", 0, 0, 10, List.of());
            assertEquals(Errors.NONE.code(), empty.errorCode(), empty.toString());
            produce(6);

            ShareFetchResponseData first = fetch(a, "a", 1, 1_000, 3, List.of());
            List<Long> gotByA = acquiredOffsets(first);
            assertTrue(!gotByA.isEmpty(), () -> "a acquired nothing: " + first);
            assertEquals(gotByA, deliveredOffsets(first, gotByA), "the records sent are those acquired");

            ShareFetchResponseData second = fetch(b, "b", 0, 1_000, 100, List.of());
            List<Long> gotByB = acquiredOffsets(second);
            for (long offset : gotByB) {
                assertTrue(!gotByA.contains(offset), () -> "offset " + offset + " acquired by both: " + second);
            }
            List<Long> all = new ArrayList<>(gotByA);
            all.addAll(gotByB);
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), all.stream().sorted().toList());

            // a accepts its first record and releases the rest; b accepts everything.
            long firstOfA = gotByA.get(0);
            long lastOfA = gotByA.get(gotByA.size() - 1);
            List<ShareFetchRequestData.AcknowledgementBatch> acks = new ArrayList<>();
            acks.add(ack(firstOfA, firstOfA, (byte) 1));
            if (lastOfA > firstOfA) {
                acks.add(ack(firstOfA + 1, lastOfA, (byte) 2));
            }
            ShareFetchResponseData afterAck = fetch(a, "a", 2, 0, 0, acks);
            assertEquals(Errors.NONE.code(), partition(afterAck).acknowledgeErrorCode(), afterAck.toString());
            ShareAcknowledgeResponse bAck = acknowledge(b, "b", 1, gotByB.get(0), gotByB.get(gotByB.size() - 1),
                    (byte) 1);
            assertEquals(Errors.NONE.code(), bAck.data().responses().iterator().next().partitions().get(0).errorCode(),
                    bAck.data().toString());

            // b gets what a released, delivered a second time; the accepted records never come back.
            ShareFetchResponseData redelivered = fetch(b, "b", 2, 1_000, 100, List.of());
            List<Long> again = acquiredOffsets(redelivered);
            List<Long> released = gotByA.subList(1, gotByA.size());
            assertEquals(released, again, redelivered.toString());
            if (!again.isEmpty()) {
                assertEquals(2, partition(redelivered).acquiredRecords().get(0).deliveryCount());
            }

            // b closes its session without acknowledging: what it held is available to a again.
            ShareFetchResponseData closed = fetch(b, "b", -1, 0, 0, List.of());
            assertEquals(Errors.NONE.code(), closed.errorCode());
            ShareFetchResponseData toA = fetch(a, "a", 3, 1_000, 100, List.of());
            assertEquals(released, acquiredOffsets(toA), toA.toString());
        }
    }

    /**
     * An administrator resets the offsets while a session that outlived its member keeps the share-partition held
     * here: a session opened afterwards gets the records from the new start offset, not from the held state.
     */
    @Test
    void aSessionOpenedAfterAnOffsetResetLoadsTheResetStateThoughAnotherSessionKeptTheOld() throws Exception {
        try (RawConnection a = new RawConnection(broker.port()); RawConnection b = new RawConnection(broker.port());
             Admin admin = Clients.admin(broker.bootstrapServers())) {
            fetch(a, "a", 0, 0, 10, List.of());
            produce(4);
            ShareFetchResponseData got = fetch(a, "a", 1, 1_000, 100, List.of());
            assertEquals(List.of(0L, 1L, 2L, 3L), acquiredOffsets(got), got.toString());
            ShareFetchResponseData accepted = fetch(a, "a", 2, 0, 0, List.of(ack(0, 3, (byte) 1)));
            assertEquals(Errors.NONE.code(), partition(accepted).acknowledgeErrorCode(), accepted.toString());

            // a's session stays open (its member left no trace in the group coordinator: the group is empty).
            admin.alterShareGroupOffsets(GROUP, Map.of(new TopicPartition(TOPIC, 0), 1L)).all().get();

            ShareFetchResponseData fromB = fetch(b, "b", 0, 1_000, 100, List.of());
            assertEquals(List.of(1L, 2L, 3L), acquiredOffsets(fromB), fromB.toString());
        }
    }

    @Test
    void aWaitingFetchIsWokenByRecordsAnotherMemberReleases() throws Exception {
        try (RawConnection a = new RawConnection(broker.port()); RawConnection b = new RawConnection(broker.port())) {
            fetch(a, "a", 0, 0, 10, List.of());
            produce(2);
            List<Long> held = acquiredOffsets(fetch(a, "a", 1, 1_000, 100, List.of()));
            assertEquals(List.of(0L, 1L), held);
            fetch(b, "b", 0, 0, 0, List.of());
            // b waits up to 60 s for records; the raw connection gives up after 10 s, so only a wake-up passes.
            RequestHeader waiting = b.send(fetchRequest("b", 1, 60_000, 100, List.of()), ++correlation);
            ShareFetchResponseData released = fetch(a, "a", 2, 0, 0, List.of(ack(0, 1, (byte) 2)));
            assertEquals(Errors.NONE.code(), partition(released).acknowledgeErrorCode(), released.toString());
            ShareFetchResponseData woken = ((ShareFetchResponse) b.receive(waiting)).data();
            assertEquals(List.of(0L, 1L), acquiredOffsets(woken), woken.toString());
        }
    }

    @Test
    void ofTwoWaitingMembersTheOneThatDoesNotGetANewRecordWaitsOnForTheNext() throws Exception {
        ExecutorService receivers = Executors.newFixedThreadPool(2);
        // One producer, ready before the fetches wait: the raw connections' reads give up 10 s after they begin.
        try (RawConnection a = new RawConnection(broker.port()); RawConnection b = new RawConnection(broker.port());
             KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            producer.partitionsFor(TOPIC);
            // Sessions that fetch: the share-partition is loaded, starting at the log end, before anything is sent.
            fetch(a, "a", 0, 0, 10, List.of());
            fetch(b, "b", 0, 0, 10, List.of());
            // Both wait up to 60 s; the raw connections give up after 10 s, so only records answer them.
            RequestHeader fromA = a.send(fetchRequest("a", 1, 60_000, 100, List.of()), ++correlation);
            RequestHeader fromB = b.send(fetchRequest("b", 1, 60_000, 100, List.of()), ++correlation);
            Future<ShareFetchResponseData> answerA = receivers.submit(
                    () -> ((ShareFetchResponse) a.receive(fromA)).data());
            Future<ShareFetchResponseData> answerB = receivers.submit(
                    () -> ((ShareFetchResponse) b.receive(fromB)).data());
            producer.send(new ProducerRecord<>(TOPIC, "job-0")).get();
            Waits.await("one member answered").until(() -> answerA.isDone() || answerB.isDone());
            Future<ShareFetchResponseData> first = answerA.isDone() ? answerA : answerB;
            Future<ShareFetchResponseData> other = first == answerA ? answerB : answerA;
            assertEquals(List.of(0L), acquiredOffsets(first.get()), first.get().toString());
            // The other member's fetch, woken by record 0 but too late for it, waits on rather than answer empty.
            producer.send(new ProducerRecord<>(TOPIC, "job-1")).get();
            ShareFetchResponseData next = other.get(15, TimeUnit.SECONDS);
            assertEquals(List.of(1L), acquiredOffsets(next), next.toString());
        } finally {
            receivers.shutdownNow();
        }
    }

    @Test
    void sessionEpochsAreChecked() throws Exception {
        try (RawConnection a = new RawConnection(broker.port())) {
            assertEquals(Errors.SHARE_SESSION_NOT_FOUND.code(), fetch(a, "a", 1, 0, 10, List.of()).errorCode());
            assertEquals(Errors.NONE.code(), fetch(a, "a", 0, 0, 10, List.of()).errorCode());
            assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(), fetch(a, "a", 5, 0, 10, List.of()).errorCode());
            assertEquals(Errors.INVALID_SHARE_SESSION_EPOCH.code(),
                    acknowledge(a, "a", 0, 0, 0, (byte) 1).data().errorCode());
            assertEquals(Errors.NONE.code(), fetch(a, "a", 1, 0, 10, List.of()).errorCode());
        }
    }

    @Test
    void acknowledgingARecordNotHeldIsInvalidRecordState() throws Exception {
        produce(2);
        try (RawConnection a = new RawConnection(broker.port())) {
            fetch(a, "a", 0, 0, 10, List.of());
            ShareFetchResponseData answer = fetch(a, "a", 1, 0, 0, List.of(ack(0, 1, (byte) 1)));
            assertEquals(Errors.INVALID_RECORD_STATE.code(), partition(answer).acknowledgeErrorCode(),
                    answer.toString());
        }
    }

    private void produce(int count) {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "job-" + i));
                producer.flush(); // a batch per record, so that acquisition has batches to split on
            }
        }
    }

    private ShareFetchResponseData fetch(RawConnection connection, String member, int epoch, int maxWaitMs,
                                         int maxRecords, List<ShareFetchRequestData.AcknowledgementBatch> acks)
            throws IOException {
        RequestHeader header = connection.send(fetchRequest(member, epoch, maxWaitMs, maxRecords, acks),
                ++correlation);
        return ((ShareFetchResponse) connection.receive(header)).data();
    }

    private ShareFetchRequest fetchRequest(String member, int epoch, int maxWaitMs, int maxRecords,
                                           List<ShareFetchRequestData.AcknowledgementBatch> acks) {
        ShareFetchRequestData.FetchPartition partition = new ShareFetchRequestData.FetchPartition()
                .setPartitionIndex(0).setAcknowledgementBatches(acks);
        ShareFetchRequestData.FetchTopicCollection topics = new ShareFetchRequestData.FetchTopicCollection();
        topics.add(new ShareFetchRequestData.FetchTopic().setTopicId(topicId)
                .setPartitions(new ShareFetchRequestData.FetchPartitionCollection(List.of(partition).iterator())));
        ShareFetchRequestData data = new ShareFetchRequestData().setGroupId(GROUP).setMemberId(member)
                .setShareSessionEpoch(epoch).setMaxWaitMs(maxWaitMs).setMinBytes(1).setMaxBytes(1 << 20)
                .setMaxRecords(maxRecords).setBatchSize(maxRecords).setTopics(topics);
        return new ShareFetchRequest.Builder(data).build((short) 1);
    }

    private ShareAcknowledgeResponse acknowledge(RawConnection connection, String member, int epoch, long first,
                                                 long last, byte type) throws IOException {
        ShareAcknowledgeRequestData.AcknowledgePartition partition =
                new ShareAcknowledgeRequestData.AcknowledgePartition().setPartitionIndex(0)
                        .setAcknowledgementBatches(List.of(new ShareAcknowledgeRequestData.AcknowledgementBatch()
                                .setFirstOffset(first).setLastOffset(last).setAcknowledgeTypes(List.of(type))));
        ShareAcknowledgeRequestData.AcknowledgeTopicCollection topics =
                new ShareAcknowledgeRequestData.AcknowledgeTopicCollection();
        topics.add(new ShareAcknowledgeRequestData.AcknowledgeTopic().setTopicId(topicId).setPartitions(
                new ShareAcknowledgeRequestData.AcknowledgePartitionCollection(List.of(partition).iterator())));
        ShareAcknowledgeRequestData data = new ShareAcknowledgeRequestData().setGroupId(GROUP).setMemberId(member)
                .setShareSessionEpoch(epoch).setTopics(topics);
        RequestHeader header = connection.send(new ShareAcknowledgeRequest.Builder(data).build((short) 1),
                ++correlation);
        return (ShareAcknowledgeResponse) connection.receive(header);
    }

    private static ShareFetchRequestData.AcknowledgementBatch ack(long first, long last, byte type) {
        return new ShareFetchRequestData.AcknowledgementBatch().setFirstOffset(first).setLastOffset(last)
                .setAcknowledgeTypes(List.of(type));
    }

    private static ShareFetchResponseData.PartitionData partition(ShareFetchResponseData response) {
        return response.responses().iterator().next().partitions().get(0);
    }

    private static List<Long> acquiredOffsets(ShareFetchResponseData response) {
        List<Long> offsets = new ArrayList<>();
        for (ShareFetchResponseData.ShareFetchableTopicResponse topic : response.responses()) {
            for (ShareFetchResponseData.PartitionData partition : topic.partitions()) {
                for (ShareFetchResponseData.AcquiredRecords range : partition.acquiredRecords()) {
                    for (long offset = range.firstOffset(); offset <= range.lastOffset(); offset++) {
                        offsets.add(offset);
                    }
                }
            }
        }
        return offsets;
    }

    /** The offsets among {@code acquired} that the response's records hold. */
    private static List<Long> deliveredOffsets(ShareFetchResponseData response, List<Long> acquired) {
        List<Long> delivered = new ArrayList<>();
        var records = partition(response).records();
        for (RecordBatch batch : ((org.apache.kafka.common.record.internal.Records) records).batches()) {
            for (Record record : batch) {
                if (acquired.contains(record.offset())) {
                    delivered.add(record.offset());
                }
            }
        }
        return delivered;
    }
}
