package io.tributary.broker.share;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * {@code share.auto.offset.reset}: where a share-partition that has no state yet starts. {@code latest} (Kafka's
 * default), {@code earliest}, or {@code by_duration:<ISO-8601 duration>}: the first record at or after now minus the
 * duration.
 *
 * @param strategy the kind
 * @param duration for {@link Strategy#BY_DURATION} only, else null
 */
public record ShareAutoOffsetReset(Strategy strategy, Duration duration) {

    public enum Strategy { LATEST, EARLIEST, BY_DURATION }

    public static final ShareAutoOffsetReset LATEST = new ShareAutoOffsetReset(Strategy.LATEST, null);
    public static final ShareAutoOffsetReset EARLIEST = new ShareAutoOffsetReset(Strategy.EARLIEST, null);

    private static final String BY_DURATION_PREFIX = "by_duration:";

    /** @throws IllegalArgumentException naming the value, if it is none of the three forms */
    public static ShareAutoOffsetReset parse(String value) {
        String lower = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        if (lower.equals("latest")) {
            return LATEST;
        }
        if (lower.equals("earliest")) {
            return EARLIEST;
        }
        if (lower.startsWith(BY_DURATION_PREFIX)) {
            String text = value.trim().substring(BY_DURATION_PREFIX.length());
            try {
                Duration duration = Duration.parse(text);
                if (!duration.isNegative()) {
                    return new ShareAutoOffsetReset(Strategy.BY_DURATION, duration);
                }
            } catch (DateTimeParseException e) {
                // reported below
            }
        }
        throw new IllegalArgumentException("share.auto.offset.reset must be latest, earliest or "
                + "by_duration:<ISO-8601 duration, not negative>, not '" + value + "'");
    }

    @Override
    public String toString() {
        return strategy == Strategy.BY_DURATION ? BY_DURATION_PREFIX + duration
                : strategy.name().toLowerCase(Locale.ROOT);
    }
}
