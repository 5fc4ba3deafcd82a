package io.tributary.jms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import jakarta.jms.Connection;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.MessageConsumer;
import jakarta.jms.MessageProducer;
import jakarta.jms.Queue;
import jakarta.jms.Session;
import jakarta.jms.TextMessage;

import io.tributary.jms.kafka.DeadLetterRecord;
import io.tributary.testsupport.ChildJvm;
import io.tributary.testsupport.TributaryClusterExtension;
import io.tributary.testsupport.Waits;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queues on share groups (issue 24), against a real broker with the provider's default {@code queueMode=share}:
 * receivers of a one-partition queue consume in parallel, each message once; a selective receiver gets only what it
 * selects (the broker leaves the rest to the others, without counting a delivery); recovery, rollback and a failing listener release messages, which come again with
 * {@code JMSRedelivered} and the broker's delivery count, also after the receiving process was killed; a message
 * that keeps failing goes to the dead-letter queue while the rest of its partition flows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShareGroupQueueTest {

    private static final long WAIT_MS = 20_000;

    /** Record locks of 2 s for the crash test, below the broker's default minimum of 15 s. */
    @RegisterExtension
    static final TributaryClusterExtension cluster = TributaryClusterExtension.singleBroker(
            "group.share.min.record.lock.duration.ms", "1000");
    private TributaryConnectionFactory factory;
    private final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    void start() {
        factory = TestConnectionFactory.create(cluster.bootstrapServers());
    }

    private String queueName() throws Exception {
        String name = "shared-" + names.incrementAndGet();
        cluster.createTopic(name, 1);
        return name;
    }

    private static void send(Session session, Queue queue, String... texts) throws Exception {
        MessageProducer producer = session.createProducer(queue);
        for (String text : texts) {
            TextMessage message = session.createTextMessage(text);
            message.setStringProperty("kind", text.substring(0, 1));
            producer.send(message);
        }
        producer.close();
    }

    private static String text(Message message) throws Exception {
        assertNotNull(message, "no message within the wait");
        return ((TextMessage) message).getText();
    }

    @Test
    void eightReceiversOfOnePartitionEachGetSomeNoneTwiceNoneLost() throws Exception {
        TributaryConnectionFactory smallFetches = TestConnectionFactory.create(cluster.bootstrapServers());
        smallFetches.setKafkaProperty("consumer.max.poll.records", "5");
        int count = 400;
        Map<String, String> receivedBy = new ConcurrentHashMap<>();
        List<String> twice = new CopyOnWriteArrayList<>();
        Map<Integer, AtomicInteger> perReceiver = new ConcurrentHashMap<>();
        try (Connection connection = smallFetches.createConnection()) {
            Queue queue = connection.createSession().createQueue(queueName());
            for (int r = 0; r < 8; r++) {
                int receiver = r;
                perReceiver.put(receiver, new AtomicInteger());
                Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
                session.createConsumer(queue).setMessageListener(message -> {
                    try {
                        if (receivedBy.putIfAbsent(text(message), "r" + receiver) != null) {
                            twice.add(text(message));
                        }
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    perReceiver.get(receiver).incrementAndGet();
                });
            }
            connection.start();
            Session sender = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            String[] texts = new String[count];
            for (int i = 0; i < count; i++) {
                texts[i] = "m" + i;
            }
            send(sender, queue, texts);
            Waits.await("all " + count + " messages received").untilAsserted(() -> assertEquals(count,
                    receivedBy.size(), () -> receivedBy.size() + " received, per receiver " + perReceiver));
        }
        assertEquals(List.of(), twice, "messages delivered twice");
        perReceiver.forEach((receiver, got) -> assertTrue(got.get() > 0, () -> "receiver " + receiver
                + " got none: " + perReceiver));
    }

    @Test
    void aSelectiveReceiverBesideANonSelectiveOneConsumesOnlyWhatItSelectsAndNothingIsLost() throws Exception {
        int count = 60;
        List<String> selective = new CopyOnWriteArrayList<>();
        List<String> all = new CopyOnWriteArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Queue queue = connection.createSession().createQueue(queueName());
            connection.createSession(Session.AUTO_ACKNOWLEDGE).createConsumer(queue, "kind = 'a'")
                    .setMessageListener(message -> selective.add(unchecked(message)));
            connection.createSession(Session.AUTO_ACKNOWLEDGE).createConsumer(queue)
                    .setMessageListener(message -> all.add(unchecked(message)));
            connection.start();
            String[] texts = new String[count];
            for (int i = 0; i < count; i++) {
                texts[i] = (i % 2 == 0 ? "a" : "b") + i;
            }
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, texts);
            Waits.await("every message received by one of the two").untilAsserted(() -> assertEquals(count,
                    selective.size() + all.size(), () -> "selective " + selective + ", other " + all));
        }
        assertTrue(selective.stream().allMatch(text -> text.startsWith("a")), () -> "selected only a: " + selective);
        Set<String> distinct = new java.util.HashSet<>(selective);
        distinct.addAll(all);
        assertEquals(count, distinct.size(), () -> "none twice: " + selective + " / " + all);
    }

    @Test
    void disjointSelectiveReceiversGetTheirOwnMessagesOnceWithNoneDeadLettered() throws Exception {
        int count = 800;
        String[] kinds = {"a", "b", "c", "d"};
        Map<String, List<Message>> got = new ConcurrentHashMap<>();
        try (Connection connection = factory.createConnection()) {
            Queue queue = connection.createSession().createQueue(queueName());
            for (String kind : kinds) {
                List<Message> mine = new CopyOnWriteArrayList<>();
                got.put(kind, mine);
                connection.createSession(Session.AUTO_ACKNOWLEDGE).createConsumer(queue, "kind = '" + kind + "'")
                        .setMessageListener(mine::add);
            }
            connection.start();
            String[] texts = new String[count];
            for (int i = 0; i < count; i++) {
                texts[i] = kinds[i % kinds.length] + i;
            }
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, texts);
            Waits.await("every message received by the receiver of its kind").untilAsserted(() -> assertEquals(
                    count, got.values().stream().mapToInt(List::size).sum(), () -> sizes(got)));
        }
        for (String kind : kinds) {
            assertEquals(count / kinds.length, got.get(kind).size(), () -> sizes(got));
            for (Message message : got.get(kind)) {
                assertTrue(text(message).startsWith(kind), () -> kind + " receiver got " + unchecked(message));
                assertEquals(1, message.getIntProperty("JMSXDeliveryCount"),
                        () -> unchecked(message) + " was delivered before, to a receiver that did not select it");
            }
        }
    }

    private static String sizes(Map<String, List<Message>> got) {
        StringBuilder text = new StringBuilder();
        got.forEach((kind, messages) -> text.append(kind).append('=').append(messages.size()).append(' '));
        return text.toString();
    }

    private static String unchecked(Message message) {
        try {
            return text(message);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void recoverReleasesAndTheMessageComesAgainWithTheBrokersDeliveryCount() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            send(session, queue, "x1");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            Message first = consumer.receive(WAIT_MS);
            assertEquals("x1", text(first));
            assertFalse(first.getJMSRedelivered());
            assertEquals(1, first.getIntProperty("JMSXDeliveryCount"));
            session.recover();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("x1", text(again));
            assertTrue(again.getJMSRedelivered());
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
            again.acknowledge();
            assertNull(session.createConsumer(queue).receive(1_000), "accepted: not delivered again");
        }
    }

    @Test
    void rollbackReleasesAndCommitAcceptsInBothApis() throws Exception {
        String name = queueName();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            Queue queue = session.createQueue(name);
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, "t1");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            assertEquals("t1", text(consumer.receive(WAIT_MS)));
            session.rollback();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("t1", text(again));
            assertTrue(again.getJMSRedelivered());
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
            session.commit();
            assertNull(consumer.receive(1_000), "committed: not delivered again");
        }
        try (JMSContext context = factory.createContext(JMSContext.SESSION_TRANSACTED)) {
            Queue queue = context.createQueue(name);
            context.createProducer().send(queue, "t2");
            context.commit();
            JMSConsumer consumer = context.createConsumer(queue);
            assertEquals("t2", consumer.receiveBody(String.class, WAIT_MS));
            context.rollback();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("t2", text(again));
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"));
            context.commit();
            assertNull(consumer.receive(1_000), "committed: not delivered again");
        }
    }

    @Test
    void aListenerThatThrowsGetsTheMessageAgainMarkedRedelivered() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            AtomicInteger failures = new AtomicInteger();
            session.createConsumer(queue).setMessageListener(message -> {
                try {
                    if (failures.getAndIncrement() == 0) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    seen.add(text(message) + ":" + message.getJMSRedelivered() + ":"
                            + message.getIntProperty("JMSXDeliveryCount"));
                } catch (RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            connection.start();
            send(connection.createSession(Session.AUTO_ACKNOWLEDGE), queue, "boom");
            Waits.await("the message redelivered").untilAsserted(() -> assertEquals(List.of("boom:true:2"), seen));
        }
    }

    @Test
    void aReceiverGetsWhatIsSentWhileItWaits() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            AtomicReference<Message> forever = new AtomicReference<>();
            AtomicReference<Exception> failed = new AtomicReference<>();
            Thread waiting = new Thread(() -> {
                try {
                    forever.set(consumer.receive());
                } catch (Exception e) {
                    failed.set(e);
                }
            });
            waiting.start();
            Session sender = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            send(sender, queue, "w1");
            waiting.join(WAIT_MS);
            assertNull(failed.get());
            assertEquals("w1", text(forever.get()));

            send(sender, queue, "w2");
            assertEquals("w2", text(consumer.receive(WAIT_MS)));

            send(sender, queue, "w3");
            AtomicReference<Message> noWait = new AtomicReference<>();
            Waits.await("receiveNoWait returns the message").until(() -> {
                noWait.set(consumer.receiveNoWait());
                return noWait.get() != null;
            });
            assertEquals("w3", text(noWait.get()));

            List<String> heard = new CopyOnWriteArrayList<>();
            Session listening = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            listening.createConsumer(queue).setMessageListener(message -> heard.add(unchecked(message)));
            consumer.close();
            send(sender, queue, "w4");
            Waits.await("the listener got it").untilAsserted(() -> assertEquals(List.of("w4"), heard));
        }
    }

    @Test
    void aMessageThatKeepsFailingGoesToTheDeadLetterQueueWhileTheRestFlows() throws Exception {
        TributaryConnectionFactory deadLettering = TestConnectionFactory.create(cluster.bootstrapServers());
        String name = queueName();
        String deadLetterQueue = name + ".DLQ";
        deadLettering.setDeadLetterQueue(deadLetterQueue);
        deadLettering.setMaxDeliveries(3);
        List<String> good = new CopyOnWriteArrayList<>();
        AtomicInteger poisonDeliveries = new AtomicInteger();
        try (Connection connection = deadLettering.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(name);
            send(session, queue, "poison", "g1", "g2", "g3", "g4", "g5");
            session.createConsumer(queue).setMessageListener(message -> {
                String text = unchecked(message);
                if (text.equals("poison")) {
                    poisonDeliveries.incrementAndGet();
                    throw new IllegalArgumentException("cannot process " + text);
                }
                good.add(text);
            });
            connection.start();
            Waits.await("the rest of the partition delivered").untilAsserted(() -> assertEquals(
                    Set.of("g1", "g2", "g3", "g4", "g5"), Set.copyOf(good)));

            Session reader = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Message letter = reader.createConsumer(reader.createQueue(deadLetterQueue)).receive(WAIT_MS);
            assertEquals("poison", text(letter));
            assertEquals(name, letter.getStringProperty(DeadLetterRecord.ORIGINAL_TOPIC));
            assertEquals(0, letter.getIntProperty(DeadLetterRecord.ORIGINAL_PARTITION));
            assertEquals(0L, letter.getLongProperty(DeadLetterRecord.ORIGINAL_OFFSET));
            assertEquals(3, letter.getIntProperty(DeadLetterRecord.DELIVERY_COUNT));
            assertTrue(letter.getStringProperty(DeadLetterRecord.REASON).contains("cannot process poison"),
                    () -> "reason: " + unchecked(letter));
            assertEquals(3, poisonDeliveries.get(), "delivered maxDeliveries times, then dead-lettered");
        }
    }

    @Test
    void withoutADeadLetterQueueAMessageIsRejectedAfterMaxDeliveries() throws Exception {
        TributaryConnectionFactory rejecting = TestConnectionFactory.create(cluster.bootstrapServers());
        rejecting.setMaxDeliveries(2);
        try (Connection connection = rejecting.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            send(session, queue, "r1", "r2");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            List<String> deliveries = new ArrayList<>();
            for (Message message = consumer.receive(WAIT_MS); message != null; message = consumer.receive(2_000)) {
                deliveries.add(text(message) + "#" + message.getIntProperty("JMSXDeliveryCount"));
                if (text(message).equals("r2")) {
                    message.acknowledge();
                } else {
                    session.recover();
                }
            }
            assertEquals(List.of("r1#1", "r1#2"), deliveries.stream().filter(d -> d.startsWith("r1")).toList(),
                    "r1 rejected after its second delivery: " + deliveries);
            assertTrue(deliveries.contains("r2#1") || deliveries.contains("r2#2"), () -> "r2 delivered: "
                    + deliveries);
        }
    }

    @Test
    void aClientAcknowledgeReceiverFetchesNoMoreThanOneFetchAheadOfItsAcknowledgements() throws Exception {
        TributaryConnectionFactory smallFetches = TestConnectionFactory.create(cluster.bootstrapServers());
        smallFetches.setKafkaProperty("consumer.max.poll.records", "2");
        try (Connection connection = smallFetches.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            send(session, queue, "c1", "c2", "c3");
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            List<Message> received = new ArrayList<>();
            jakarta.jms.IllegalStateException refused = assertThrows(jakarta.jms.IllegalStateException.class, () -> {
                for (int i = 0; i < 3; i++) {
                    received.add(consumer.receive(WAIT_MS));
                }
            });
            assertTrue(refused.getMessage().contains("max.poll.records"), refused.getMessage());
            received.get(received.size() - 1).acknowledge();
            assertNotNull(consumer.receive(WAIT_MS), "after the acknowledgement the receiver fetches again");
        }
    }

    @Test
    void afterTheReceiverIsKilledTheNextOneGetsTheMessageWithTheBrokersCountOnceTheLockExpires(@TempDir Path dir)
            throws Exception {
        String name = queueName();
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, name);
        Collection<AlterConfigOp> lock = List.of(new AlterConfigOp(new ConfigEntry("share.record.lock.duration.ms",
                "2000"), AlterConfigOp.OpType.SET));
        cluster.admin().incrementalAlterConfigs(Map.of(group, lock)).all().get();
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.AUTO_ACKNOWLEDGE);
            Queue queue = session.createQueue(name);
            send(session, queue, "k1");
            try (ChildJvm child = new ChildJvm(dir.resolve("child.log"), CrashingConsumerMain.class,
                    cluster.bootstrapServers(), name, "CLIENT_ACKNOWLEDGE", "1", "100").start()) {
                child.awaitLine("received k1", Duration.ofSeconds(60));
                child.kill();
            }
            MessageConsumer consumer = session.createConsumer(queue);
            connection.start();
            Message again = consumer.receive(WAIT_MS);
            assertEquals("k1", text(again));
            assertTrue(again.getJMSRedelivered());
            assertEquals(2, again.getIntProperty("JMSXDeliveryCount"), "the broker counted the killed delivery");
        }
    }

    @Test
    void aBrowserShowsTheQueueFromItsShareGroupsStartOffsetNotTheAcceptedMessages() throws Exception {
        try (Connection connection = factory.createConnection()) {
            Session session = connection.createSession(Session.CLIENT_ACKNOWLEDGE);
            Queue queue = session.createQueue(queueName());
            assertEquals(List.of(), browse(session, queue), "an empty queue");
            send(session, queue, "a1", "a2", "a3");
            assertEquals(List.of("a1", "a2", "a3"), browse(session, queue), "a queue no receiver has read yet");

            MessageConsumer receiver = session.createConsumer(queue);
            connection.start();
            assertEquals("a1", text(receiver.receive(WAIT_MS)));
            Message second = receiver.receive(WAIT_MS);
            assertEquals("a2", text(second));
            second.acknowledge();
            assertEquals(List.of("a3"), browse(session, queue), "a1 and a2 are accepted");
            receiver.close();
            assertEquals(List.of("a3"), browse(session, queue), "after the receiver closed");
        }
    }

    private static List<String> browse(Session session, Queue queue) throws Exception {
        List<String> texts = new ArrayList<>();
        try (jakarta.jms.QueueBrowser browser = session.createBrowser(queue)) {
            for (var messages = browser.getEnumeration(); messages.hasMoreElements(); ) {
                texts.add(text((Message) messages.nextElement()));
            }
        }
        return texts;
    }
}
