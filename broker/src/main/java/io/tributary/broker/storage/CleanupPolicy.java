package io.tributary.broker.storage;

/** What happens to old data of a log: Kafka's {@code cleanup.policy} values. */
public enum CleanupPolicy {
    DELETE("delete"),
    COMPACT("compact");

    private final String configValue;

    CleanupPolicy(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    static CleanupPolicy fromConfigValue(String value) {
        for (CleanupPolicy policy : values()) {
            if (policy.configValue.equals(value)) {
                return policy;
            }
        }
        throw new IllegalArgumentException("unknown cleanup.policy " + value);
    }
}
