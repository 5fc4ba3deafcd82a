package io.tributary.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.tributary.broker.group.GroupRegistry.TxnCompletion;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.junit.jupiter.api.Test;

/**
 * The hand-over between a transaction ending (WriteTxnMarkers on a {@code __consumer_offsets} partition) and the
 * load of that partition: an end that arrives while the partition loads is kept for the load, which applies it
 * before the partition is served, since its marker may lie past the end the load read.
 */
class GroupRegistryTest {

    private static final TxnCompletion COMMIT_1 = new TxnCompletion(1000L, TransactionResult.COMMIT);
    private static final TxnCompletion ABORT_2 = new TxnCompletion(2000L, TransactionResult.ABORT);

    private final GroupRegistry registry = new GroupRegistry(1);

    @Test
    void transactionsEndingWhileThePartitionLoadsAreHandedToTheLoadBeforeItIsMarkedLoaded() {
        long token = registry.claim(0);

        assertTrue(registry.deferIfLoading(0, COMMIT_1));
        assertTrue(registry.deferIfLoading(0, ABORT_2));

        assertEquals(List.of(COMMIT_1, ABORT_2), registry.markLoadedOrTakeCompletions(0, token));
        assertFalse(registry.isLoaded(0), "not served before the load has applied them");
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, registry.checkGroup("g"));

        assertEquals(List.of(), registry.markLoadedOrTakeCompletions(0, token));
        assertTrue(registry.isLoaded(0));
    }

    @Test
    void aLoadedOrUnledPartitionLeavesTheEndToTheCaller() {
        assertFalse(registry.deferIfLoading(0, COMMIT_1), "not led: no group to apply it to anyway");
        long token = registry.claim(0);
        assertEquals(List.of(), registry.markLoadedOrTakeCompletions(0, token));

        assertFalse(registry.deferIfLoading(0, COMMIT_1), "loaded: the caller applies it to the groups");
    }

    @Test
    void aNewLoadDoesNotInheritTheEndsKeptForAnAbandonedOne() {
        long first = registry.claim(0);
        assertTrue(registry.deferIfLoading(0, COMMIT_1));
        registry.release(0);

        long second = registry.claim(0);

        assertEquals(List.of(), registry.markLoadedOrTakeCompletions(0, second),
                "the new load reads a log that already holds that marker");
        assertTrue(registry.isLoaded(0));
        assertFalse(registry.isCurrent(0, first));
    }
}
