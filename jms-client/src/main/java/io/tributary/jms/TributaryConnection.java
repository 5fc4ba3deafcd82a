package io.tributary.jms;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import jakarta.jms.Connection;
import jakarta.jms.ConnectionConsumer;
import jakarta.jms.ConnectionMetaData;
import jakarta.jms.Destination;
import jakarta.jms.ExceptionListener;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.JMSException;
import jakarta.jms.Queue;
import jakarta.jms.QueueConnection;
import jakarta.jms.QueueSession;
import jakarta.jms.ServerSessionPool;
import jakarta.jms.Session;
import jakarta.jms.Topic;
import jakarta.jms.TopicConnection;
import jakarta.jms.TopicSession;

import io.tributary.jms.kafka.Subscription;
import io.tributary.jms.kafka.SubscriptionAdmin;
import io.tributary.jms.message.TributaryMessage;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JMS connection: the sessions made on it, one Kafka producer and one admin client they share (both created on
 * first use), the transactional producers its transacted sessions commit with ({@link TransactionalProducers}), the
 * temporary destinations it created (real topics, deleted when it closes,
 * {@link TemporaryDestinations}), its client id and the claim that holds it across the cluster
 * ({@link ClientIdClaim}, made only when there is a client id), and the started/stopped state that gates message
 * delivery.
 *
 * <p>Threads: any method may be called from any thread, as the specification allows for connections.
 */
public final class TributaryConnection implements Connection, QueueConnection, TopicConnection,
        TemporaryDestinationOwner {

    private static final Logger log = LoggerFactory.getLogger(TributaryConnection.class);
    private static final long WATCHDOG_INTERVAL_MS = 5_000;
    private static final long KEEP_ALIVE_INTERVAL_MS = 500;

    private final ConnectionSettings settings;
    private final String connectionId = UUID.randomUUID().toString();
    private final KafkaClients clients;
    private final Object stateLock = new Object();
    private final List<TributarySession> sessions = new CopyOnWriteArrayList<>();
    private final TemporaryDestinations temporaryDestinations = new TemporaryDestinations(this);

    private String clientId;
    private boolean clientIdFixed;
    private boolean started;
    private volatile boolean closed;
    private KafkaProducer<byte[], byte[]> producer;
    /** Share groups this connection configured as queues ({@link #prepareShareGroup}); any thread. */
    private final Set<String> preparedShareGroups = ConcurrentHashMap.newKeySet();
    /** The transactional producers transacted sessions commit with, acquired on first use. */
    private TransactionalProducers transactionalProducers;
    /** The XA resource manager of sessions' XA resources, acquired on first use. */
    private XaResourceManager xaResourceManager;
    private Admin admin;
    /** The JMX metrics, made when first asked for (the client id is then fixed, and names them). */
    private ConnectionMetrics metrics;
    /** The claim of the client id, held until close; null without a client id, or for a pooled connection. */
    private ClientIdClaim clientIdClaim;
    private volatile ExceptionListener exceptionListener;
    private Thread watchdog;
    /** Polls idle group consumers so that they answer rebalances while the application does not receive. */
    private final ScheduledExecutorService keepAlive;

    TributaryConnection(ConnectionSettings settings) {
        this.settings = settings;
        this.clientId = settings.clientId();
        this.clientIdFixed = settings.clientId() != null;
        this.clients = new KafkaClients(settings, "tributary-jms-" + connectionId.substring(0, 8));
        this.keepAlive = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "tributary-jms-keepalive-" + connectionId.substring(0, 8));
            thread.setDaemon(true);
            return thread;
        });
        keepAlive.scheduleWithFixedDelay(this::keepConsumersAlive, KEEP_ALIVE_INTERVAL_MS, KEEP_ALIVE_INTERVAL_MS,
                TimeUnit.MILLISECONDS);
    }

    /**
     * A new connection to a cluster that can be reached: unless the factory's {@code connectTimeout} is zero, a broker
     * at the bootstrap servers must accept a connection within it ({@link ClusterProbe}). A client id configured on
     * the factory is claimed before the connection is returned.
     *
     * @throws InvalidClientIDException if another live connection holds the factory's client id
     * @throws JMSException saying that the cluster at the bootstrap servers is unreachable
     */
    static TributaryConnection open(ConnectionSettings settings) throws JMSException {
        TributaryConnection connection = openSharingClientId(settings);
        if (settings.clientId() != null) {
            try {
                synchronized (connection.stateLock) {
                    connection.claimClientId(settings.clientId());
                }
            } catch (JMSException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    /**
     * A new connection that uses the factory's client id without claiming it: one of a container's pooled
     * connections, which together are one client ({@link TributaryConnectionFactory#createPooledConnection}).
     */
    static TributaryConnection openSharingClientId(ConnectionSettings settings) throws JMSException {
        ClusterLogin.requireLogin(settings);
        if (!settings.connectTimeout().isZero()) {
            ClusterProbe.awaitReachable(settings.bootstrapServers(), settings.connectTimeout());
        }
        TributaryConnection connection = new TributaryConnection(settings);
        if (!settings.connectTimeout().isZero() && ClusterLogin.isSecured(settings.kafka())) {
            try {
                ClusterLogin.check(connection.admin(), settings);
            } catch (JMSException e) {
                connection.close();
                throw e;
            }
        }
        return connection;
    }

    private void keepConsumersAlive() {
        for (TributarySession session : sessions) {
            session.keepConsumersAlive();
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // For sessions, producers and consumers

    String connectionId() {
        return connectionId;
    }

    ConnectionSettings settings() {
        return settings;
    }

    KafkaClients clients() {
        return clients;
    }

    /**
     * The metrics of this connection's destinations ({@link ConnectionMetrics}), registered on first use: by then a
     * session exists, so the client id is fixed. Named by the client id when this connection claimed it (unique),
     * else by its Kafka clients' {@code client.id} prefix (a pooled connection shares the factory's client id).
     */
    ConnectionMetrics metrics() throws JMSException {
        synchronized (stateLock) {
            checkClosed();
            if (metrics == null) {
                metrics = !settings.metricsEnabled() ? ConnectionMetrics.DISABLED
                        : ConnectionMetrics.open(clientIdClaim != null ? clientId : clients.clientIdBase());
            }
            return metrics;
        }
    }

    /** The shared Kafka producer (thread-safe), created on first use. */
    KafkaProducer<byte[], byte[]> producer() throws JMSException {
        synchronized (stateLock) {
            checkClosed();
            if (producer == null) {
                try {
                    producer = clients.newProducer();
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Creating the Kafka producer for " + settings.bootstrapServers(), e);
                }
            }
            return producer;
        }
    }

    /**
     * The pool of transactional producers that transacted sessions borrow to commit (thread-safe): shared with the
     * other connections of the factory's {@code transactionalIdPrefix}, or this connection's own without one.
     */
    TransactionalProducers transactionalProducers() throws JMSException {
        synchronized (stateLock) {
            checkClosed();
            if (transactionalProducers == null) {
                transactionalProducers = TransactionalProducers.acquire(clients, settings.bootstrapServers(),
                        settings.transactionalIdPrefix());
            }
            return transactionalProducers;
        }
    }

    /** The XA resource manager of this connection's cluster and transactional id prefix (thread-safe). */
    XaResourceManager xaResourceManager() throws JMSException {
        synchronized (stateLock) {
            checkClosed();
            if (xaResourceManager == null) {
                try {
                    xaResourceManager = XaResourceManager.acquire(clients, settings.bootstrapServers(),
                            settings.transactionalIdPrefix(), settings.xaLogTopic());
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Creating the XA resource manager for " + settings.bootstrapServers(),
                            e);
                }
            }
            return xaResourceManager;
        }
    }

    /**
     * An XAResource for one message endpoint of a resource adapter's inbound delivery: the offset of the record
     * delivered in a branch is committed in the branch's Kafka transaction ({@link DeliveryXAResource}).
     */
    public DeliveryXAResource createDeliveryXAResource() throws JMSException {
        return new DeliveryXAResource(xaResourceManager());
    }

    /** The shared Kafka admin client (thread-safe), created on first use. */
    Admin admin() throws JMSException {
        synchronized (stateLock) {
            checkClosed();
            if (admin == null) {
                try {
                    admin = clients.newAdmin();
                } catch (RuntimeException e) {
                    throw JmsErrors.fromKafka("Creating the Kafka admin client for " + settings.bootstrapServers(),
                            e);
                }
            }
            return admin;
        }
    }

    /**
     * Configures share group {@code groupId} as a queue ({@link SubscriptionAdmin#prepareShareGroup}) once per
     * connection, before its first receiver of this connection fetches (thread-safe).
     */
    void prepareShareGroup(String groupId) throws JMSException {
        if (preparedShareGroups.contains(groupId)) {
            return;
        }
        try {
            new SubscriptionAdmin(admin(), Duration.ofSeconds(30)).prepareShareGroup(groupId);
        } catch (RuntimeException e) {
            throw JmsErrors.fromKafka("Configuring share group " + groupId, e);
        }
        preparedShareGroups.add(groupId);
    }

    /** The client id, fixing it: from now on {@link #setClientID} is refused. May be null. */
    String clientIdForUse() {
        synchronized (stateLock) {
            clientIdFixed = true;
            return clientId;
        }
    }

    boolean isStarted() {
        synchronized (stateLock) {
            return started;
        }
    }

    /** Waits until the connection is started or closed, at most {@code timeoutMs}; true if started. */
    boolean awaitStarted(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (stateLock) {
            while (!started && !closed) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                stateLock.wait(left);
            }
            return started;
        }
    }

    void checkClosed() throws IllegalStateException {
        if (closed) {
            throw new IllegalStateException("The connection is closed");
        }
    }

    void sessionClosed(TributarySession session) {
        sessions.remove(session);
    }

    /** Whether some consumer of this connection reads {@code destination}. */
    boolean isConsuming(Destination destination) {
        for (TributarySession session : sessions) {
            if (session.isConsuming(destination)) {
                return true;
            }
        }
        return false;
    }

    /** Whether some consumer of this connection uses consumer group {@code groupId}. */
    boolean isConsumingGroup(String groupId) {
        for (TributarySession session : sessions) {
            if (session.isConsumingGroup(groupId)) {
                return true;
            }
        }
        return false;
    }

    /** The subscriptions of this connection's open consumers that use group {@code groupId}. */
    List<Subscription> subscriptionsOf(String groupId) {
        List<Subscription> found = new ArrayList<>();
        for (TributarySession session : sessions) {
            session.subscriptionsOf(groupId, found);
        }
        return found;
    }

    /** Deletes a consumer group if it has no members left; failures are logged only. */
    void deleteGroupQuietly(String groupId) {
        try {
            new SubscriptionAdmin(admin(), Duration.ofSeconds(10)).deleteGroup(groupId);
        } catch (JMSException | RuntimeException e) {
            log.debug("Group {} not deleted: {}", groupId, e.toString());
        }
    }

    /**
     * Deletes a share-group subscription (its share group and stored definition) if its share group has no members
     * left; failures are logged only.
     */
    void deleteShareSubscriptionQuietly(String groupId) {
        try {
            new SubscriptionAdmin(admin(), Duration.ofSeconds(10)).deleteShareSubscription(groupId);
        } catch (JMSException | RuntimeException e) {
            log.debug("Share subscription {} not deleted: {}", groupId, e.toString());
        }
    }

    /** Reports a failure to the exception listener, if there is one (never throws). */
    void reportAsync(JMSException failure) {
        ExceptionListener listener = exceptionListener;
        if (listener != null) {
            try {
                listener.onException(failure);
            } catch (RuntimeException e) {
                log.warn("The connection's ExceptionListener threw", e);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Sessions

    @Override
    public Session createSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode);
    }

    @Override
    public Session createSession(int sessionMode) throws JMSException {
        return newSession(sessionMode);
    }

    @Override
    public Session createSession() throws JMSException {
        return newSession(Session.AUTO_ACKNOWLEDGE);
    }

    @Override
    public QueueSession createQueueSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode, SessionDomain.QUEUE);
    }

    @Override
    public TopicSession createTopicSession(boolean transacted, int acknowledgeMode) throws JMSException {
        return newSession(transacted ? Session.SESSION_TRANSACTED : acknowledgeMode, SessionDomain.TOPIC);
    }

    TributarySession newSession(int sessionMode) throws JMSException {
        return newSession(sessionMode, SessionDomain.ANY);
    }

    private TributarySession newSession(int sessionMode, SessionDomain domain) throws JMSException {
        checkClosed();
        if (sessionMode != Session.SESSION_TRANSACTED && sessionMode != Session.AUTO_ACKNOWLEDGE
                && sessionMode != Session.CLIENT_ACKNOWLEDGE && sessionMode != Session.DUPS_OK_ACKNOWLEDGE) {
            throw new JMSException("Unknown session mode " + sessionMode + ": expected SESSION_TRANSACTED (0), "
                    + "AUTO_ACKNOWLEDGE (1), CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)");
        }
        clientIdForUse();
        TributarySession session = new TributarySession(this, sessionMode, domain);
        sessions.add(session);
        return session;
    }

    // ---------------------------------------------------------------------------------------------------------
    // Client id, metadata, exception listener

    @Override
    public String getClientID() throws JMSException {
        checkClosed();
        synchronized (stateLock) {
            return clientId;
        }
    }

    /**
     * Sets the client id, which must happen right after the connection is created (§6.1.2), claiming it across the
     * cluster ({@link ClientIdClaim}). A refused or failed claim leaves the client id unset.
     *
     * @throws IllegalStateException   if the id was set by the factory, or the connection was already used
     * @throws InvalidClientIDException if the id is null or empty, or another live connection holds it
     * @throws JMSException            if the cluster gave no verdict on the claim in time
     */
    @Override
    public void setClientID(String id) throws JMSException {
        checkClosed();
        if (id == null || id.isEmpty()) {
            throw new InvalidClientIDException("The client id must not be null or empty");
        }
        // The claim is made holding the lock, so that no session is made without the client id meanwhile: this is
        // the connection's first call (§6.1.2), nothing else of a correct application waits for it, and the claim
        // is bounded by ClientIdClaim.VERDICT_TIMEOUT.
        synchronized (stateLock) {
            if (clientIdFixed) {
                throw new IllegalStateException(settings.clientId() != null
                        ? "The client id was configured on the connection factory (" + settings.clientId() + ")"
                        : "The client id must be set before the connection is used");
            }
            checkClosed();
            claimClientId(id);
        }
    }

    /** Claims {@code id} and makes it the client id; the caller holds {@link #stateLock}. */
    private void claimClientId(String id) throws JMSException {
        clientIdClaim = ClientIdClaim.acquire(clients, settings.bootstrapServers(), id, connectionId,
                holder -> reportAsync(new InvalidClientIDException("Client id '" + id + "' was lost: " + holder
                        + " holds it now, as this connection did not answer its claim in time")));
        clientId = id;
        clientIdFixed = true;
    }

    @Override
    public ConnectionMetaData getMetaData() throws JMSException {
        checkClosed();
        return new MetaData();
    }

    @Override
    public ExceptionListener getExceptionListener() throws JMSException {
        checkClosed();
        return exceptionListener;
    }

    /**
     * Sets the listener told when the cluster becomes unreachable: a background check asks the cluster for its id
     * every few seconds while a listener is set, and reports the first failure after each success.
     */
    @Override
    public void setExceptionListener(ExceptionListener listener) throws JMSException {
        checkClosed();
        clientIdForUse();
        this.exceptionListener = listener;
        synchronized (stateLock) {
            if (listener != null && watchdog == null) {
                watchdog = new Thread(this::watch, "tributary-jms-watchdog-" + connectionId.substring(0, 8));
                watchdog.setDaemon(true);
                watchdog.start();
            }
        }
    }

    private void watch() {
        boolean reported = false;
        while (!closed && exceptionListener != null) {
            try {
                admin().describeCluster().clusterId().get(WATCHDOG_INTERVAL_MS, TimeUnit.MILLISECONDS);
                reported = false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException | JMSException e) {
                if (!reported && !closed) {
                    reported = true;
                    reportAsync(JmsErrors.fromKafka("Reaching the cluster at " + settings.bootstrapServers(), e));
                }
            }
            try {
                Thread.sleep(WATCHDOG_INTERVAL_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Start, stop, close

    @Override
    public void start() throws JMSException {
        checkClosed();
        clientIdForUse();
        synchronized (stateLock) {
            started = true;
            stateLock.notifyAll();
        }
        for (TributarySession session : sessions) {
            session.connectionStarted();
        }
    }

    /**
     * Pauses delivery: receive calls wait, listeners get nothing; returns once running listeners have returned.
     *
     * @throws IllegalStateException if called from a message listener of this connection (§6.1.5)
     */
    @Override
    public void stop() throws JMSException {
        checkClosed();
        for (TributarySession session : sessions) {
            if (session.isDeliveryThread()) {
                throw new IllegalStateException("Connection.stop() may not be called from a MessageListener of "
                        + "its own connection");
            }
        }
        if (TributaryMessageProducer.isCompletingFor(this)) { // §7.3.8
            throw new IllegalStateException("Connection.stop() may not be called from a CompletionListener of "
                    + "its own connection");
        }
        synchronized (stateLock) {
            started = false;
        }
        for (TributarySession session : sessions) {
            session.awaitListenerIdle();
        }
    }

    /**
     * Closes the sessions (rolling back open transactions), the Kafka clients, deletes the temporary destinations,
     * and releases the client id's claim. Idempotent.
     *
     * @throws IllegalStateException if called from a message listener (§6.1.8) or a completion listener (§7.3.8) of
     *                               this connection
     */
    @Override
    public void close() throws JMSException {
        for (TributarySession session : sessions) {
            if (session.isDeliveryThread()) {
                throw new IllegalStateException("Connection.close() may not be called from a MessageListener of "
                        + "its own connection");
            }
        }
        if (TributaryMessageProducer.isCompletingFor(this)) { // §7.3.8: close waits for the callbacks to return
            throw new IllegalStateException("Connection.close() may not be called from a CompletionListener of "
                    + "its own connection");
        }
        synchronized (stateLock) {
            if (closed) {
                return;
            }
            started = false;
        }
        JMSException first = null;
        for (TributarySession session : List.copyOf(sessions)) {
            try {
                session.close();
            } catch (JMSException e) {
                first = first == null ? e : first;
            }
        }
        temporaryDestinations.deleteAll();
        synchronized (stateLock) {
            closed = true;
            stateLock.notifyAll();
            if (producer != null) {
                producer.close();
            }
            if (transactionalProducers != null) {
                transactionalProducers.release();
            }
            if (xaResourceManager != null) {
                xaResourceManager.release();
            }
            if (admin != null) {
                admin.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            if (clientIdClaim != null) { // last: a successor with this client id finds the subscriptions closed
                clientIdClaim.close();
            }
            if (watchdog != null) {
                watchdog.interrupt();
            }
            keepAlive.shutdownNow();
        }
        if (first != null) {
            throw first;
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // Temporary destinations

    TributaryTemporaryQueue createTemporaryQueue() throws JMSException {
        return temporaryDestinations.createQueue();
    }

    TributaryTemporaryTopic createTemporaryTopic() throws JMSException {
        return temporaryDestinations.createTopic();
    }

    /** Whether {@code destination} is a temporary destination this connection created. */
    boolean ownsTemporary(Destination destination) {
        return temporaryDestinations.contains(destination);
    }

    @Override
    public void deleteTemporaryDestination(Destination destination) throws JMSException {
        checkClosed();
        if (!temporaryDestinations.contains(destination)) {
            throw new IllegalStateException(destination + " was not created by this connection");
        }
        if (isConsuming(destination)) {
            throw new IllegalStateException("Cannot delete " + destination + ": consumers of this connection still "
                    + "read it");
        }
        temporaryDestinations.delete(destination);
    }

    // ---------------------------------------------------------------------------------------------------------
    // Connection consumers (application server facilities, optional): not supported

    @Override
    public ConnectionConsumer createConnectionConsumer(Destination destination, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createSharedConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createDurableConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createSharedDurableConnectionConsumer(Topic topic, String subscriptionName,
            String messageSelector, ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Queue queue, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    @Override
    public ConnectionConsumer createConnectionConsumer(Topic topic, String messageSelector,
            ServerSessionPool sessionPool, int maxMessages) throws JMSException {
        throw unsupportedConnectionConsumer();
    }

    private static JMSException unsupportedConnectionConsumer() {
        return new JMSException("Connection consumers (ServerSessionPool, an optional application server facility) "
                + "are not supported; in an application server use Tributary's resource adapter for MDBs");
    }

    @Override
    public String toString() {
        return "TributaryConnection[" + connectionId + ", clientId=" + clientId + ", " + settings.bootstrapServers()
                + "]";
    }

    /** What this provider is (§6.1.4). */
    private static final class MetaData implements ConnectionMetaData {

        @Override
        public String getJMSVersion() {
            return "3.1";
        }

        @Override
        public int getJMSMajorVersion() {
            return 3;
        }

        @Override
        public int getJMSMinorVersion() {
            return 1;
        }

        @Override
        public String getJMSProviderName() {
            return "Tributary";
        }

        @Override
        public String getProviderVersion() {
            return "0.1";
        }

        @Override
        public int getProviderMajorVersion() {
            return 0;
        }

        @Override
        public int getProviderMinorVersion() {
            return 1;
        }

        @Override
        public Enumeration<?> getJMSXPropertyNames() {
            return Collections.enumeration(new ArrayList<>(TributaryMessage.supportedJmsxPropertyNames()));
        }
    }
}
