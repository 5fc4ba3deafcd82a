package io.tributary.ra.inbound;

/**
 * What an operator sees of one endpoint activation (one message-driven bean on one destination), as the JMX bean
 * {@code io.tributary.ra:type=activation,name=<activation name>} in the server's platform MBean server
 * ({@link ActivationStatistics}). The bean is registered when the activation starts and unregistered when it has
 * stopped.
 */
public interface ActivationMXBean {

    /** The endpoint (activation name, else the bean class). */
    String getEndpoint();

    /** The subscription delivered: {@code queue orders}, {@code durable subscription audit of topic orders}, ... */
    String getSubscription();

    /** The cluster's bootstrap servers. */
    String getBootstrapServers();

    /**
     * {@code ACTIVE}; {@code BACKING_OFF} (the endpoint failed or could not be created, and delivery waits before it
     * tries again); {@code BROKER_UNREACHABLE} (the cluster does not answer, refused the login or the topic, see
     * {@link #getLastFailure()}); {@code STOPPING} (undeployment under way).
     */
    String getState();

    /** When the current failing state began (ISO-8601), or null while {@code ACTIVE}. */
    String getFailingSince();

    /** The last failure (what failed and why), or null if there was none. */
    String getLastFailure();

    /** When the last failure happened (ISO-8601), or null. */
    String getLastFailureTime();

    /** Messages the endpoint consumed: onMessage returned and its transaction, if any, committed. */
    long getDeliveries();

    /** Deliveries that failed: onMessage threw, afterDelivery failed or the transaction rolled back. */
    long getFailures();

    /** Deliveries of messages delivered before ({@code JMSRedelivered}). */
    long getRedeliveries();

    /** Messages written to the dead-letter destination, or without one skipped (group) or rejected (share). */
    long getDeadLettered();

    /** Messages in an endpoint's onMessage right now. */
    int getInFlight();

    /**
     * The consumer group's largest lag in records over the partitions this activation holds, from its Kafka
     * consumer's {@code records-lag-max} (a maximum over the last minute); NaN for share-group delivery, whose
     * consumers measure no lag, and before the first fetch.
     */
    double getConsumerLag();
}
