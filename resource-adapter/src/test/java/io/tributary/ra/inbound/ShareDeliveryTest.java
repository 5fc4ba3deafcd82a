package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryMessage;
import jakarta.resource.ResourceException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Queue activations in queue mode {@code share} (the default) outside a server ({@link AdapterOnBroker}): the
 * resource adapter on a real broker, recording endpoints that check the delivery protocol.
 * {@code maxSession} members of the queue's share group deliver at once whatever the partition count; the broker's
 * delivery count drives redelivery and dead-lettering.
 */
class ShareDeliveryTest extends AdapterOnBroker {

    /** Queue mode left unset: share, the default. */
    private TributaryActivationSpec spec(Consumer<TributaryActivationSpec> settings) throws ResourceException {
        return spec(null, settings);
    }

    private void send(String topic, List<String> texts) throws Exception {
        send(topic, 0, texts);
    }

    private static List<Integer> deliveryCounts(RecordingEndpointFactory endpoints, String text) {
        return endpoints.attempts().stream().filter(d -> d.text().equals(text))
                .map(RecordingEndpointFactory.Delivery::deliveryCount).toList();
    }

    // ---------------------------------------------------------------------------------------------------------

    @Test
    void maxSessionMembersDeliverAOnePartitionQueueAtOnceAndEachMessageOnce() throws Exception {
        String queue = name("one-partition");
        cluster.createTopic(queue, 1);
        List<String> all = texts("m", 40);
        send(queue, all);
        CountDownLatch eightInside = new CountDownLatch(8);
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (eightInside.getCount() > 0) {
                // The first eight wait for each other: only eight deliveries at once get past this.
                eightInside.countDown();
                assertTrue(eightInside.await(30, TimeUnit.SECONDS), "eight deliveries at once");
            }
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(8);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(all.size(), WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(8, endpoints.maxConcurrentDeliveries());
        assertEquals(Set.copyOf(all), Set.copyOf(endpoints.delivered()));
        assertEquals(all.size(), endpoints.attempts().size(), "no message delivered twice");
        assertEquals(List.of(), endpoints.violations());
        assertEquals(endpoints.created(), endpoints.released(), "every endpoint released");
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(10),
                () -> context.getWorkManager().running() == 0);

        // Accepted: a new activation of the queue gets only what is sent after.
        RecordingEndpointFactory again = endpoints(false);
        adapter.endpointActivation(again, spec);
        send(queue, List.of("after"));
        again.awaitDelivered(1, WAIT);
        assertFalse(RecordingEndpointFactory.within(Duration.ofSeconds(1), () -> again.attempts().size() > 1));
        adapter.endpointDeactivation(again, spec);
        assertEquals(List.of("after"), again.delivered());
    }

    @Test
    void aFailedMessageComesBackWithTheBrokersDeliveryCountThenGoesToTheDeadLetterTopic() throws Exception {
        String queue = name("payments");
        String deadLetters = queue + ".DLQ";
        cluster.createTopic(queue, 1);
        cluster.createTopic(deadLetters, 1);
        send(queue, List.of("a", "poison", "flaky", "b"));
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("poison")) {
                throw new IllegalArgumentException("cannot pay " + message.getText());
            }
            if (message.getText().equals("flaky") && !message.getJMSRedelivered()) {
                throw new IllegalStateException("not yet");
            }
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(2);
            s.setMaxRedeliveries(2);
            s.setRedeliveryDelay(0L);
            s.setDeadLetterDestination(deadLetters);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(3, WAIT);
        List<ConsumerRecord<byte[], byte[]>> letters = cluster.readAll(deadLetters, 1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(Set.of("a", "flaky", "b"), Set.copyOf(endpoints.delivered()));
        assertEquals(List.of(1, 2, 3), deliveryCounts(endpoints, "poison"));
        assertEquals(List.of(false, true, true), endpoints.attempts().stream()
                .filter(d -> d.text().equals("poison")).map(RecordingEndpointFactory.Delivery::redelivered).toList());
        assertEquals(List.of(1, 2), deliveryCounts(endpoints, "flaky"));
        assertEquals(List.of(1), deliveryCounts(endpoints, "a"));
        assertEquals(List.of(), endpoints.violations());

        assertEquals(1, letters.size());
        TributaryMessage letter = MessageCodec.fromRecord(letters.get(0), t -> null, false);
        assertEquals("poison", letter.getBody(String.class));
        assertTrue(letter.getStringProperty(DeadLetters.REASON).contains("IllegalArgumentException: cannot pay"),
                letter.getStringProperty(DeadLetters.REASON));
        assertEquals(queue, letter.getStringProperty(DeadLetters.ORIGINAL_TOPIC));
        assertEquals(1L, letter.getLongProperty(DeadLetters.ORIGINAL_OFFSET));
        assertEquals(3, letter.getIntProperty(DeadLetters.DELIVERY_COUNT));
    }

    @Test
    void withoutADeadLetterTopicAMessageIsRejectedAtTheBrokersDeliveryLimit() throws Exception {
        String queue = name("reject");
        cluster.createTopic(queue, 1);
        send(queue, List.of("poison", "next"));
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("poison")) {
                throw new IllegalArgumentException("never");
            }
        });
        // maxRedeliveries 9 asks for 10 deliveries; the group's share.delivery.count.limit (5) is the most it gets.
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(2);
            s.setMaxRedeliveries(9);
            s.setRedeliveryDelay(0L);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        RecordingEndpointFactory.await("the poison message's deliveries", WAIT,
                () -> deliveryCounts(endpoints, "poison").size() == 5);
        assertFalse(RecordingEndpointFactory.within(Duration.ofSeconds(1),
                () -> deliveryCounts(endpoints, "poison").size() > 5), "rejected after its fifth delivery");
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of(1, 2, 3, 4, 5), deliveryCounts(endpoints, "poison"));
        assertEquals(List.of("next"), endpoints.delivered());
    }

    @Test
    void inATransactionTheMessageIsAcceptedOnlyAfterTheCommitAndReleasedOnRollback() throws Exception {
        String queue = name("tx");
        cluster.createTopic(queue, 1);
        send(queue, List.of("rollback-once", "commit-fails-once", "plain"));
        RecordingEndpointFactory endpoints = endpoints(true);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("rollback-once") && !message.getJMSRedelivered()) {
                tx.setRollbackOnly(); // returns normally: only the transaction's outcome tells
            }
        });
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        endpoints.failAfterDelivery(text -> text.equals("commit-fails-once") && failedOnce.add(text));
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setRedeliveryDelay(0L);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(3, WAIT);
        assertFalse(RecordingEndpointFactory.within(Duration.ofSeconds(1), () -> endpoints.attempts().size() > 5));
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(Set.of("rollback-once", "commit-fails-once", "plain"), Set.copyOf(endpoints.delivered()));
        assertEquals(List.of(1, 2), deliveryCounts(endpoints, "rollback-once"));
        assertEquals(List.of(1, 2), deliveryCounts(endpoints, "commit-fails-once"));
        assertEquals(List.of(1), deliveryCounts(endpoints, "plain"));
        assertEquals(List.of(), endpoints.votes(), "no XA branch: the acknowledgement is not in the transaction");
        assertEquals(List.of(), endpoints.violations());
    }

    @Test
    void dupsOkAcceptsWithTheNextFetchOrAtTheStopAndNothingComesAgain() throws Exception {
        String queue = name("dups-ok");
        cluster.createTopic(queue, 1);
        List<String> all = texts("d", 10);
        send(queue, all);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(2);
            s.setAcknowledgeMode("Dups-ok-acknowledge");
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(all.size(), WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(Set.copyOf(all), Set.copyOf(endpoints.delivered()));

        RecordingEndpointFactory again = endpoints(false);
        adapter.endpointActivation(again, spec);
        send(queue, List.of("after"));
        again.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(again, spec);
        assertEquals(List.of("after"), again.delivered());
    }

    @Test
    void deactivationOfAnIdleActivationIsPromptAndLeavesNothingRunning() throws Exception {
        String queue = name("idle");
        cluster.createTopic(queue, 1);
        send(queue, List.of("first"));
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(4);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        long start = System.nanoTime();
        adapter.endpointDeactivation(endpoints, spec);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 3_000, "deactivation took " + millis + " ms");
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);
        assertEquals(endpoints.created(), endpoints.released(), "every endpoint released");
    }

    @Test
    void activationIsAllOrNothing() throws Exception {
        String queue = name("refused");
        cluster.createTopic(queue, 1);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(3);
        });
        context.getWorkManager().rejectAll(true);
        org.junit.jupiter.api.Assertions.assertThrows(ResourceException.class,
                () -> adapter.endpointActivation(endpoints, spec));
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);

        context.getWorkManager().rejectAll(false);
        send(queue, List.of("after"));
        adapter.endpointActivation(endpoints, spec); // nothing of the failed activation is in the way
        endpoints.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("after"), endpoints.delivered());
    }
}
