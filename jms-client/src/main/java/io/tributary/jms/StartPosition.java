package io.tributary.jms;

import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where a consumer starts reading (replay): at its subscription's committed position (the default; a queue or
 * durable subscription without one starts at the earliest or the latest offset as its kind does), at the
 * {@linkplain #earliest() earliest} retained offset, at the {@linkplain #latest() end} of the log, at the first
 * record at or after a {@linkplain #at(Instant) point in time}, or at given {@linkplain #offsets(Map) offsets per
 * partition} (partitions not named start at the committed position, or the end of the log without one).
 *
 * <p>For a queue or a durable or shared subscription the position is the group's: creating a consumer with a start
 * position moves the subscription there (its committed offsets are overwritten for the partitions the consumer
 * holds), so later consumers continue from the replayed position. Text form ({@link #parse}), as the connection
 * factory's {@code startAt} property takes it: {@code committed}, {@code earliest}, {@code latest}, an ISO-8601
 * instant such as {@code 2026-11-30T12:00:00Z}, or {@code partition:offset} pairs such as {@code 0:120,1:98}.
 *
 * <p>Immutable; serializable.
 */
public final class StartPosition implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The kinds of start position. */
    public enum Kind { COMMITTED, EARLIEST, LATEST, TIME, OFFSETS }

    private static final StartPosition COMMITTED = new StartPosition(Kind.COMMITTED, null, Map.of());
    private static final StartPosition EARLIEST = new StartPosition(Kind.EARLIEST, null, Map.of());
    private static final StartPosition LATEST = new StartPosition(Kind.LATEST, null, Map.of());

    private final Kind kind;
    private final Instant time;
    private final Map<Integer, Long> offsets;

    private StartPosition(Kind kind, Instant time, Map<Integer, Long> offsets) {
        this.kind = kind;
        this.time = time;
        this.offsets = offsets;
    }

    public static StartPosition committed() {
        return COMMITTED;
    }

    public static StartPosition earliest() {
        return EARLIEST;
    }

    public static StartPosition latest() {
        return LATEST;
    }

    /** The first record whose timestamp is at or after {@code time} (the end of the log if there is none). */
    public static StartPosition at(Instant time) {
        return new StartPosition(Kind.TIME, Objects.requireNonNull(time, "time"), Map.of());
    }

    /** Given offsets per partition; none may be negative. */
    public static StartPosition offsets(Map<Integer, Long> offsetsByPartition) {
        if (offsetsByPartition == null || offsetsByPartition.isEmpty()) {
            throw new IllegalArgumentException("at least one partition:offset is needed");
        }
        Map<Integer, Long> copy = new TreeMap<>();
        for (Map.Entry<Integer, Long> entry : offsetsByPartition.entrySet()) {
            if (entry.getKey() == null || entry.getKey() < 0 || entry.getValue() == null || entry.getValue() < 0) {
                throw new IllegalArgumentException("partitions and offsets must not be negative: " + entry);
            }
            copy.put(entry.getKey(), entry.getValue());
        }
        return new StartPosition(Kind.OFFSETS, null, Collections.unmodifiableMap(copy));
    }

    /**
     * Parses the text form: {@code committed}, {@code earliest}, {@code latest}, an ISO-8601 instant, or
     * {@code partition:offset[,partition:offset...]}.
     *
     * @throws IllegalArgumentException naming the text and the accepted forms
     */
    public static StartPosition parse(String text) {
        if (text == null || text.isBlank()) {
            return COMMITTED;
        }
        String value = text.trim();
        switch (value.toLowerCase(Locale.ROOT)) {
            case "committed":
                return COMMITTED;
            case "earliest":
                return EARLIEST;
            case "latest":
                return LATEST;
            default:
                break;
        }
        if (Character.isDigit(value.charAt(0)) && value.contains(":") && !value.contains("T")) {
            Map<Integer, Long> offsets = new TreeMap<>();
            for (String pair : value.split(",")) {
                String[] parts = pair.trim().split(":");
                try {
                    if (parts.length != 2) {
                        throw new NumberFormatException(pair);
                    }
                    offsets.put(Integer.parseInt(parts[0].trim()), Long.parseLong(parts[1].trim()));
                } catch (NumberFormatException e) {
                    throw invalid(text);
                }
            }
            return offsets(offsets);
        }
        try {
            return at(Instant.parse(value));
        } catch (DateTimeParseException e) {
            throw invalid(text);
        }
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("Invalid start position '" + text + "': expected committed, earliest, "
                + "latest, an ISO-8601 instant (2026-11-30T12:00:00Z) or partition:offset pairs (0:120,1:98)");
    }

    public Kind kind() {
        return kind;
    }

    /** The point in time of a {@link Kind#TIME} position, else null. */
    public Instant time() {
        return time;
    }

    /** The offsets of an {@link Kind#OFFSETS} position (partition to offset), else empty. */
    public Map<Integer, Long> offsetsByPartition() {
        return offsets;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StartPosition other && kind == other.kind && Objects.equals(time, other.time)
                && offsets.equals(other.offsets);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, time, offsets);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case COMMITTED -> "committed";
            case EARLIEST -> "earliest";
            case LATEST -> "latest";
            case TIME -> time.toString();
            case OFFSETS -> offsets.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                    .reduce((a, b) -> a + "," + b).orElse("");
        };
    }
}
