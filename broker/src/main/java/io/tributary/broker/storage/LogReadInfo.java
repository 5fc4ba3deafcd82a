package io.tributary.broker.storage;

import org.apache.kafka.common.record.internal.Records;

/**
 * What a read from a partition log returns: the requested offset and the records from the batch that holds it,
 * normally a slice of a segment file that the network layer sends without copying it through the heap.
 */
public record LogReadInfo(long fetchOffset, Records records) {
}
