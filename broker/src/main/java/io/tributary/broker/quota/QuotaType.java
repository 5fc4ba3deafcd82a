package io.tributary.broker.quota;

/**
 * The quotas Tributary knows, by their configuration key (Kafka's names). Byte rates are enforced;
 * {@code request_percentage} is stored and described but not enforced.
 */
public enum QuotaType {
    /** Bytes per second of produced records; metrics group {@code Produce}. */
    PRODUCE("producer_byte_rate", "Produce", true),
    /** Bytes per second of records fetched by consumers; metrics group {@code Fetch}. */
    FETCH("consumer_byte_rate", "Fetch", true),
    /** Percentage of one request-handler thread's time; stored, not enforced. */
    REQUEST("request_percentage", "Request", false);

    private final String key;
    private final String metricGroup;
    private final boolean wholeNumber;

    QuotaType(String key, String metricGroup, boolean wholeNumber) {
        this.key = key;
        this.metricGroup = metricGroup;
        this.wholeNumber = wholeNumber;
    }

    /** The configuration key, such as {@code producer_byte_rate}. */
    public String key() {
        return key;
    }

    /** The JMX type of its metrics: {@code kafka.server:type=Produce,user=..,client-id=..}. */
    public String metricGroup() {
        return metricGroup;
    }

    /** Whether values must be whole (Kafka's byte rates are longs; the request percentage a double). */
    public boolean wholeNumber() {
        return wholeNumber;
    }

    /** The type with this configuration key, or null. */
    public static QuotaType forKey(String key) {
        for (QuotaType type : values()) {
            if (type.key.equals(key)) {
                return type;
            }
        }
        return null;
    }
}
