package io.tributary.broker.storage;

/**
 * One aborted transaction on a partition, as the {@link TransactionIndex} stores it and a read_committed fetch reports
 * it (the consumer drops the records of {@code producerId} from {@code firstOffset} up to the abort marker).
 *
 * @param producerId       the producer whose transaction was aborted
 * @param firstOffset      the offset of the transaction's first batch on this partition
 * @param lastOffset       the offset of its ABORT marker
 * @param lastStableOffset the partition's last stable offset once the marker was written: the first offset of the
 *                         oldest transaction still ongoing then, or {@code lastOffset + 1}
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
}
