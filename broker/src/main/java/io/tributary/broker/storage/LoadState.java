package io.tributary.broker.storage;

/**
 * Where a {@link PartitionLog} starts loading from: its log directory's checkpoints (log start offset, recovery point,
 * high watermark: {@link LogDirCheckpoints}) and whether the last shutdown was clean; or, for a log suspended
 * after a resource error, the offsets it had then ({@link LogLifecycle#reloadIfSuspended}).
 *
 * <p>Immutable.
 */
public record LoadState(long logStartOffset, long recoveryPoint, long highWatermark, boolean hadCleanShutdown) {
    /** A log with no checkpoint: every segment is recovered. */
    public static final LoadState UNKNOWN = new LoadState(0L, 0L, 0L, false);

    /** No checkpointed high watermark: it starts at the log start offset. */
    public LoadState(long logStartOffset, long recoveryPoint, boolean hadCleanShutdown) {
        this(logStartOffset, recoveryPoint, 0L, hadCleanShutdown);
    }
}
