package io.tributary.broker.it;

import static io.tributary.testsupport.Waits.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker's JMX beans under Apache Kafka's object and attribute names, read from the platform MBean server while
 * the official Java client produces and consumes: the BrokerTopicMetrics meters (all topics and per topic), the
 * request metrics of Produce, the Log gauges, the ReplicaManager and controller gauges, and the removal of a deleted
 * topic's beans.
 */
class BrokerMetricsTest {

    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private static TestingServer zooKeeper;
    private static InProcessBroker broker;

    @BeforeAll
    static void startBroker(@TempDir Path dir) throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dir);
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
        zooKeeper.close();
    }

    @Test
    void producingCountsMessagesBytesAndRequestsUnderKafkasNames() throws Exception {
        String topic = "metrics-orders";
        int records = 250;
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        long allBefore = count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec");
        long requestsBefore = count("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec");

        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < records; i++) {
                // Partition 0 only, so that its log end offset is the number of records.
                producer.send(new ProducerRecord<>(topic, 0, "key-" + i, "value-" + i)).get();
            }
        }

        assertEquals(records, count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=" + topic));
        assertEquals(records, count("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec") - allBefore);
        assertTrue(count("kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=" + topic) > 0);
        assertTrue(count("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec") - requestsBefore
                >= records);
        assertEquals(records,
                count("kafka.server:type=BrokerTopicMetrics,name=TotalProduceRequestsPerSec,topic=" + topic));
        assertEquals(0L,
                count("kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec,topic=" + topic));
        assertEquals("events/second",
                attribute("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", "RateUnit"));
        attribute("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec", "OneMinuteRate");

        // The time histograms count a request once its response is written, just after the client has it.
        await("Produce's TotalTimeMs").until(
                () -> count("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce") >= records);
        for (String phase : List.of("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseSendTimeMs")) {
            assertTrue(count("kafka.network:type=RequestMetrics,name=" + phase + ",request=Produce") > 0, phase);
        }
        attribute("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce", "99thPercentile");
        Set<ObjectName> produceRates = JMX.queryNames(
                new ObjectName("kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,*"), null);
        assertTrue(!produceRates.isEmpty() && produceRates.iterator().next().getKeyProperty("version") != null,
                produceRates.toString());
        attribute("kafka.network:type=RequestChannel,name=RequestQueueSize", "Value");
        assertTrue(count("kafka.network:type=RequestMetrics,name=ErrorsPerSec,request=Produce,error=NONE")
                >= records);

        assertEquals((long) records, ((Number) attribute(
                "kafka.log:type=Log,name=LogEndOffset,topic=" + topic + ",partition=0", "Value")).longValue());
        assertEquals(0L, ((Number) attribute(
                "kafka.log:type=Log,name=LogEndOffset,topic=" + topic + ",partition=1", "Value")).longValue());
        assertTrue(((Number) attribute("kafka.log:type=Log,name=Size,topic=" + topic + ",partition=0", "Value"))
                .longValue() > 0);
        assertEquals(1, ((Number) attribute(
                "kafka.log:type=Log,name=NumLogSegments,topic=" + topic + ",partition=0", "Value")).intValue());

        // Consumed: BytesOutPerSec of the topic.
        try (KafkaConsumer<String, String> consumer = Clients.consumer(broker.bootstrapServers())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(consumer.assignment());
            int[] read = {0};
            await("every record consumed").until(() -> {
                read[0] += consumer.poll(java.time.Duration.ofMillis(200)).count();
                return read[0] >= records;
            });
        }
        assertTrue(count("kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=" + topic) > 0);
        assertTrue(count("kafka.server:type=BrokerTopicMetrics,name=TotalFetchRequestsPerSec,topic=" + topic) > 0);
        assertTrue(count("kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer") > 0);
    }

    @Test
    void replicaManagerAndControllerGaugesDescribeThisBroker() throws Exception {
        String topic = "metrics-gauges";
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
        }
        await("the partitions hosted").until(() -> JMX.isRegistered(
                new ObjectName("kafka.log:type=Log,name=LogEndOffset,topic=" + topic + ",partition=2")));
        int hosted = JMX.queryNames(new ObjectName("kafka.log:type=Log,name=LogEndOffset,*"), null).size();
        await("PartitionCount and LeaderCount").until(() ->
                gauge("kafka.server:type=ReplicaManager,name=PartitionCount") == hosted
                        && gauge("kafka.server:type=ReplicaManager,name=LeaderCount") == hosted);
        assertEquals(0, gauge("kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"));
        assertEquals(0, gauge("kafka.server:type=ReplicaManager,name=UnderMinIsrPartitionCount"));
        assertEquals(0L, count("kafka.server:type=ReplicaManager,name=IsrShrinksPerSec"));
        await("ActiveControllerCount").until(
                () -> gauge("kafka.controller:type=KafkaController,name=ActiveControllerCount") == 1);
        assertEquals(0, gauge("kafka.controller:type=KafkaController,name=OfflinePartitionsCount"));
        assertEquals(0, gauge("kafka.server:type=ReplicaManager,name=OfflineReplicaCount"));
        await("GlobalPartitionCount").until(
                () -> gauge("kafka.controller:type=KafkaController,name=GlobalPartitionCount") == hosted);
        assertEquals("CONNECTED", attribute("kafka.server:type=SessionExpireListener,name=SessionState", "Value"));
        assertTrue(count("kafka.server:type=ZooKeeperClientMetrics,name=ZooKeeperRequestLatencyMs") > 0);
        attribute("kafka.server:type=group-coordinator-metrics,protocol=classic", "group-count");
        attribute("kafka.server:type=group-coordinator-metrics,state=Stable", "classic-group-count");
        attribute("kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs", "Count");
    }

    @Test
    void deletingATopicRemovesItsTopicAndLogBeans() throws Exception {
        String topic = "metrics-deleted";
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
                producer.send(new ProducerRecord<>(topic, "k", "v")).get();
            }
            ObjectName topicMeter = new ObjectName(
                    "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=" + topic);
            ObjectName logGauge = new ObjectName("kafka.log:type=Log,name=Size,topic=" + topic + ",partition=0");
            assertTrue(JMX.isRegistered(topicMeter));
            assertTrue(JMX.isRegistered(logGauge));

            admin.deleteTopics(List.of(topic)).all().get();

            await("the deleted topic's beans gone").until(() -> JMX.queryNames(
                    new ObjectName("kafka.*:topic=" + topic + ",*"), null).isEmpty());
            assertTrue(JMX.isRegistered(new ObjectName("kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec")));
        }
    }

    private static Object attribute(String name, String attribute) throws JMException {
        return JMX.getAttribute(new ObjectName(name), attribute);
    }

    private static long count(String name) throws JMException {
        return ((Number) attribute(name, "Count")).longValue();
    }

    private static int gauge(String name) throws JMException {
        return ((Number) attribute(name, "Value")).intValue();
    }
}
