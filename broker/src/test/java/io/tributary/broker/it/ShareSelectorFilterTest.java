package io.tributary.broker.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.tributary.jms.format.RecordHeaders;
import io.tributary.jms.format.SelectorClientId;
import io.tributary.jms.format.TypedValueFormat;
import io.tributary.testsupport.Clients;
import io.tributary.testsupport.InProcessBroker;
import io.tributary.testsupport.Waits;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Share-group members that carry a JMS selector in their client id ({@link SelectorClientId}), with the official
 * {@code KafkaShareConsumer}: each member gets only the records its selector selects, each delivered once with
 * delivery count 1 however many members pass it over; a record no member selects stays available to a later member;
 * a waiting selective member is answered when a record it selects arrives after many it does not; a member whose
 * client id carries an invalid selector gets nothing and the others are served.
 */
class ShareSelectorFilterTest {

    private TestingServer zooKeeper;
    private InProcessBroker broker;

    @TempDir
    Path dataDir;

    @BeforeEach
    void startBroker() throws Exception {
        zooKeeper = new TestingServer(true);
        broker = new InProcessBroker(zooKeeper.getConnectString(), dataDir,
                "group.share.delivery.count.limit", "2");
    }

    @AfterEach
    void stopBroker() throws Exception {
        broker.close();
        zooKeeper.close();
    }

    @Test
    void disjointSelectiveMembersEachGetTheirOwnRecordsOnceAndNoneIsArchived() throws Exception {
        String topic = "colours";
        String group = "painters";
        setUp(topic, group);
        List<String> colours = List.of("red", "green", "blue", "white");
        int count = 400;
        produceColours(topic, count, colours);
        Map<String, List<ConsumerRecord<String, String>>> got = new ConcurrentHashMap<>();
        List<KafkaShareConsumer<String, String>> members = new ArrayList<>();
        try {
            for (String colour : colours) {
                KafkaShareConsumer<String, String> member = member(group, "colour = '" + colour + "'");
                member.subscribe(List.of(topic));
                members.add(member);
                got.put(colour, new ArrayList<>());
            }
            Waits.await("every record received by the member of its colour").atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> {
                        for (int m = 0; m < members.size(); m++) {
                            KafkaShareConsumer<String, String> member = members.get(m);
                            for (ConsumerRecord<String, String> record : member.poll(Duration.ofMillis(50))) {
                                got.get(colours.get(m)).add(record);
                                member.acknowledge(record, AcknowledgeType.ACCEPT);
                            }
                            member.commitSync();
                        }
                        assertEquals(count, got.values().stream().mapToInt(List::size).sum(), () -> sizes(got));
                    });
        } finally {
            members.forEach(KafkaShareConsumer::close);
        }
        for (String colour : colours) {
            List<ConsumerRecord<String, String>> records = got.get(colour);
            assertEquals(count / colours.size(), records.size(), () -> colour + ": " + sizes(got));
            for (ConsumerRecord<String, String> record : records) {
                assertTrue(record.value().startsWith(colour), () -> colour + " member got " + record.value());
                assertEquals(1, record.deliveryCount().orElseThrow().intValue(),
                        () -> record.value() + " was delivered more than once");
            }
        }
    }

    @Test
    void aRecordNoMemberSelectsStaysAvailableForALaterMember() throws Exception {
        String topic = "left";
        String group = "leftovers";
        setUp(topic, group);
        produceColours(topic, 10, List.of("red", "blue"));
        List<ConsumerRecord<String, String>> reds = new ArrayList<>();
        try (KafkaShareConsumer<String, String> red = member(group, "colour = 'red'")) {
            red.subscribe(List.of(topic));
            Waits.await("the five red records").untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : red.poll(Duration.ofMillis(100))) {
                    reds.add(record);
                    red.acknowledge(record, AcknowledgeType.ACCEPT);
                }
                red.commitSync();
                assertEquals(5, reds.size());
            });
            // Many empty polls: passing the blue records over must not count deliveries of them.
            for (int i = 0; i < 5; i++) {
                assertEquals(0, red.poll(Duration.ofMillis(50)).count());
            }
        }
        Map<Long, Integer> blues = new TreeMap<>();
        try (KafkaShareConsumer<String, String> any = member(group, null)) {
            any.subscribe(List.of(topic));
            Waits.await("the five blue records").untilAsserted(() -> {
                for (ConsumerRecord<String, String> record : any.poll(Duration.ofMillis(100))) {
                    assertTrue(record.value().startsWith("blue"), record.value());
                    blues.put(record.offset(), record.deliveryCount().orElseThrow().intValue());
                    any.acknowledge(record, AcknowledgeType.ACCEPT);
                }
                any.commitSync();
                assertEquals(5, blues.size());
            });
        }
        assertEquals(Map.of(1L, 1, 3L, 1, 5L, 1, 7L, 1, 9L, 1), blues, "offset to delivery count");
    }

    @Test
    void aWaitingSelectiveMemberIsAnsweredWhenItsRecordArrivesAfterOthers() throws Exception {
        String topic = "late";
        String group = "waiters";
        setUp(topic, group);
        try (KafkaShareConsumer<String, String> red = member(group, "colour = 'red'")) {
            red.subscribe(List.of(topic));
            assertEquals(0, red.poll(Duration.ofMillis(500)).count());
            produceColours(topic, 50, List.of("blue"));
            assertEquals(0, red.poll(Duration.ofMillis(500)).count());
            produceColours(topic, 1, List.of("red"));
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            Waits.await("the red record").untilAsserted(() -> {
                red.poll(Duration.ofMillis(200)).forEach(got::add);
                assertEquals(1, got.size());
            });
            assertEquals(50L, got.get(0).offset());
        }
    }

    @Test
    void aMemberWithAnInvalidSelectorGetsNothingAndTheOthersAreServed() throws Exception {
        String topic = "invalid";
        String group = "mixed";
        setUp(topic, group);
        produceColours(topic, 4, List.of("red"));
        try (KafkaShareConsumer<String, String> broken = member(group, "colour = ");
             KafkaShareConsumer<String, String> red = member(group, "colour = 'red'")) {
            broken.subscribe(List.of(topic));
            red.subscribe(List.of(topic));
            for (int i = 0; i < 3; i++) {
                try {
                    assertEquals(0, broken.poll(Duration.ofMillis(200)).count());
                } catch (RuntimeException refused) {
                    // The client may surface the broker's INVALID_REQUEST; either way nothing is delivered.
                }
            }
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            Waits.await("the red records").untilAsserted(() -> {
                red.poll(Duration.ofMillis(200)).forEach(got::add);
                assertEquals(4, got.size());
            });
        }
    }

    private static String sizes(Map<String, List<ConsumerRecord<String, String>>> got) {
        StringBuilder text = new StringBuilder();
        got.forEach((colour, records) -> text.append(colour).append('=').append(records.size()).append(' '));
        return text.toString();
    }

    private void setUp(String topic, String group) throws Exception {
        try (Admin admin = Clients.admin(broker.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
        }
    }

    /** Records shaped as JMS text messages with a String property {@code colour}, the colours taken in turn. */
    private void produceColours(String topic, int count, List<String> colours) {
        try (KafkaProducer<String, String> producer = Clients.producer(broker.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                String colour = colours.get(i % colours.size());
                ProducerRecord<String, String> record = new ProducerRecord<>(topic, colour + "-" + i);
                record.headers().add(new RecordHeader(RecordHeaders.BODY_TYPE,
                        RecordHeaders.BODY_TEXT.getBytes(StandardCharsets.UTF_8)));
                record.headers().add(new RecordHeader(RecordHeaders.PROPERTY_PREFIX + "colour",
                        TypedValueFormat.encodeProperty(colour)));
                producer.send(record);
            }
        }
    }

    private KafkaShareConsumer<String, String> member(String group, String selector) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, SelectorClientId.withSelector("member", selector));
        props.put(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        return new KafkaShareConsumer<>(props);
    }
}
