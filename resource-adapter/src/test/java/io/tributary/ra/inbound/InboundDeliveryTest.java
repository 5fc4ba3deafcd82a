package io.tributary.ra.inbound;

import static io.tributary.ra.inbound.RecordingEndpointFactory.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;

import io.tributary.jms.TributaryConnectionFactory;
import io.tributary.jms.TributaryQueue;
import io.tributary.jms.TributarySession;
import io.tributary.jms.kafka.XaLogRecord;
import io.tributary.jms.message.MessageCodec;
import io.tributary.jms.message.TributaryMessage;

import jakarta.jms.Connection;
import jakarta.jms.Session;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.ActivationSpec;
import jakarta.resource.spi.InvalidPropertyException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Delivery to message-driven beans outside a server: the resource adapter on a real broker, started with a test
 * BootstrapContext (a thread-pool WorkManager), delivering to recording endpoints that check the delivery protocol.
 * Queues here are in queue mode {@code group} (a consumer group, per-partition order, XA); {@link ShareDeliveryTest}
 * has the share-group queues.
 */
class InboundDeliveryTest extends AdapterOnBroker {

    /** Queues in queue mode {@code group} (topics ignore it); share mode is {@link ShareDeliveryTest}'s. */
    private TributaryActivationSpec spec(Consumer<TributaryActivationSpec> settings) throws ResourceException {
        return spec("group", settings);
    }

    /** Waits until a group-backed activation has joined and pinned its starting offsets on every partition. */
    private void awaitSubscribed(String group, int partitions) throws Exception {
        await("group " + group + " to commit its starting offsets", WAIT, () -> {
            try {
                return cluster.committed(group).size() == partitions;
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static int partitionOf(jakarta.jms.Message message) throws Exception {
        return message.getIntProperty(TributaryMessage.PARTITION_PROPERTY);
    }

    // ---------------------------------------------------------------------------------------------------------

    @Test
    void aQueueIsDeliveredOnceInOrderPerPartitionWithThePartitionsConcurrently() throws Exception {
        String queue = name("orders");
        cluster.createTopic(queue, 3);
        Map<Integer, List<String>> expected = new TreeMap<>();
        for (int p = 0; p < 3; p++) {
            expected.put(p, texts("p" + p + "-", 30));
            send(queue, p, expected.get(p));
        }
        CountDownLatch allPartitionsInside = new CountDownLatch(3);
        Set<Integer> started = ConcurrentHashMap.newKeySet();
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (started.add(partitionOf(message))) {
                // The first message of each partition waits for the other two: they must be delivered at once.
                allPartitionsInside.countDown();
                assertTrue(allPartitionsInside.await(30, TimeUnit.SECONDS), "three partitions delivered at once");
            }
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(3);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(90, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(expected, endpoints.deliveredByPartition());
        assertEquals(90, endpoints.attempts().size(), "no message delivered twice");
        assertEquals(3, endpoints.maxConcurrentDeliveries());
        assertEquals(List.of(), endpoints.violations());
        assertEquals(endpoints.created(), endpoints.released(), "every endpoint released");
        assertEquals(Map.of(0, 30L, 1, 30L, 2, 30L), cluster.committed(queue));
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);
    }

    @Test
    void maxSessionBoundsHowManyPartitionsAreDeliveredAtOnce() throws Exception {
        String queue = name("bounded");
        cluster.createTopic(queue, 4);
        for (int p = 0; p < 4; p++) {
            send(queue, p, texts("p" + p + "-", 10));
        }
        CountDownLatch twoInside = new CountDownLatch(2);
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (twoInside.getCount() > 0) {
                twoInside.countDown();
                twoInside.await(30, TimeUnit.SECONDS); // holds two partitions inside, while two more have records
            }
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxSession(2);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(40, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(2, endpoints.maxConcurrentDeliveries());
        for (int p = 0; p < 4; p++) {
            assertEquals(texts("p" + p + "-", 10), endpoints.deliveredByPartition().get(p));
        }
        assertEquals(List.of(), endpoints.violations());
    }

    @Test
    void offsetsAreCommittedOnlyForDeliveredMessagesAndDeliveryResumesAfterTheLastOne() throws Exception {
        String queue = name("resume");
        cluster.createTopic(queue, 1);
        List<String> all = texts("m", 20);
        send(queue, 0, all);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        RecordingEndpointFactory first = endpoints(false);
        first.bean((message, tx) -> {
            if (message.getText().equals("m7")) {
                inside.countDown();
                letGo.await(30, TimeUnit.SECONDS);
            }
        });
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(first, spec);
        assertTrue(inside.await(60, TimeUnit.SECONDS));
        assertTrue(cluster.committed(queue).getOrDefault(0, 0L) <= 7, "m7 is not committed while in flight");

        CompletableFuture<Void> deactivation = CompletableFuture.runAsync(
                () -> adapter.endpointDeactivation(first, spec));
        assertThrows(TimeoutException.class, () -> deactivation.get(300, TimeUnit.MILLISECONDS),
                "deactivation waits for the message in flight");
        letGo.countDown();
        deactivation.get(30, TimeUnit.SECONDS);

        assertEquals(all.subList(0, 8), first.delivered());
        assertEquals(Map.of(0, 8L), cluster.committed(queue), "committed exactly up to the last delivered message");

        RecordingEndpointFactory second = endpoints(false);
        TributaryActivationSpec again = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(second, again);
        second.awaitDelivered(12, WAIT);
        adapter.endpointDeactivation(second, again);
        assertEquals(all.subList(8, 20), second.delivered());
        assertEquals(12, second.attempts().size());
        assertEquals(Map.of(0, 20L), cluster.committed(queue));
    }

    @Test
    void failedDeliveriesComeAgainMarkedRedeliveredThenGoToTheDeadLetterTopicAndTheRestFlowOn() throws Exception {
        String queue = name("payments");
        String deadLetters = queue + ".DLQ";
        cluster.createTopic(queue, 1);
        cluster.createTopic(deadLetters, 1);
        send(queue, 0, List.of("a", "poison", "flaky", "b"));
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
            s.setMaxRedeliveries(2);
            s.setDeadLetterDestination(deadLetters);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(3, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(List.of("a", "flaky", "b"), endpoints.delivered());
        List<RecordingEndpointFactory.Delivery> poison = endpoints.attempts().stream()
                .filter(d -> d.text().equals("poison")).toList();
        assertEquals(List.of(1, 2, 3), poison.stream().map(RecordingEndpointFactory.Delivery::deliveryCount).toList());
        assertEquals(List.of(false, true, true),
                poison.stream().map(RecordingEndpointFactory.Delivery::redelivered).toList());
        List<RecordingEndpointFactory.Delivery> flaky = endpoints.attempts().stream()
                .filter(d -> d.text().equals("flaky")).toList();
        assertEquals(List.of(1, 2), flaky.stream().map(RecordingEndpointFactory.Delivery::deliveryCount).toList());
        assertEquals(List.of(), endpoints.violations());

        List<ConsumerRecord<byte[], byte[]>> letters = cluster.readAll(deadLetters, 1, WAIT);
        assertEquals(1, letters.size());
        TributaryMessage letter = MessageCodec.fromRecord(letters.get(0), t -> null, false);
        assertEquals("poison", letter.getBody(String.class));
        assertTrue(letter.getStringProperty(DeadLetters.REASON).contains("IllegalArgumentException: cannot pay"),
                letter.getStringProperty(DeadLetters.REASON));
        assertEquals(queue, letter.getStringProperty(DeadLetters.ORIGINAL_TOPIC));
        assertEquals(0, letter.getIntProperty(DeadLetters.ORIGINAL_PARTITION));
        assertEquals(1L, letter.getLongProperty(DeadLetters.ORIGINAL_OFFSET));
        assertEquals(3, letter.getIntProperty(DeadLetters.DELIVERY_COUNT));
        assertEquals("recording-mdb", letter.getStringProperty(DeadLetters.ENDPOINT));
        assertEquals(Map.of(0, 4L), cluster.committed(queue));
    }

    @Test
    void withoutADeadLetterTopicAnUndeliverableMessageIsSkippedAfterItsRedeliveries() throws Exception {
        String queue = name("skip");
        cluster.createTopic(queue, 1);
        send(queue, 0, List.of("poison", "next"));
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("poison")) {
                throw new IllegalArgumentException("never");
            }
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMaxRedeliveries(0);
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("next"), endpoints.delivered());
        assertEquals(2, endpoints.attempts().size(), "maxRedeliveries 0: one delivery of the poison message");
        assertEquals(Map.of(0, 2L), cluster.committed(queue));
    }

    @Test
    void aDeliveryThatFailsWhileTheBeanGoesAwayIsNotUsedUpButComesToTheNextActivation() throws Exception {
        // As in an undeployment on Payara: the application's resources are gone while its MDB still receives, so
        // every delivery fails for a moment. With a redelivery delay the activation ends before the redeliveries
        // are used up; redelivering at once, the message was skipped within milliseconds.
        String queue = name("undeploy");
        cluster.createTopic(queue, 1);
        send(queue, 0, List.of("m"));
        RecordingEndpointFactory leaving = endpoints(false);
        leaving.bean((message, tx) -> {
            throw new IllegalStateException("the application's resources are gone");
        });
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setRedeliveryDelay(60_000L);
        });
        adapter.endpointActivation(leaving, spec);
        await("the first delivery", WAIT, () -> !leaving.attempts().isEmpty());
        adapter.endpointDeactivation(leaving, spec);
        assertEquals(1, leaving.attempts().size(), "no redelivery before the delay: " + leaving.attempts());
        assertEquals(List.of(), leaving.delivered());
        assertEquals(Map.of(0, 0L), cluster.committed(queue), "the position stays at the failed message");

        RecordingEndpointFactory back = endpoints(false);
        adapter.endpointActivation(back, spec);
        back.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(back, spec);
        assertEquals(List.of("m"), back.delivered());
        assertEquals(Map.of(0, 1L), cluster.committed(queue));
    }

    @Test
    void inATransactionTheMessageCountsOnlyWhenTheTransactionCommits() throws Exception {
        String queue = name("tx");
        cluster.createTopic(queue, 1);
        send(queue, 0, List.of("rollback-once", "commit-fails-once", "plain"));
        RecordingEndpointFactory endpoints = endpoints(true);
        endpoints.bean((message, tx) -> {
            if (message.getText().equals("rollback-once") && !message.getJMSRedelivered()) {
                tx.setRollbackOnly(); // returns normally: only the transaction's outcome tells
            }
        });
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        endpoints.failAfterDelivery(text -> text.equals("commit-fails-once") && failedOnce.add(text));
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(3, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(List.of("rollback-once", "commit-fails-once", "plain"), endpoints.delivered());
        assertEquals(List.of("rollback-once", "rollback-once", "commit-fails-once", "commit-fails-once", "plain"),
                endpoints.attempts().stream().map(RecordingEndpointFactory.Delivery::text).toList());
        assertEquals(List.of(), endpoints.violations());
        assertEquals(Map.of(0, 3L), cluster.committed(queue));
        // Prepared: rollback-once's second delivery, commit-fails-once twice (its branch commits, then the test's
        // afterDelivery fails), plain; rollback-once's first is rolled back without prepare.
        assertEquals(List.of(XAResource.XA_OK, XAResource.XA_OK, XAResource.XA_OK, XAResource.XA_OK),
                endpoints.votes(), "each delivery's offset went into its XA branch");
    }

    @Test
    void inATransactionANonDurableSubscriptionIsDeliveredWithBranchesThatCommitNoOffset() throws Exception {
        String topic = name("tx-ticks");
        cluster.createTopic(topic, 1);
        send(topic, 0, List.of("old-0", "old-1"));
        RecordingEndpointFactory endpoints = endpoints(true);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
            s.setStartAt("earliest");
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(2, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        assertEquals(List.of("old-0", "old-1"), endpoints.delivered());
        assertEquals(List.of(), endpoints.violations());
        // No group (the consumer has no group id): nothing to commit in the branches, which are read-only.
        assertEquals(List.of(XAResource.XA_RDONLY, XAResource.XA_RDONLY), endpoints.votes());
        assertEquals(Set.of(), cluster.groups().stream().filter(g -> g.contains(topic)).collect(Collectors.toSet()),
                "a non-durable subscription has no group");
    }

    @Test
    void theAdaptersXaResourcesListAndDecideTheBranchesInDoubtOnTheSpecsCluster() throws Exception {
        String queue = name("xa-recovery");
        cluster.createTopic(queue, 1);
        Xid xid = new XaLogRecord.XaXid(77, ("recovery-" + System.nanoTime()).getBytes(), new byte[] {1});
        try (Connection connection = new TributaryConnectionFactory(cluster.bootstrapServers()).createConnection()) {
            Session session = connection.createSession(Session.SESSION_TRANSACTED);
            XAResource xa = ((TributarySession) session).getXAResource();
            xa.start(xid, XAResource.TMNOFLAGS);
            session.createProducer(TributaryQueue.of(queue)).send(session.createTextMessage("in doubt"));
            xa.end(xid, XAResource.TMSUCCESS);
            assertEquals(XAResource.XA_OK, xa.prepare(xid));
        } // the "server" goes: the branch stays prepared

        XAResource[] resources = adapter.getXAResources(new ActivationSpec[] {spec(s -> s.setDestination(queue))});
        assertEquals(1, resources.length);
        assertTrue(List.of(resources[0].recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN)).contains(xid));
        resources[0].commit(xid, false);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("in doubt"), endpoints.delivered());
    }

    @Test
    void aDurableSubscriptionKeepsWhatIsSentWhileItsBeanIsUndeployed() throws Exception {
        String topic = name("prices");
        cluster.createTopic(topic, 2);
        Consumer<TributaryActivationSpec> durable = s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setClientId("billing");
            s.setSubscriptionName("audit");
        };
        send(topic, 0, List.of("before-subscription"));
        RecordingEndpointFactory first = endpoints(false);
        TributaryActivationSpec spec = spec(durable);
        adapter.endpointActivation(first, spec);
        awaitSubscribed("jms.durable.billing.audit", 2);
        send(topic, 1, List.of("while-deployed"));
        first.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(first, spec);

        send(topic, 0, List.of("while-undeployed-0"));
        send(topic, 1, List.of("while-undeployed-1"));
        RecordingEndpointFactory second = endpoints(false);
        TributaryActivationSpec again = spec(durable);
        adapter.endpointActivation(second, again);
        second.awaitDelivered(2, WAIT);
        adapter.endpointDeactivation(second, again);

        assertEquals(List.of("while-deployed"), first.delivered());
        assertEquals(Set.of("while-undeployed-0", "while-undeployed-1"), new HashSet<>(second.delivered()));
        assertEquals(2, second.attempts().size());
    }

    @Test
    void aDurableSubscriptionActivatedAgainWithAnotherSelectorStartsAfresh() throws Exception {
        String topic = name("rates");
        cluster.createTopic(topic, 1);
        String group = "jms.durable.pricing.watch";
        Function<String, Consumer<TributaryActivationSpec>> durable = selector -> s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
            s.setSubscriptionDurability("Durable");
            s.setClientId("pricing");
            s.setSubscriptionName("watch");
            s.setMessageSelector(selector);
        };
        RecordingEndpointFactory first = endpoints(false);
        TributaryActivationSpec spec = spec(durable.apply("region = 'EU'"));
        adapter.endpointActivation(first, spec);
        awaitSubscribed(group, 1);
        cluster.send(topic, 0, "eu-1", Map.of("region", "EU"));
        first.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(first, spec);

        cluster.send(topic, 0, "eu-2", Map.of("region", "EU")); // kept for the old definition only
        cluster.send(topic, 0, "us-1", Map.of("region", "US")); // sent before the new definition existed
        RecordingEndpointFactory second = endpoints(false);
        TributaryActivationSpec redefined = spec(durable.apply("region = 'US'"));
        adapter.endpointActivation(second, redefined);
        await("the new definition to start at the end of the log", WAIT, () -> {
            try {
                return cluster.committed(group).getOrDefault(0, 0L) == 3L;
            } catch (Exception e) {
                return false;
            }
        });
        cluster.send(topic, 0, "us-2", Map.of("region", "US"));
        second.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(second, redefined);

        cluster.send(topic, 0, "us-3", Map.of("region", "US")); // the same definition resumes
        RecordingEndpointFactory third = endpoints(false);
        TributaryActivationSpec same = spec(durable.apply("region = 'US'"));
        adapter.endpointActivation(third, same);
        third.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(third, same);

        assertEquals(List.of("eu-1"), first.delivered());
        assertEquals(List.of("us-2"), second.delivered());
        assertEquals(List.of("us-3"), third.delivered());
    }

    @Test
    void aSharedSubscriptionSplitsTheMessagesBetweenItsBeansAndEndsWithTheLastOfThem() throws Exception {
        String topic = name("events");
        cluster.createTopic(topic, 2);
        Consumer<TributaryActivationSpec> shared = s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
            s.setShareSubscriptions(true);
            s.setSubscriptionName("workers");
        };
        String group = "jms.shared.workers";
        RecordingEndpointFactory one = endpoints(false);
        RecordingEndpointFactory two = endpoints(false);
        TributaryActivationSpec oneSpec = spec(shared);
        TributaryActivationSpec twoSpec = spec(shared);
        adapter.endpointActivation(one, oneSpec);
        awaitSubscribed(group, 2);
        send(topic, 0, texts("a", 10));
        adapter.endpointActivation(two, twoSpec); // joins while the first delivers: partitions move between them
        send(topic, 1, texts("b", 10));
        await("20 deliveries between both beans", WAIT,
                () -> one.delivered().size() + two.delivered().size() >= 20);
        send(topic, 0, texts("c", 5));
        send(topic, 1, texts("d", 5));
        await("30 deliveries between both beans", WAIT,
                () -> one.delivered().size() + two.delivered().size() >= 30);
        adapter.endpointDeactivation(one, oneSpec);
        assertTrue(cluster.groups().contains(group), "the subscription lives while a bean uses it");
        adapter.endpointDeactivation(two, twoSpec);

        List<String> all = new ArrayList<>(one.delivered());
        all.addAll(two.delivered());
        assertEquals(30, all.size(), "each message to one bean, once: " + all);
        assertEquals(30, new HashSet<>(all).size());
        assertEquals(30, one.attempts().size() + two.attempts().size());
        await("the shared subscription's group to be deleted", WAIT, () -> {
            try {
                return !cluster.groups().contains(group);
            } catch (Exception e) {
                return false;
            }
        });
    }

    @Test
    void dupsOkAcknowledgeCommitsWithoutWaitingAndStillOnlyWhatWasDelivered() throws Exception {
        String queue = name("lazy");
        cluster.createTopic(queue, 1);
        send(queue, 0, texts("m", 10));
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setAcknowledgeMode("Dups-ok-acknowledge");
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(10, WAIT);
        await("the asynchronous commit", WAIT, () -> {
            try {
                return cluster.committed(queue).equals(Map.of(0, 10L));
            } catch (Exception e) {
                return false;
            }
        });
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(texts("m", 10), endpoints.delivered());
    }

    @Test
    void startAtEarliestReplaysAQueueAndMovesItsPosition() throws Exception {
        String queue = name("replay");
        cluster.createTopic(queue, 2);
        send(queue, 0, List.of("a0", "a1"));
        send(queue, 1, List.of("b0"));
        RecordingEndpointFactory first = endpoints(false);
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(first, spec);
        first.awaitDelivered(3, WAIT);
        adapter.endpointDeactivation(first, spec);

        RecordingEndpointFactory replay = endpoints(false);
        TributaryActivationSpec fromStart = spec(s -> {
            s.setDestination(queue);
            s.setStartAt("earliest");
        });
        adapter.endpointActivation(replay, fromStart);
        replay.awaitDelivered(3, WAIT);
        adapter.endpointDeactivation(replay, fromStart);
        assertEquals(Map.of(0, List.of("a0", "a1"), 1, List.of("b0")), replay.deliveredByPartition());
        assertEquals(Map.of(0, 2L, 1, 1L), cluster.committed(queue));
    }

    @Test
    void aNonDurableSubscriptionStartsAtTheEndUnlessStartAtSaysOtherwise() throws Exception {
        String topic = name("ticks");
        cluster.createTopic(topic, 1);
        send(topic, 0, List.of("old-0", "old-1"));
        RecordingEndpointFactory live = endpoints(false);
        TributaryActivationSpec liveSpec = spec(s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
        });
        adapter.endpointActivation(live, liveSpec);
        RecordingEndpointFactory history = endpoints(false);
        TributaryActivationSpec historySpec = spec(s -> {
            s.setDestination(topic);
            s.setDestinationType("jakarta.jms.Topic");
            s.setStartAt("earliest");
        });
        adapter.endpointActivation(history, historySpec);
        // The live subscription exists from some moment after activation: send until it has seen one.
        int sent = 0;
        while (!RecordingEndpointFactory.within(Duration.ofMillis(500), () -> !live.delivered().isEmpty())) {
            assertTrue(sent < 100, "the live subscription received nothing");
            cluster.send(topic, 0, "new-" + sent++);
        }
        history.awaitDelivered(2 + sent, WAIT);
        adapter.endpointDeactivation(live, liveSpec);
        adapter.endpointDeactivation(history, historySpec);
        assertFalse(live.delivered().contains("old-0") || live.delivered().contains("old-1"),
                live.delivered().toString());
        assertEquals(List.of("old-0", "old-1"), history.delivered().subList(0, 2));
        assertEquals(Set.of(), cluster.groups().stream().filter(g -> g.contains(topic)).collect(Collectors.toSet()),
                "a non-durable subscription has no group");
    }

    @Test
    void theSelectorPassesOverMessagesItDoesNotSelectAndTheyAreConsumed() throws Exception {
        String queue = name("regions");
        cluster.createTopic(queue, 1);
        cluster.send(queue, 0, "eu-1", Map.of("region", "EU"));
        cluster.send(queue, 0, "us-1", Map.of("region", "US"));
        cluster.send(queue, 0, "none");
        cluster.send(queue, 0, "eu-2", Map.of("region", "EU"));
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> {
            s.setDestination(queue);
            s.setMessageSelector("region = 'EU'");
        });
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(2, WAIT);
        await("the passed-over messages to be committed", WAIT, () -> {
            try {
                return cluster.committed(queue).getOrDefault(0, 0L) == 4L;
            } catch (Exception e) {
                return false;
            }
        });
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("eu-1", "eu-2"), endpoints.delivered());
    }

    @Test
    void anEndpointTheContainerCannotCreateYetIsAskedForAgain() throws Exception {
        String queue = name("early");
        cluster.createTopic(queue, 1);
        send(queue, 0, List.of("x", "y"));
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.unavailableFor(3);
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(2, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("x", "y"), endpoints.delivered());
    }

    @Test
    void deactivationOfAnIdleActivationIsPromptAndLeavesNothingRunning() throws Exception {
        String queue = name("idle");
        cluster.createTopic(queue, 2);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        awaitSubscribed(queue, 2);
        long start = System.nanoTime();
        adapter.endpointDeactivation(endpoints, spec);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 3_000, "deactivation took " + millis + " ms");
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);
    }

    @Test
    void activationIsAllOrNothing() throws Exception {
        String queue = name("refused");
        cluster.createTopic(queue, 1);
        RecordingEndpointFactory endpoints = endpoints(false);
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        context.getWorkManager().rejectAll(true);
        assertThrows(ResourceException.class, () -> adapter.endpointActivation(endpoints, spec));
        RecordingEndpointFactory.await("the Works to end", Duration.ofSeconds(2),
                () -> context.getWorkManager().running() == 0);

        context.getWorkManager().rejectAll(false);
        send(queue, 0, List.of("after"));
        adapter.endpointActivation(endpoints, spec); // nothing of the failed activation is in the way
        endpoints.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);

        TributaryActivationSpec invalid = new TributaryActivationSpec();
        invalid.setResourceAdapter(adapter);
        InvalidPropertyException e = assertThrows(InvalidPropertyException.class,
                () -> adapter.endpointActivation(endpoints(false), invalid));
        assertTrue(e.getMessage().startsWith("destination "), e.getMessage());
    }

    @Test
    void aDelayedMessageIsDeliveredAtItsDeliveryTimeAndHoldsItsPartitionUntilThen() throws Exception {
        String queue = name("delayed");
        cluster.createTopic(queue, 1);
        long due = System.currentTimeMillis() + 1_500;
        cluster.send(queue, 0, "later", Map.of(), due);
        cluster.send(queue, 0, "behind");
        Map<String, Long> deliveredAt = new ConcurrentHashMap<>();
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> deliveredAt.put(message.getText(), System.currentTimeMillis()));
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(2, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of("later", "behind"), endpoints.delivered());
        assertTrue(deliveredAt.get("later") >= due, "delivered " + (due - deliveredAt.get("later")) + " ms early");
    }

    @Test
    void messagesCarryTheQueueAsTheirDestination() throws Exception {
        String queue = name("dest");
        cluster.createTopic(queue, 1);
        send(queue, 0, List.of("x"));
        List<Object> destinations = new ArrayList<>();
        RecordingEndpointFactory endpoints = endpoints(false);
        endpoints.bean((message, tx) -> destinations.add(message.getJMSDestination()));
        TributaryActivationSpec spec = spec(s -> s.setDestination(queue));
        adapter.endpointActivation(endpoints, spec);
        endpoints.awaitDelivered(1, WAIT);
        adapter.endpointDeactivation(endpoints, spec);
        assertEquals(List.of(TributaryQueue.of(queue)), destinations);
    }
}
