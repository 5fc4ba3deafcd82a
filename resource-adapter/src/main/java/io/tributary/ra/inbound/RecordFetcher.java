package io.tributary.ra.inbound;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import jakarta.resource.spi.work.HintsContext;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkContext;
import jakarta.resource.spi.work.WorkContextProvider;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread of an activation that talks to the Kafka consumer: a long-running {@link Work} that subscribes (or,
 * for an unshared non-durable subscription, assigns every partition from the end of the log), polls, hands each
 * partition's records to its {@link PartitionDelivery}, offers partitions with records to the
 * {@link DeliveryScheduler}, pauses fetching for partitions whose backlog is large, and commits the offsets up to which
 * delivery is done: never further. What it holds and where each partition stands is {@link HeldPartitions}; this
 * class owns the consumer, its loop, its failures and its end. {@code Auto-acknowledge} commits synchronously on every turn that has something to
 * commit; {@code Dups-ok-acknowledge} commits asynchronously, one commit in flight at a time.
 *
 * <p>Rebalances: partitions taken away are closed (their in-flight message finishes) and their delivered offsets
 * committed; a partition lost without a chance to commit (the group moved on while the cluster was away), or whose
 * commit failed, has its delivered offset remembered, and if it comes back to this activation delivery resumes there
 * rather than at an older committed offset, so nothing is delivered twice. A partition new to a subscription has its
 * starting position committed at once, so a durable subscription keeps what is sent while its MDB is undeployed.
 * {@code startAt} moves each partition once per activation, when it is first assigned.
 *
 * <p>Failures: a cluster that cannot be reached is retried with back-off (1 s doubling to 30 s) and logged once per
 * change ({@link Availability}); a consumer that fails outright is closed and created anew. When the cluster is quiet
 * for {@value #PROBE_INTERVAL_MS} ms a metadata request checks that it is still there, so an outage is reported
 * even when no message flows.
 *
 * <p>Threads: {@link #run()} on a container thread owns the consumer and the {@link HeldPartitions}. {@link #requestStop()} and
 * {@link #release()} may be called from any thread: they set a latch and wake the consumer.
 */
final class RecordFetcher implements Work, WorkContextProvider, ActivationDelivery {

    private static final Logger log = LoggerFactory.getLogger(RecordFetcher.class);

    /** Bounds how late a stop, a parked partition's retry or a commit is noticed when nothing is fetched. */
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration METADATA_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);
    static final long PROBE_INTERVAL_MS = 10_000;

    private final ActivationConfig config;
    /** XA for transacted delivery (told the group metadata after each poll), or null. */
    private final XaDelivery xa;
    private final String name;
    private final Supplier<KafkaConsumer<byte[], byte[]>> consumers;
    private final DeliveryScheduler scheduler;
    private final LongSupplier nanoClock;
    private final boolean longRunningHint;
    private final Availability cluster;
    private final Backoff backoff = Backoff.forCluster();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** Written by the fetcher thread (and before it starts); read by {@link #requestStop()} to wake it. */
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private boolean subscribed;
    private final HeldPartitions held;
    private long lastContactNanos;
    /** Whether the durable subscription's committed definition has been compared with this activation's. */
    private boolean definitionChecked;

    /**
     * @param cluster    reports the cluster's failures (log, and the activation's state)
     * @param consumer   the first consumer, created by the activation (so that a bad configuration fails it)
     * @param consumers  creates a consumer again after one failed
     * @param deliveries creates the delivery of a partition when it is assigned
     */
    RecordFetcher(ActivationConfig config, String name, Availability cluster, KafkaConsumer<byte[], byte[]> consumer,
                  Supplier<KafkaConsumer<byte[], byte[]>> consumers,
                  Function<TopicPartition, PartitionDelivery> deliveries, DeliveryScheduler scheduler,
                  LongSupplier nanoClock, boolean longRunningHint, XaDelivery xa) {
        this.config = config;
        this.xa = xa;
        this.name = name;
        this.consumer = consumer;
        this.consumers = consumers;
        this.scheduler = scheduler;
        this.nanoClock = nanoClock;
        this.longRunningHint = longRunningHint;
        this.cluster = cluster;
        this.lastContactNanos = nanoClock.getAsLong();
        this.held = new HeldPartitions(config, name, deliveries, cluster, this::stopping, this::contact);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Control (any thread)

    /** Asks the fetcher to stop: it finishes the in-flight messages, commits and closes. Does not wait. */
    @Override
    public void requestStop() {
        stopRequested.countDown();
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
    }

    /** Waits for the stop; false if it took longer than {@code timeout}. */
    @Override
    public boolean awaitStopped(Duration timeout) {
        try {
            return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The container asks the work to end (server shutdown): the same as a stop. */
    @Override
    public void release() {
        requestStop();
    }

    /** Marks the work long-running where the container understands the hint, so it gets a thread of its own kind. */
    @Override
    public List<WorkContext> getWorkContexts() {
        if (!longRunningHint) {
            return List.of();
        }
        HintsContext hints = new HintsContext();
        hints.setName("Tributary fetcher");
        hints.setDescription(name);
        hints.setHint(HintsContext.LONGRUNNING_HINT, Boolean.TRUE);
        return List.of(hints);
    }

    private boolean stopping() {
        return stopRequested.getCount() == 0;
    }

    // ---------------------------------------------------------------------------------------------------------
    // The loop (fetcher thread)

    @Override
    public void run() {
        try {
            while (!stopping()) {
                try {
                    turn();
                } catch (WakeupException e) {
                    // requestStop(): the loop condition ends it.
                } catch (InterruptException e) {
                    log.info("{}: interrupted; stopping", name);
                    Thread.interrupted();
                    stopRequested.countDown();
                } catch (RuntimeException e) {
                    cluster.failed("consuming", e, "restarting the consumer");
                    closeConsumer();
                    pause();
                }
            }
        } catch (Error e) {
            log.error("{}: the fetcher failed; delivery stops", name, e);
            throw e;
        } finally {
            shutdown();
            stopped.countDown();
        }
    }

    private void turn() {
        if (consumer == null) {
            consumer = consumers.get();
            subscribed = false;
        }
        if (!subscribed && !subscribe()) {
            pause();
            return;
        }
        ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL_TIMEOUT);
        if (xa != null && config.subscription().hasGroup()) {
            xa.groupMetadata(consumer.groupMetadata()); // for the records' offsets in XA branches
        }
        if (!records.isEmpty()) {
            contact();
            held.enqueue(records);
        }
        held.dispatch(nanoClock.getAsLong(), scheduler);
        held.flowControl(consumer);
        held.commit(consumer);
        probeIfQuiet();
    }

    /** Waits out the back-off; a stop cuts it short. */
    private void pause() {
        try {
            stopRequested.await(backoff.nextDelayMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopRequested.countDown();
        }
    }

    private void contact() {
        lastContactNanos = nanoClock.getAsLong();
        backoff.reset();
        cluster.succeeded("reaching the cluster");
    }

    /** Subscribes to the group, or assigns every partition; false (after logging) when the cluster is not there. */
    private boolean subscribe() {
        String topic = config.topic();
        if (config.subscription().isDurable() && !definitionChecked) {
            if (!startAfreshIfRedefined()) {
                return false;
            }
            definitionChecked = true;
        }
        if (config.subscription().hasGroup()) {
            consumer.subscribe(List.of(topic), held.rebalanceListener(consumer));
            subscribed = true;
            return true;
        }
        List<PartitionInfo> infos;
        try {
            infos = consumer.partitionsFor(topic, METADATA_TIMEOUT);
        } catch (TimeoutException e) {
            cluster.failed("looking up topic " + topic, e, "retrying with back-off");
            return false;
        }
        if (infos == null || infos.isEmpty()) {
            cluster.failed("looking up topic " + topic, new UnknownTopicOrPartitionException("topic " + topic
                    + " does not exist"), "retrying with back-off");
            return false;
        }
        List<TopicPartition> all = new ArrayList<>();
        for (PartitionInfo info : infos) {
            all.add(new TopicPartition(topic, info.partition()));
        }
        if (!held.assignAll(consumer, all)) {
            return false;
        }
        contact();
        subscribed = true;
        return true;
    }

    /** When nothing was heard from the cluster for a while, asks it for metadata: an outage shows even when idle. */
    private void probeIfQuiet() {
        long now = nanoClock.getAsLong();
        if (now - lastContactNanos < TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS)) {
            return;
        }
        try {
            consumer.listTopics(PROBE_TIMEOUT);
            contact();
        } catch (TimeoutException e) {
            lastContactNanos = now;
            cluster.failed("reaching the cluster", e, "the client reconnects with back-off up to "
                    + ActivationConfig.RECONNECT_BACKOFF_MAX_MS / 1000 + " s");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Stopping

    /** Closes the consumer after letting go of every partition; the next turn creates a new one. */
    private void closeConsumer() {
        KafkaConsumer<byte[], byte[]> current = consumer;
        if (current == null) {
            return;
        }
        try {
            held.letGoAll(current);
        } catch (RuntimeException e) {
            log.debug("{}: letting go of partitions failed: {}", name, e.toString());
        }
        try {
            current.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        } catch (RuntimeException e) {
            log.debug("{}: closing the consumer failed: {}", name, e.toString());
        }
        consumer = null;
        subscribed = false;
        held.consumerClosed();
    }

    /**
     * The end of the activation: closes every partition at once, waits for their in-flight messages, commits what
     * was delivered, closes the consumer, and deletes a shared non-durable subscription's group if this was its last
     * member.
     */
    private void shutdown() {
        scheduler.close();
        held.closeDeliveries();
        if (consumer == null) {
            return;
        }
        try {
            held.letGoAll(consumer);
        } catch (RuntimeException e) {
            log.warn("{}: the last commit failed: {}", name, e.toString());
        }
        held.warnUncommitted();
        try {
            consumer.close(CloseOptions.timeout(CLOSE_TIMEOUT));
        } catch (RuntimeException e) {
            log.debug("{}: closing the consumer failed: {}", name, e.toString());
        }
        consumer = null;
        if (config.subscription().kind() == Subscription.Kind.SHARED) {
            deleteGroupIfEmpty(config.subscription().groupId());
        }
    }

    /**
     * A durable subscription whose committed offsets carry another definition (topic or selector) was created again
     * otherwise: as the provider does for {@code createDurableConsumer}, the old one is deleted with its offsets and
     * this activation starts at the end of the log. If the old definition still has consumers (another server not
     * yet redeployed, say), the activation joins the subscription as it is, with a warning. False, after logging,
     * when the cluster cannot be asked.
     */
    private boolean startAfreshIfRedefined() {
        Subscription subscription = config.subscription();
        try (Admin admin = config.newAdmin("tributary-ra-admin-" + config.topic())) {
            switch (new SubscriptionAdmin(admin, METADATA_TIMEOUT).startAfreshIfRedefined(subscription)) {
                case STARTED_AFRESH -> log.info("{}: {} was created with another topic or selector before; it starts"
                        + " afresh", name, subscription.describe());
                case IN_USE -> log.warn("{}: {} was created with another topic or selector and still has consumers"
                        + " of that definition; joining it as it is", name, subscription.describe());
                case UNCHANGED -> {
                }
            }
            return true;
        } catch (InterruptException e) {
            return false; // the flag is set: the loop stops
        } catch (RuntimeException e) {
            cluster.failed("reading the committed offsets of " + subscription.groupId(), e, "retrying with back-off");
            return false;
        }
    }

    /** A shared non-durable subscription ends with its last consumer (the cluster refuses while others remain). */
    private void deleteGroupIfEmpty(String groupId) {
        try (Admin admin = config.newAdmin("tributary-ra-admin-" + config.topic())) {
            new SubscriptionAdmin(admin, Duration.ofSeconds(5)).deleteGroup(groupId);
            log.debug("{}: deleted shared subscription group {}", name, groupId);
        } catch (RuntimeException e) {
            log.debug("{}: group {} not deleted: {}", name, groupId, e.toString());
        }
    }

    @Override
    public String toString() {
        return "RecordFetcher[" + name + "]";
    }
}
