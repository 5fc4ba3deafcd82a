package io.tributary.ra.inbound;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.tributary.jms.kafka.DeadLetterPolicy;
import io.tributary.jms.kafka.DeliveryDecision;
import io.tributary.jms.kafka.SubscriptionAdmin;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery of a queue through its share group (queue mode {@code share}): {@code maxSession}
 * {@link ShareMember}s, each a long-running {@link jakarta.resource.spi.work.Work} on the container's WorkManager with
 * a share consumer of its own, so that {@code maxSession} messages are delivered at once whatever the queue's
 * partition count. The broker hands each record to one member at a time, counts its deliveries and gives a released
 * record to any member.
 *
 * <p>Delivery guarantee: at least once. A message is accepted (consumed for good) only after {@code onMessage}
 * returned and, for transacted delivery, the container's transaction committed; it is released for redelivery when
 * {@code onMessage} threw or the transaction rolled back, and a member that dies without either leaves it to the
 * broker, which redelivers it when its lock expires ({@code group.share.record.lock.duration.ms}). The acceptance is
 * not part of the container's transaction: a crash between the commit and the acceptance delivers the message again.
 * Exactly-once XA delivery needs queue mode {@code group} ({@link RecordFetcher}).
 *
 * <p>Before the first fetch the group is configured as a queue and its delivery limit read, once for all members
 * ({@link #deadLetterPolicy()}); while the cluster is away this fails and each member retries with back-off.
 *
 * <p>All or nothing: {@link #start} either returns with every member running or throws and leaves nothing behind.
 * Threads: started and stopped by the container's threads (through {@link InboundActivation}); members call
 * {@link #deadLetterPolicy()} and {@link #stopping()} from their own.
 */
final class ShareDelivery implements ActivationDelivery {

    private static final Logger log = LoggerFactory.getLogger(ShareDelivery.class);

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(10);

    /** What the members of one activation share. */
    record Services(ActivationConfig config, String name, DeliveryDecision decision, MessageEndpointFactory endpoints,
                    EndpointInvoker invoker, DeadLetters deadLetters, Availability cluster,
                    Availability endpointAvailability) {
    }

    private final Services services;
    private final String clientId;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final List<ShareMember> members = new ArrayList<>();
    /** Set once by the first member that configured the group; guarded by this. */
    private DeadLetterPolicy policy;

    private ShareDelivery(Services services, String clientId) {
        this.services = services;
        this.clientId = clientId;
    }

    /**
     * Starts {@code config.maxSession()} members, each with its own share consumer.
     *
     * @param startTimeoutMs how long the WorkManager may take to start each member
     * @throws ResourceException if a consumer cannot be created (its configuration is refused) or the WorkManager
     *                           does not start a member; the members already started are stopped
     */
    static ShareDelivery start(Services services, String clientId, WorkManager workManager, boolean longRunningHint,
                               long startTimeoutMs) throws ResourceException {
        ShareDelivery delivery = new ShareDelivery(services, clientId);
        ActivationConfig config = services.config();
        List<KafkaShareConsumer<byte[], byte[]>> consumers = new ArrayList<>();
        try {
            for (int i = 1; i <= config.maxSession(); i++) {
                consumers.add(delivery.newConsumer(i));
            }
        } catch (KafkaException e) {
            consumers.forEach(consumer -> consumer.close(Duration.ZERO));
            throw new ResourceException("The Kafka share consumer for " + services.name() + " cannot be created: "
                    + e.getMessage(), e);
        }
        for (int i = 0; i < consumers.size(); i++) {
            int index = i + 1;
            delivery.members.add(new ShareMember(delivery, services, index, consumers.get(i),
                    () -> delivery.newConsumer(index), longRunningHint));
        }
        for (ShareMember member : delivery.members) {
            try {
                workManager.startWork(member, startTimeoutMs, null, null);
            } catch (WorkException | RuntimeException e) {
                delivery.requestStop();
                delivery.awaitStopped(Duration.ofSeconds(10));
                throw new ResourceException("The container's WorkManager did not start share-group member "
                        + member.index() + " of " + config.maxSession() + " for " + services.name() + ": " + e, e);
            }
        }
        return delivery;
    }

    private KafkaShareConsumer<byte[], byte[]> newConsumer(int index) {
        return services.config().newShareConsumer(clientId + "-" + index);
    }

    /**
     * The dead-letter policy, after configuring the group as a queue ({@code share.auto.offset.reset=earliest},
     * read-committed) and reading its delivery limit; the first member to get here does it, the others wait for it.
     *
     * @throws KafkaException if the cluster cannot be asked (the member retries with back-off)
     */
    synchronized DeadLetterPolicy deadLetterPolicy() {
        if (policy != null) {
            return policy;
        }
        ActivationConfig config = services.config();
        String groupId = config.subscription().groupId();
        int limit;
        try (Admin admin = config.newAdmin(clientId + "-admin")) {
            SubscriptionAdmin groups = new SubscriptionAdmin(admin, ADMIN_TIMEOUT);
            groups.prepareShareGroup(groupId);
            limit = groups.shareDeliveryCountLimit(groupId, DeadLetterPolicy.DEFAULT_MAX_DELIVERIES);
        }
        policy = config.deadLetterPolicy(limit);
        if (policy.maxDeliveries() < config.maxRedeliveries() + 1) {
            log.warn("{}: maxRedeliveries {} is more than share group {} allows (share.delivery.count.limit {}):"
                    + " a message goes to {} after {} deliveries", services.name(), config.maxRedeliveries(), groupId,
                    limit, policy.topic() == null ? "nowhere (rejected)" : policy.topic(), policy.maxDeliveries());
        }
        return policy;
    }

    boolean stopping() {
        return stopRequested.getCount() == 0;
    }

    /** Waits up to {@code millis} unless a stop comes first; false if stopping. */
    boolean pause(long millis) {
        try {
            return !stopRequested.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Asks every member to stop after the message it delivers; does not wait. */
    @Override
    public void requestStop() {
        stopRequested.countDown();
        for (ShareMember member : members) {
            member.requestStop();
        }
    }

    /** Waits until every member has stopped and closed its consumer; false if one took longer than {@code timeout}. */
    @Override
    public boolean awaitStopped(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean all = true;
        for (ShareMember member : members) {
            all &= member.awaitStopped(Math.max(0, deadline - System.nanoTime()));
        }
        return all;
    }
}
