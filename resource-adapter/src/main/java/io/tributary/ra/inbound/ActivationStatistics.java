package io.tributary.ra.inbound;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.DoubleSupplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counters and state of one activation, and its JMX bean ({@link ActivationMXBean}):
 * {@code io.tributary.ra:type=activation,name=<activation name>}, with {@code ,id=<n>} added when another
 * activation of the same name is registered already.
 *
 * <p>Recording: the {@link EndpointInvoker} counts each delivery (in flight while onMessage runs, then delivered or
 * failed, redelivered when {@code JMSRedelivered}); {@link PartitionDelivery} and {@link ShareMember} count dead
 * letters; the state is derived when read from the activation's {@link Availability} reporters (cluster, endpoint,
 * dead-letter topic, WorkManager), which also give the last failure.
 *
 * <p>Threads: any; counters are {@link LongAdder}s (delivery threads record without contention), the rest volatile.
 */
final class ActivationStatistics implements ActivationMXBean {

    private static final Logger log = LoggerFactory.getLogger(ActivationStatistics.class);
    static final String DOMAIN = "io.tributary.ra";
    private static final AtomicInteger IDS = new AtomicInteger();

    /** What an {@link Availability} watches: which state its failure puts the activation in. */
    enum Dependency {
        /** The cluster (fetching, metadata, offsets, the login): {@code BROKER_UNREACHABLE}. */
        CLUSTER,
        /** The endpoint, the dead-letter topic or the WorkManager: {@code BACKING_OFF}. */
        DELIVERY
    }

    enum State { ACTIVE, BACKING_OFF, BROKER_UNREACHABLE, STOPPING }

    private final String endpoint;
    private final String subscription;
    private final String bootstrapServers;
    private final DoubleSupplier lag;
    private final Clock clock;
    private final List<Availability> availabilities = new CopyOnWriteArrayList<>();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder redeliveries = new LongAdder();
    private final LongAdder deadLettered = new LongAdder();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Failed deliveries since the last successful one; the activation backs off (redelivery delay) meanwhile. */
    private final AtomicInteger failingDeliveries = new AtomicInteger();
    private volatile Instant failingDeliveriesSince;
    private volatile String lastFailure;
    private volatile Instant lastFailureTime;
    private volatile boolean stopping;
    /** Written by the starting and stopping threads, under this. */
    private ObjectName registered;

    /**
     * @param lag the consumer group's lag, NaN when unknown
     */
    ActivationStatistics(String endpoint, String subscription, String bootstrapServers, DoubleSupplier lag,
                         Clock clock) {
        this.endpoint = endpoint;
        this.subscription = subscription;
        this.bootstrapServers = bootstrapServers;
        this.lag = lag;
        this.clock = clock;
    }

    /**
     * The lag of the Kafka consumer with {@code client.id} {@code clientId}, read from its own JMX bean
     * ({@code kafka.consumer:type=consumer-fetch-manager-metrics}), which outlives a consumer the fetcher replaces.
     */
    static DoubleSupplier consumerLag(String clientId) {
        ObjectName name;
        try {
            name = new ObjectName("kafka.consumer:type=consumer-fetch-manager-metrics,client-id="
                    + quoteIfNeeded(clientId));
        } catch (JMException e) {
            return () -> Double.NaN;
        }
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        return () -> {
            try {
                return ((Number) server.getAttribute(name, "records-lag-max")).doubleValue();
            } catch (JMException | RuntimeException e) {
                return Double.NaN;
            }
        };
    }

    /** A reporter of {@code dependency}'s health that logs to {@code log} as {@code what} and informs this. */
    Availability availability(Logger log, String what, Dependency dependency) {
        Availability availability = new Availability(log, what, dependency, this);
        availabilities.add(availability);
        return availability;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Recording

    /** A delivery attempt begins (beforeDelivery succeeded). */
    void deliveryStarted(boolean redelivered) {
        inFlight.incrementAndGet();
        if (redelivered) {
            redeliveries.increment();
        }
    }

    void delivered() {
        inFlight.decrementAndGet();
        deliveries.increment();
        failingDeliveries.set(0);
    }

    void deliveryFailed(String reason) {
        inFlight.decrementAndGet();
        failures.increment();
        if (failingDeliveries.getAndIncrement() == 0) {
            failingDeliveriesSince = clock.instant();
        }
        failed("delivering: " + reason);
    }

    void deadLettered(long count) {
        if (count > 0) {
            deadLettered.add(count);
        }
    }

    /** Something failed: remembered as the last failure. */
    void failed(String description) {
        lastFailure = description;
        lastFailureTime = clock.instant();
    }

    Instant now() {
        return clock.instant();
    }

    // ---------------------------------------------------------------------------------------------------------
    // JMX

    /** Registers the bean in the platform MBean server; a failure is logged, not thrown (delivery goes on). */
    synchronized void register() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            ObjectName name = new ObjectName(DOMAIN + ":type=activation,name=" + quoteIfNeeded(endpoint));
            if (server.isRegistered(name)) {
                name = new ObjectName(name + ",id=" + IDS.incrementAndGet());
            }
            server.registerMBean(new StandardMBean(this, ActivationMXBean.class, true), name);
            registered = name;
        } catch (JMException | RuntimeException e) {
            log.warn("The JMX bean of {} for {} was not registered: {}", subscription, endpoint, e.toString());
        }
    }

    /** The activation is stopping: the state says so until {@link #unregister()}. */
    void stopping() {
        stopping = true;
    }

    /** Removes the bean. Idempotent. */
    synchronized void unregister() {
        if (registered == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(registered);
        } catch (JMException e) {
            log.debug("The JMX bean {} was not unregistered: {}", registered, e.toString());
        }
        registered = null;
    }

    synchronized ObjectName objectName() {
        return registered;
    }

    static String quoteIfNeeded(String value) {
        for (char c : value.toCharArray()) {
            if (c == ',' || c == '=' || c == ':' || c == '"' || c == '*' || c == '?' || c == '\n' || c == '\\') {
                return ObjectName.quote(value);
            }
        }
        return value;
    }

    // ---------------------------------------------------------------------------------------------------------
    // ActivationMXBean

    State state() {
        if (stopping) {
            return State.STOPPING;
        }
        boolean backingOff = failingDeliveries.get() > 0;
        for (Availability availability : availabilities) {
            if (availability.isFailing()) {
                if (availability.dependency() == Dependency.CLUSTER) {
                    return State.BROKER_UNREACHABLE;
                }
                backingOff = true;
            }
        }
        return backingOff ? State.BACKING_OFF : State.ACTIVE;
    }

    @Override
    public String getEndpoint() {
        return endpoint;
    }

    @Override
    public String getSubscription() {
        return subscription;
    }

    @Override
    public String getBootstrapServers() {
        return bootstrapServers;
    }

    @Override
    public String getState() {
        return state().name();
    }

    @Override
    public String getFailingSince() {
        State state = state();
        if (state == State.ACTIVE || state == State.STOPPING) {
            return null;
        }
        Instant since = failingDeliveries.get() > 0 ? failingDeliveriesSince : null;
        for (Availability availability : availabilities) {
            Instant each = availability.failingSince();
            if (each != null && (state != State.BROKER_UNREACHABLE || availability.dependency() == Dependency.CLUSTER)
                    && (since == null || each.isBefore(since))) {
                since = each;
            }
        }
        return since == null ? null : since.toString();
    }

    @Override
    public String getLastFailure() {
        return lastFailure;
    }

    @Override
    public String getLastFailureTime() {
        Instant time = lastFailureTime;
        return time == null ? null : time.toString();
    }

    @Override
    public long getDeliveries() {
        return deliveries.sum();
    }

    @Override
    public long getFailures() {
        return failures.sum();
    }

    @Override
    public long getRedeliveries() {
        return redeliveries.sum();
    }

    @Override
    public long getDeadLettered() {
        return deadLettered.sum();
    }

    @Override
    public int getInFlight() {
        return inFlight.get();
    }

    @Override
    public double getConsumerLag() {
        return lag.getAsDouble();
    }
}
