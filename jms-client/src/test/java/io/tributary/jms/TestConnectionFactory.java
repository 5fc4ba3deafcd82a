package io.tributary.jms;

import java.time.Clock;

/**
 * Connection factories for the provider's tests, against a broker of test-support: short client timeouts, so that a
 * group notices a departed member within seconds.
 *
 * <p>Stateless; any thread.
 */
public final class TestConnectionFactory {

    private TestConnectionFactory() {
    }

    /** A connection factory for {@code bootstrapServers} with short client timeouts. */
    public static TributaryConnectionFactory create(String bootstrapServers) {
        return create(bootstrapServers, Clock.systemUTC());
    }

    /**
     * A connection factory with short client timeouts whose queues and shared subscriptions are in group mode (their
     * classic consumer group): for the tests of what group mode alone does (order within a partition, replay,
     * consume-and-send in one Kafka transaction, pipelined AUTO commits, the group's committed offsets and members).
     */
    public static TributaryConnectionFactory groupMode(String bootstrapServers) {
        return groupMode(bootstrapServers, Clock.systemUTC());
    }

    /** {@link #groupMode(String)} whose connections read {@code clock}. */
    public static TributaryConnectionFactory groupMode(String bootstrapServers, Clock clock) {
        TributaryConnectionFactory factory = create(bootstrapServers, clock);
        factory.setQueueMode("group");
        factory.setSubscriptionMode("group");
        return factory;
    }

    /** A connection factory with short client timeouts, whose connections read {@code clock}. */
    public static TributaryConnectionFactory create(String bootstrapServers, Clock clock) {
        TributaryConnectionFactory factory = new TributaryConnectionFactory(bootstrapServers, clock);
        factory.setKafkaProperty("consumer.heartbeat.interval.ms", "200");
        factory.setKafkaProperty("consumer.session.timeout.ms", "6000");
        return factory;
    }
}
