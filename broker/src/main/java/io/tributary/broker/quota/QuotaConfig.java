package io.tributary.broker.quota;

/**
 * How client quotas measure rates, as Kafka's {@code quota.window.num} (default 11) and
 * {@code quota.window.size.seconds} (default 1): a rate is the bytes of the last {@code windowNum} windows of
 * {@code windowSizeSeconds} each, divided by the time they span. Immutable.
 */
public record QuotaConfig(int windowNum, int windowSizeSeconds) {

    public QuotaConfig {
        if (windowNum < 1 || windowSizeSeconds < 1) {
            throw new IllegalArgumentException("quota windows must be at least 1: " + windowNum + " x "
                    + windowSizeSeconds + " s");
        }
    }

    /** The longest a client is throttled for one response: the whole measured span. */
    public long maxThrottleTimeMs() {
        return windowNum * windowSizeSeconds * 1000L;
    }
}
