package io.tributary.ra;

/**
 * The resource adapter's cluster settings that activations and outbound connection factories fall back on:
 * implemented by the resource adapter JavaBean ({@code TributaryResourceAdapter}), read by the activation spec's
 * checks ({@code io.tributary.ra.inbound}) and by {@link io.tributary.ra.outbound.TributaryManagedConnectionFactory}
 * when the container associates them. Keeping both sides on this interface, not on the adapter class, lets each be
 * tested with settings of its own.
 *
 * <p>Both values are the adapter's config properties as the container set them; implementations return them
 * unchanged. Read from any thread after the container has configured the adapter.
 */
public interface TributaryAdapterSettings {

    /** The cluster's {@code host:port} list (ra.xml default {@code 127.0.0.1:9092}); null or blank if unset. */
    String getBootstrapServers();

    /**
     * Pass-through Kafka client properties as {@code name=value} entries separated by {@code ;} (the format of
     * {@link io.tributary.jms.kafka.KafkaPropertiesText}); null or empty if there are none.
     */
    String getKafkaProperties();

    /**
     * The Kafka client properties of the adapter's security config properties ({@code securityProtocol},
     * {@code sslTruststoreLocation}, ...: {@link io.tributary.jms.kafka.SecuritySetting}), applied over
     * {@link #getKafkaProperties()}; empty if none is set.
     */
    default java.util.Map<String, String> getSecurityProperties() {
        return java.util.Map.of();
    }
}
