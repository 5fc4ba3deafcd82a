package io.tributary.broker.cluster;

/**
 * Told of every change of the {@link MetadataCache}: how the replica manager learns to become leader or follower of
 * a partition, to delete a deleted topic's logs, or to apply new config overrides.
 *
 * <p>Called on the metadata cache's single update thread, one change at a time, in order; the first call after
 * {@link MetadataCache#addListener} carries the whole current state as a change from the empty snapshot. An
 * implementation should hand slow work (I/O on logs) to its own threads: until it returns, no other listener hears
 * of the change and the cache does not move on.
 */
@FunctionalInterface
public interface MetadataListener {

    void onMetadataChange(MetadataChange change);
}
