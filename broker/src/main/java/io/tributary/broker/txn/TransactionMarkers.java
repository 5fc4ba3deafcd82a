package io.tributary.broker.txn;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.requests.TransactionResult;

/**
 * Writes the markers that end a transaction on each of its partitions (WriteTxnMarkers to each partition's leader).
 * {@link TransactionMarkerSender} is the broker's; tests give a fake.
 */
interface TransactionMarkers {

    /**
     * The markers of one decided transaction.
     *
     * @param coordinatorEpoch the leader epoch of the coordinator's {@code __transaction_state} partition, which
     *                         partition leaders use to refuse markers of a deposed coordinator
     * @param current          whether this coordinator still leads that partition at that epoch; once false the
     *                         markers are abandoned (the new coordinator sends them)
     */
    record Job(String transactionalId, long producerId, short producerEpoch, int coordinatorEpoch,
               TransactionResult result, Set<TopicPartition> partitions, BooleanSupplier current) {
        public Job {
            partitions = Set.copyOf(partitions);
        }
    }

    /**
     * Sends the markers until every partition has its marker (a partition whose topic was deleted counts as done).
     *
     * @return completes with true when every partition is done, false when the job was abandoned
     */
    CompletableFuture<Boolean> write(Job job);
}
