package io.tributary.jms.message;

import java.io.ObjectInputFilter;

/**
 * The filter of one {@code ObjectMessage} deserialization: the JVM-wide filter ({@code jdk.serialFilter}) first, whose
 * rejections stand; then the {@link ObjectMessageLimits}, checked on every call (each object, class descriptor,
 * array and back-reference the stream reads); then, for a call that names a class, the
 * {@link ObjectMessageAllowList}. It remembers why it first refused, so that the error can say which limit or class.
 *
 * <p>Used by the one thread that deserializes, for one stream.
 */
final class ObjectMessageFilter implements ObjectInputFilter {

    private final ObjectMessageAllowList allowList;
    private final ObjectMessageLimits limits;
    private final ObjectInputFilter jvmWide;
    private Refusal refusal;

    ObjectMessageFilter(ObjectMessageAllowList allowList, ObjectMessageLimits limits) {
        this.allowList = allowList;
        this.limits = limits;
        this.jvmWide = ObjectInputFilter.Config.getSerialFilter();
    }

    /** Why a body was refused: a class off the allow-list, or a limit and the value that exceeded it. */
    sealed interface Refusal {
    }

    record ClassRefused(Class<?> type) implements Refusal {
    }

    record LimitExceeded(ObjectMessageLimits.Limit limit, long value) implements Refusal {
    }

    @Override
    public Status checkInput(FilterInfo info) {
        if (jvmWide != null && jvmWide.checkInput(info) == Status.REJECTED) {
            return Status.REJECTED;
        }
        LimitExceeded exceeded = exceededLimit(info);
        if (exceeded != null) {
            return refuse(exceeded);
        }
        Class<?> type = info.serialClass();
        if (type == null) {
            return Status.UNDECIDED; // a back-reference within the limits: no class to judge
        }
        return allowList.allows(type) ? Status.ALLOWED : refuse(new ClassRefused(type));
    }

    /**
     * The first limit {@code info} exceeds, or null. The byte count is checked too, although
     * {@link TributaryObjectMessage} refuses an oversized body before reading it: the filter then stands alone.
     */
    LimitExceeded exceededLimit(FilterInfo info) {
        if (info.depth() > limits.maxDepth()) {
            return new LimitExceeded(ObjectMessageLimits.Limit.DEPTH, info.depth());
        }
        if (info.references() > limits.maxReferences()) {
            return new LimitExceeded(ObjectMessageLimits.Limit.REFERENCES, info.references());
        }
        if (info.arrayLength() > limits.maxArrayLength()) {
            return new LimitExceeded(ObjectMessageLimits.Limit.ARRAY_LENGTH, info.arrayLength());
        }
        if (info.streamBytes() > limits.maxBytes()) {
            return new LimitExceeded(ObjectMessageLimits.Limit.BYTES, info.streamBytes());
        }
        return null;
    }

    private Status refuse(Refusal why) {
        if (refusal == null) {
            refusal = why;
        }
        return Status.REJECTED;
    }

    /** The reason of the first refusal, or null. */
    Refusal refusal() {
        return refusal;
    }
}
