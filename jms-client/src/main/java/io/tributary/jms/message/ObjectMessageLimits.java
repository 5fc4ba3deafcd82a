package io.tributary.jms.message;

import java.io.Serializable;

/**
 * How much an {@code ObjectMessage} body may make the receiver do, checked while it is deserialized, as the JDK's
 * {@code jdk.serialFilter} limits are ({@code maxdepth}, {@code maxrefs}, {@code maxarray}, {@code maxbytes}): a body
 * that exceeds one is refused at the first check past the limit, which the JDK makes before it creates each object
 * or array (strings excepted). The allow-list
 * ({@link ObjectMessageAllowList}) says which classes may be read; these limits bound what allowed classes can cost.
 * The reason: {@code java.util} is allowed by default, and a body of nested {@code HashSet}s sharing their elements,
 * each hashing the whole graph below it, cost 31 s of CPU at depth 28, doubling with every level; a
 * length field claiming two billion elements makes {@code ArrayList} or an array allocate gigabytes before a byte
 * of them is read.
 *
 * <p>The defaults ({@link #DEFAULT}), chosen to accept application objects and refuse the known shapes at once:
 * <ul>
 *   <li>{@code maxDepth} 20: objects nested in objects, counted as the JDK counts them (the body is level 1, each
 *       object, array or class descriptor read inside another adds one). A {@code BigDecimal} reaches 3 (its
 *       {@code BigInteger}, that one's {@code byte[]}); an order record with a date, a list of lines with amounts
 *       and a map of attributes reaches 6; the JDK's RMI registry allows 20. The nested-set shape deeper than that
 *       is refused on its way down, before any set is hashed; the deepest it admits (19 levels of two sets) took
 *       40 ms here.</li>
 *   <li>{@code maxReferences} 1,000,000: objects, strings, nulls and back-references read. A body of Kafka's
 *       default largest record size (1 MiB) holds about 100,000 boxed integers (100,004 references).</li>
 *   <li>{@code maxArrayLength} 1,048,576 (2<sup>20</sup>): the longest array, and the largest table a collection may
 *       allocate for its elements ({@code HashMap} asks for the power of two above size / 0.75 + 1, so maps of up to
 *       786,431 entries); a claim that passes costs at most 8 MiB ({@code long[]}) before its elements must follow.</li>
 *   <li>{@code maxBytes} 16 MiB: the serialized body's size, checked before anything is read; 16 times Kafka's
 *       default largest record, so it matters only where the cluster allows bigger records.</li>
 * </ul>
 * Limits cannot bound every graph of allowed classes: sets nested {@code n} deep, each holding the {@code k} shared
 * sets of the level below, cost <code>k<sup>n</sup></code> hash steps with about <code>k<sup>2</sup>n</code>
 * references and bytes, so a wider shape passes these defaults and is still expensive (three sets per level, 18
 * deep: 212 references in 2 KB, 13.5 s here; each level more triples it). No {@code ObjectInputFilter} can tell,
 * since the JDK names an object's class to the filter only the first time the stream uses that class. Where
 * producers are not trusted, allow only the application's own classes ({@code trustedObjectPackages}), not
 * {@code java.util}.
 *
 * <p>Configured on the connection factory (and in JNDI, and on the resource adapter's activation spec and connection
 * definition) as {@code objectMessageMaxDepth}, {@code objectMessageMaxReferences},
 * {@code objectMessageMaxArrayLength} and {@code objectMessageMaxBytes}.
 *
 * <p>Immutable; any thread. Serializable (a connection factory holds one); deserializing checks the limits again.
 *
 * @param maxDepth       the deepest nesting allowed, at least 1
 * @param maxReferences  the most objects, strings, nulls and back-references, at least 1
 * @param maxArrayLength the longest array or collection table, at least 1
 * @param maxBytes       the largest serialized body in bytes, at least 1
 */
public record ObjectMessageLimits(long maxDepth, long maxReferences, long maxArrayLength, long maxBytes)
        implements Serializable {

    public static final long DEFAULT_MAX_DEPTH = 20;
    public static final long DEFAULT_MAX_REFERENCES = 1_000_000;
    public static final long DEFAULT_MAX_ARRAY_LENGTH = 1 << 20;
    public static final long DEFAULT_MAX_BYTES = 16L << 20;

    public static final ObjectMessageLimits DEFAULT = new ObjectMessageLimits(DEFAULT_MAX_DEPTH,
            DEFAULT_MAX_REFERENCES, DEFAULT_MAX_ARRAY_LENGTH, DEFAULT_MAX_BYTES);

    /** One limit: the property that configures it and what it counts, for error messages. */
    public enum Limit {
        DEPTH("objectMessageMaxDepth", "nesting depth"),
        REFERENCES("objectMessageMaxReferences", "number of objects and references"),
        ARRAY_LENGTH("objectMessageMaxArrayLength", "array length"),
        BYTES("objectMessageMaxBytes", "size in bytes");

        private final String property;
        private final String counts;

        Limit(String property, String counts) {
            this.property = property;
            this.counts = counts;
        }

        /** The configuration property's name, the same on the connection factory, in JNDI and in the adapter. */
        public String property() {
            return property;
        }

        String counts() {
            return counts;
        }
    }

    /** @throws IllegalArgumentException naming the property of a limit below 1 */
    public ObjectMessageLimits {
        check(Limit.DEPTH, maxDepth);
        check(Limit.REFERENCES, maxReferences);
        check(Limit.ARRAY_LENGTH, maxArrayLength);
        check(Limit.BYTES, maxBytes);
    }

    private static void check(Limit limit, long value) {
        if (value < 1) {
            throw new IllegalArgumentException(limit.property() + " must be at least 1, not " + value);
        }
    }

    public ObjectMessageLimits withMaxDepth(long value) {
        return new ObjectMessageLimits(value, maxReferences, maxArrayLength, maxBytes);
    }

    public ObjectMessageLimits withMaxReferences(long value) {
        return new ObjectMessageLimits(maxDepth, value, maxArrayLength, maxBytes);
    }

    public ObjectMessageLimits withMaxArrayLength(long value) {
        return new ObjectMessageLimits(maxDepth, maxReferences, value, maxBytes);
    }

    public ObjectMessageLimits withMaxBytes(long value) {
        return new ObjectMessageLimits(maxDepth, maxReferences, maxArrayLength, value);
    }

    /** The configured value of {@code limit}. */
    public long of(Limit limit) {
        return switch (limit) {
            case DEPTH -> maxDepth;
            case REFERENCES -> maxReferences;
            case ARRAY_LENGTH -> maxArrayLength;
            case BYTES -> maxBytes;
        };
    }
}
