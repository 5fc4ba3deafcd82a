package io.tributary.ra.inbound;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.naming.InitialContext;
import javax.naming.NamingException;

import io.tributary.ra.TributaryAdapterSettings;
import io.tributary.ra.TributaryResourceAdapter;
import jakarta.resource.ResourceException;
import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.endpoint.MessageEndpointFactory;
import jakarta.resource.spi.work.HintsContext;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One endpoint activation: delivery of one topic (a queue or a subscription) to one message-driven bean, in one of
 * two ways:
 * <ul>
 *   <li>a queue in queue mode {@code share} (the default): {@link ShareDelivery}, {@code maxSession} members of the
 *       queue's share group, each a long-running Work with its own share consumer, at least once;</li>
 *   <li>a topic subscription, or a queue in queue mode {@code group}: a {@link RecordFetcher} (one long-running Work,
 *       the Kafka consumer of the group), a {@link DeliveryScheduler} (partition runs on the container's WorkManager,
 *       at most {@code maxSession} at a time), a {@link PartitionDelivery} per assigned partition, and for
 *       transacted delivery {@link XaDelivery} (each record's offset committed in the container's transaction).</li>
 * </ul>
 * Both deliver through the {@link EndpointInvoker} and write dead letters to the {@link DeadLetters} topic.
 *
 * <p>All or nothing: {@link #start} either returns a running activation or throws and leaves nothing behind (no
 * consumer, no producer, no Work). An unreachable cluster is not a reason to fail: the fetcher (or each member) keeps
 * trying.
 *
 * <p>The inbound side's entry point: the resource adapter ({@link TributaryResourceAdapter}, another package) starts,
 * stops and names activations only through the public methods here; everything behind them is package-private.
 *
 * <p>Threads: started and stopped by the container's threads through the resource adapter; the stop is
 * compare-and-set, so it runs once however often it is asked for.
 */
public final class InboundActivation {

    private static final Logger log = LoggerFactory.getLogger(InboundActivation.class);

    /** How long activation waits for the container to start the fetcher Work (or each member) before it fails. */
    private static final long START_TIMEOUT_MS = 30_000;
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private enum State { RUNNING, STOPPING, STOPPED }

    private final ActivationConfig config;
    private final ActivationDelivery delivery;
    private final DeadLetters deadLetters;
    /** XA for transacted delivery, or null. */
    private final XaDelivery xa;
    private final AtomicReference<State> state = new AtomicReference<>(State.RUNNING);
    /** The counters and state behind the activation's JMX bean, registered while it runs. */
    private final ActivationStatistics statistics;

    private InboundActivation(ActivationConfig config, ActivationDelivery delivery, DeadLetters deadLetters,
                              XaDelivery xa, ActivationStatistics statistics) {
        this.config = config;
        this.delivery = delivery;
        this.deadLetters = deadLetters;
        this.xa = xa;
        this.statistics = statistics;
        statistics.register();
    }

    /**
     * Starts delivery to {@code endpoints} as {@code spec} says, over the adapter's settings; the spec's
     * destinationLookup and connectionFactoryLookup are resolved in the server's JNDI.
     *
     * @throws jakarta.resource.spi.InvalidPropertyException naming the activation spec property that is wrong, or a
     *         destinationLookup or connectionFactoryLookup that cannot be resolved
     * @throws ResourceException if the endpoint is not a MessageListener, the Kafka client configuration is refused,
     *         or the WorkManager does not start the fetcher within {@value #START_TIMEOUT_MS} ms
     */
    public static InboundActivation start(BootstrapContext context, MessageEndpointFactory endpoints,
                                          TributaryActivationSpec spec, TributaryAdapterSettings adapter)
            throws ResourceException {
        return start(context, endpoints, ActivationSpecResolver.resolve(spec, adapter, InboundActivation::lookup));
    }

    private static InboundActivation start(BootstrapContext context, MessageEndpointFactory endpoints,
                                           ActivationConfig config) throws ResourceException {
        boolean transacted;
        try {
            transacted = endpoints.isDeliveryTransacted(EndpointInvoker.ON_MESSAGE);
        } catch (NoSuchMethodException e) {
            throw new ResourceException("The endpoint " + endpoints.getEndpointClass() + " does not implement"
                    + " jakarta.jms.MessageListener.onMessage(Message)", e);
        }
        String clientId = "tributary-ra-" + SEQUENCE.incrementAndGet() + "-" + config.topic();
        String endpointName = endpointName(endpoints);
        String name = config.subscription().describe() + " for " + endpointName;
        TransactionSynchronizationRegistry transactions = transactions(context);
        if (transacted && transactions == null) {
            log.warn("{}: the container offers no TransactionSynchronizationRegistry, so a transaction that rolls"
                    + " back without an exception reaching the adapter is taken for a delivery", name);
        }
        // A share group's consumers measure no lag (KIP-932 has no consumer-side lag metric).
        ActivationStatistics statistics = new ActivationStatistics(endpointName, config.subscription().describe(),
                config.bootstrapServers(), config.sharesQueue() ? () -> Double.NaN
                        : ActivationStatistics.consumerLag(clientId), Clock.systemUTC());
        EndpointInvoker invoker = new EndpointInvoker(transacted, transactions, statistics);
        WorkManager workManager = context.getWorkManager();
        if (config.sharesQueue()) {
            return startShared(context, endpoints, config, invoker, clientId, name, endpointName, transacted,
                    statistics);
        }
        DeliveryScheduler scheduler = new DeliveryScheduler(workManager, config.maxSession(),
                statistics.availability(log, name, ActivationStatistics.Dependency.DELIVERY));
        DeadLetters deadLetters = config.deadLetterTopic() == null ? null
                : new DeadLetters(config, clientId + "-dead-letters", endpointName);
        // Transacted delivery commits each record's offset in the container's transaction (XA), so the record is
        // consumed exactly when the bean's other work commits.
        XaDelivery xa = transacted ? XaDelivery.open(config) : null;
        PartitionDelivery.Services services = new PartitionDelivery.Services(config,
                config.deliveryDecision(Clock.systemUTC()), endpoints, invoker, deadLetters,
                statistics.availability(log, "endpoint " + endpointName, ActivationStatistics.Dependency.DELIVERY),
                statistics.availability(log, name, ActivationStatistics.Dependency.DELIVERY), System::nanoTime, xa,
                statistics);

        KafkaConsumer<byte[], byte[]> consumer;
        try {
            consumer = config.newConsumer(clientId);
        } catch (KafkaException e) {
            if (xa != null) {
                xa.close();
            }
            throw new ResourceException("The Kafka consumer for " + name + " cannot be created: " + e.getMessage(), e);
        }
        RecordFetcher fetcher = new RecordFetcher(config, name, statistics.availability(
                LoggerFactory.getLogger(RecordFetcher.class), name, ActivationStatistics.Dependency.CLUSTER), consumer,
                () -> config.newConsumer(clientId),
                tp -> new PartitionDelivery(tp, services), scheduler, System::nanoTime, supportsHints(context), xa);
        try {
            workManager.startWork(fetcher, START_TIMEOUT_MS, null, null);
        } catch (WorkException | RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            if (xa != null) {
                xa.close();
            }
            throw new ResourceException("The container's WorkManager did not start delivery for " + name + ": " + e,
                    e);
        }
        log.debug("Started {} ({} delivery)", name, transacted ? "transacted" : "non-transacted");
        return new InboundActivation(config, fetcher, deadLetters, xa, statistics);
    }

    /** A queue through its share group: {@code maxSession} members ({@link ShareDelivery}). */
    private static InboundActivation startShared(BootstrapContext context, MessageEndpointFactory endpoints,
                                                 ActivationConfig config, EndpointInvoker invoker, String clientId,
                                                 String name, String endpointName, boolean transacted,
                                                 ActivationStatistics statistics) throws ResourceException {
        DeadLetters deadLetters = config.deadLetterTopic() == null ? null
                : new DeadLetters(config, clientId + "-dead-letters", endpointName);
        ShareDelivery.Services services = new ShareDelivery.Services(config, name,
                config.deliveryDecision(Clock.systemUTC()), endpoints, invoker, deadLetters,
                statistics.availability(log, name, ActivationStatistics.Dependency.CLUSTER),
                statistics.availability(log, "endpoint " + endpointName, ActivationStatistics.Dependency.DELIVERY),
                statistics);
        ShareDelivery delivery;
        try {
            delivery = ShareDelivery.start(services, clientId, context.getWorkManager(), supportsHints(context),
                    START_TIMEOUT_MS);
        } catch (ResourceException | RuntimeException e) {
            if (deadLetters != null) {
                deadLetters.close();
            }
            throw e;
        }
        log.debug("Started {} ({} delivery through the share group, {} members)", name,
                transacted ? "transacted" : "non-transacted", config.maxSession());
        return new InboundActivation(config, delivery, deadLetters, null, statistics);
    }

    /** For logs: the subscription, the cluster and the non-default settings ({@link ActivationConfig#describe()}). */
    public String describe() {
        return config.describe();
    }

    /** Asks delivery to stop (the fetcher commits and closes, or the share-group members close); does not wait. */
    public void requestStop() {
        if (state.compareAndSet(State.RUNNING, State.STOPPING)) {
            statistics.stopping();
            delivery.requestStop();
        }
    }

    /**
     * Waits until delivery has stopped: the in-flight messages finished, what was delivered committed, the clients
     * closed. After {@code timeout} it gives up waiting and logs (a bean still in {@code onMessage}).
     */
    public void awaitStopped(Duration timeout) {
        if (!delivery.awaitStopped(timeout)) {
            log.warn("{}: delivery had not stopped after {} s; the messages still in flight will be delivered again",
                    config.describe(), timeout.toSeconds());
        }
        if (state.compareAndSet(State.STOPPING, State.STOPPED)) {
            statistics.unregister();
            if (deadLetters != null) {
                deadLetters.close();
            }
            if (xa != null) {
                xa.close();
            }
        }
    }

    /** The container's registry, which tells whether a delivery's transaction committed; null if it offers none. */
    private static TransactionSynchronizationRegistry transactions(BootstrapContext context) {
        try {
            return context.getTransactionSynchronizationRegistry();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static boolean supportsHints(BootstrapContext context) {
        try {
            return context.isContextSupported(HintsContext.class);
        } catch (RuntimeException e) {
            return false;
        }
    }

    static Object lookup(String name) throws NamingException {
        InitialContext context = new InitialContext();
        try {
            return context.lookup(name);
        } finally {
            context.close();
        }
    }

    /** The activation name (Connectors 1.7+), else the bean class, for logs and dead letters. */
    public static String endpointName(MessageEndpointFactory endpoints) {
        try {
            String activationName = endpoints.getActivationName();
            if (activationName != null) {
                return activationName;
            }
        } catch (RuntimeException e) {
            // fall back to the class
        }
        Class<?> type = endpoints.getEndpointClass();
        return type != null ? type.getName() : String.valueOf(endpoints);
    }
}
