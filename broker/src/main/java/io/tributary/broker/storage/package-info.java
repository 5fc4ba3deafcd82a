/**
 * The per-partition commit log: segments, indexes, recovery, retention, compaction, producer state and the
 * leader-epoch cache.
 */
package io.tributary.broker.storage;
