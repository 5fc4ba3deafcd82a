package io.tributary.broker.share;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share-group state of one partition for one share group (KIP-932), kept by the partition's leader: which records
 * the group's consumers may take, which are taken and by whom until when, and which are done.
 *
 * <p>The state is a window of offsets {@code [startOffset, endOffset)}: below the start every record is done
 * (acknowledged or archived); from the end on no record was ever acquired. Inside the window each offset that was
 * acquired from the log has a {@link Slot} (state, delivery count, and while acquired the member and the lock's
 * expiry); an offset without a slot is one the log did not have (compacted away, between batches) and counts as done.
 * The window holds at most {@link ShareGroupSettings#partitionMaxRecordLocks()} offsets: once full, no new records
 * are acquired until the start moves.
 *
 * <p>Records are acquired in whole log batches, as Kafka does: the caller reads the log from
 * {@link #nextFetchOffset()} and passes the batches it found ({@link BatchSpan}); every offset of them that is
 * available, or new, is acquired by the member, and the consumer acknowledges offsets it did not get as gaps. A
 * member with a {@link RecordFilter} (a JMS receiver's selector) acquires only the records it selects: the others
 * stay available, their delivery count untouched, new ones entering the window as available, so the window bounds
 * how far past the start such a member looks. A release or an expired lock makes a record available again, or
 * archives it once it has been delivered {@link ShareGroupSettings#deliveryCountLimit()} times.
 *
 * <p>Decisions only, no I/O: reading the log and persisting the state are the caller's. Thread-safe: every method
 * holds this object's monitor (request-handler threads and the lock-expiry sweep).
 */
public final class SharePartition {

    /** One acquired offset range with its delivery count, as a ShareFetch response names it. */
    public record AcquiredRange(long firstOffset, long lastOffset, short deliveryCount) {
    }

    /**
     * The offsets of one log batch, from {@code baseOffset} to {@code lastOffset}; not {@code deliverable} for a
     * control batch or one of an aborted transaction (read_committed), which the window passes over as done.
     */
    public record BatchSpan(long baseOffset, long lastOffset, boolean deliverable) {

        public BatchSpan(long baseOffset, long lastOffset) {
            this(baseOffset, lastOffset, true);
        }
    }

    /**
     * What {@link #acquire} took: the ranges, and how many of the given batches it went through (the records of
     * later ones need not be sent).
     */
    public record Acquisition(List<AcquiredRange> ranges, int batchesUsed) {
    }

    /** Which records a member takes: whether it selects the record at {@code offset} for its next delivery. */
    @FunctionalInterface
    public interface RecordFilter {

        /** Selects every record. */
        RecordFilter ALL = (offset, deliveryCount) -> true;

        /** Whether the record at {@code offset}, about to be delivered the {@code deliveryCount}-th time, is taken. */
        boolean selects(long offset, int deliveryCount);
    }

    /** A run of offsets with one state and delivery count, for persistence and description. */
    public record StateBatch(long firstOffset, long lastOffset, RecordState state, short deliveryCount) {
    }

    /** Acknowledge types as the protocol numbers them (ShareFetch and ShareAcknowledge). */
    public static final byte GAP = 0;
    public static final byte ACCEPT = 1;
    public static final byte RELEASE = 2;
    public static final byte REJECT = 3;
    public static final byte RENEW = 4;

    private static final class Slot {
        RecordState state;
        short deliveryCount;
        /** While acquired: the member holding it and when its lock expires (ms). */
        String memberId;
        long lockExpiryMs;

        Slot(RecordState state, short deliveryCount) {
            this.state = state;
            this.deliveryCount = deliveryCount;
        }
    }

    private final TopicIdPartition partition;
    private final String groupId;
    private ShareGroupSettings settings;
    /** The in-flight offsets of the window; none below {@link #startOffset} or at or past {@link #endOffset}. */
    private final TreeMap<Long, Slot> slots = new TreeMap<>();
    private long startOffset;
    private long endOffset;
    /** Slots in state AVAILABLE: when zero, {@link #nextFetchOffset()} need not look for one. */
    private int available;
    /**
     * For each member with a filter: the offset before which it has seen every available record and selected none
     * that is still available, so that its next read starts there instead of at the first available record. Any
     * record becoming available again (a release, an expired lock) forgets them all: the member may select it.
     */
    private final Map<String, Long> filteredUpTo = new HashMap<>();
    /** Counts every change of the state (for the persister: whether there is something new to write). */
    private long changes;

    /**
     * A share-partition starting at {@code startOffset} with the in-flight records of {@code batches} (from persisted
     * state; records persisted as acquired come back available, their consumers' locks are gone).
     */
    public SharePartition(String groupId, TopicIdPartition partition, ShareGroupSettings settings, long startOffset,
                          List<StateBatch> batches) {
        this.groupId = groupId;
        this.partition = partition;
        this.settings = settings;
        this.startOffset = startOffset;
        this.endOffset = startOffset;
        for (StateBatch batch : batches) {
            for (long offset = Math.max(batch.firstOffset(), startOffset); offset <= batch.lastOffset(); offset++) {
                RecordState state = batch.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : batch.state();
                if (state == RecordState.AVAILABLE && batch.deliveryCount() >= settings.deliveryCountLimit()) {
                    state = RecordState.ARCHIVED;
                }
                slots.put(offset, new Slot(state, batch.deliveryCount()));
                if (state == RecordState.AVAILABLE) {
                    available++;
                }
                endOffset = Math.max(endOffset, offset + 1);
            }
        }
        advanceStart();
    }

    public String groupId() {
        return groupId;
    }

    public TopicIdPartition topicIdPartition() {
        return partition;
    }

    public synchronized ShareGroupSettings settings() {
        return settings;
    }

    /** The group's settings changed (group configuration): later locks and deliveries follow them. */
    public synchronized void updateSettings(ShareGroupSettings newSettings) {
        this.settings = newSettings;
    }

    public synchronized long startOffset() {
        return startOffset;
    }

    public synchronized long endOffset() {
        return endOffset;
    }

    public synchronized long changes() {
        return changes;
    }

    /**
     * Where the next read of the log for acquisition starts: the first available record, else the end of the
     * window; -1 when there is nothing to acquire without the window growing past its limit.
     */
    public synchronized long nextFetchOffset() {
        return nextFetchOffset(startOffset);
    }

    /**
     * Where the next read for acquisition by {@code memberId} starts: for a member that acquires through a filter,
     * past the available records it has already passed over; else {@link #nextFetchOffset()}.
     */
    public synchronized long nextFetchOffsetFor(String memberId) {
        Long upTo = filteredUpTo.get(memberId);
        return nextFetchOffset(upTo == null ? startOffset : Math.max(upTo, startOffset));
    }

    /**
     * Where the next read for acquisition starts at or after {@code from}: the first available record there, else
     * the end of the window if that is not before {@code from}; -1 when there is nothing to acquire there without
     * the window growing past its limit.
     */
    public synchronized long nextFetchOffset(long from) {
        if (available > 0) {
            for (Map.Entry<Long, Slot> entry : slots.tailMap(from, true).entrySet()) {
                if (entry.getValue().state == RecordState.AVAILABLE) {
                    return entry.getKey();
                }
            }
        }
        return windowFull() || endOffset < from ? -1L : endOffset;
    }

    private boolean windowFull() {
        return endOffset - startOffset >= settings.partitionMaxRecordLocks();
    }

    /**
     * Acquires for {@code memberId} the available and the new offsets of {@code batches} (read from the log, in
     * order), whole batches at a time, until at least {@code maxRecords} are acquired or the window is full. Iterates
     * {@code batches} no further than one batch past the last it uses, so a lazy {@link BatchWalk} reads only that.
     */
    public Acquisition acquire(String memberId, Iterable<BatchSpan> batches, int maxRecords, long nowMs) {
        return acquire(memberId, batches, maxRecords, nowMs, RecordFilter.ALL);
    }

    /**
     * Acquires for {@code memberId} the available and the new offsets of {@code batches} that {@code filter}
     * selects; the others stay (or become, when new) available with their delivery count unchanged.
     */
    public synchronized Acquisition acquire(String memberId, Iterable<BatchSpan> batches, int maxRecords, long nowMs,
                                            RecordFilter filter) {
        List<AcquiredRange> acquired = new ArrayList<>();
        long lockExpiry = nowMs + settings.recordLockDurationMs();
        int count = 0;
        int used = 0;
        RangeBuilder ranges = new RangeBuilder(acquired);
        for (BatchSpan batch : batches) {
            if (count >= maxRecords || (batch.baseOffset() >= endOffset && windowFull())) {
                break;
            }
            used++;
            if (filter != RecordFilter.ALL) {
                filteredUpTo.merge(memberId, batch.lastOffset() + 1, Math::max);
            }
            if (!batch.deliverable()) {
                ranges.skip();
                if (batch.lastOffset() >= endOffset) {
                    endOffset = batch.lastOffset() + 1;
                    changes++;
                    advanceStart();
                }
                continue;
            }
            for (long offset = Math.max(batch.baseOffset(), startOffset); offset <= batch.lastOffset(); offset++) {
                Slot slot;
                if (offset >= endOffset) {
                    slot = new Slot(RecordState.AVAILABLE, (short) 0);
                    slots.put(offset, slot);
                    available++;
                    endOffset = offset + 1;
                } else {
                    slot = slots.get(offset);
                    if (slot == null || slot.state != RecordState.AVAILABLE) {
                        ranges.skip();
                        continue;
                    }
                }
                if (!filter.selects(offset, slot.deliveryCount + 1)) {
                    ranges.skip();
                    continue;
                }
                available--;
                slot.state = RecordState.ACQUIRED;
                slot.deliveryCount++;
                slot.memberId = memberId;
                slot.lockExpiryMs = lockExpiry;
                ranges.add(offset, slot.deliveryCount);
                count++;
            }
            ranges.skip();
        }
        if (count > 0) {
            changes++;
            // The window may start at an offset without a slot that the batches just passed over.
            advanceStart();
        }
        return new Acquisition(acquired, used);
    }

    /**
     * Applies one acknowledgement batch of {@code memberId}: {@code types} holds one type for the whole range or one
     * per offset. Every offset must be acquired by the member, else nothing changes.
     *
     * @return NONE, INVALID_RECORD_STATE (an offset not acquired by this member) or INVALID_REQUEST (malformed)
     */
    public synchronized Errors acknowledge(String memberId, long firstOffset, long lastOffset, List<Byte> types,
                                           long nowMs) {
        if (lastOffset < firstOffset || types.isEmpty()
                || (types.size() != 1 && types.size() != lastOffset - firstOffset + 1)) {
            return Errors.INVALID_REQUEST;
        }
        for (byte type : types) {
            if (type < GAP || type > RENEW) {
                return Errors.INVALID_REQUEST;
            }
        }
        for (long offset = firstOffset; offset <= lastOffset; offset++) {
            Slot slot = slots.get(offset);
            if (slot == null || slot.state != RecordState.ACQUIRED || !memberId.equals(slot.memberId)) {
                return Errors.INVALID_RECORD_STATE;
            }
        }
        for (long offset = firstOffset; offset <= lastOffset; offset++) {
            Slot slot = slots.get(offset);
            byte type = types.size() == 1 ? types.get(0) : types.get((int) (offset - firstOffset));
            switch (type) {
                case GAP, REJECT -> finish(slot, RecordState.ARCHIVED);
                case ACCEPT -> finish(slot, RecordState.ACKNOWLEDGED);
                case RELEASE -> makeAvailable(slot);
                default -> slot.lockExpiryMs = nowMs + settings.recordLockDurationMs();
            }
        }
        changes++;
        advanceStart();
        return Errors.NONE;
    }

    /** Makes every record whose lock expired by {@code nowMs} available again (or archives it at the limit). */
    public synchronized int expireLocks(long nowMs) {
        int expired = 0;
        for (Slot slot : slots.values()) {
            if (slot.state == RecordState.ACQUIRED && slot.lockExpiryMs <= nowMs) {
                makeAvailable(slot);
                expired++;
            }
        }
        if (expired > 0) {
            changes++;
            advanceStart();
        }
        return expired;
    }

    /** Releases every record {@code memberId} holds (its share session ended); returns how many. */
    public synchronized int releaseMember(String memberId) {
        filteredUpTo.remove(memberId);
        int released = 0;
        for (Slot slot : slots.values()) {
            if (slot.state == RecordState.ACQUIRED && memberId.equals(slot.memberId)) {
                makeAvailable(slot);
                released++;
            }
        }
        if (released > 0) {
            changes++;
            advanceStart();
        }
        return released;
    }

    /** The log's start moved to {@code logStartOffset} (retention, DeleteRecords): records below it are gone. */
    public synchronized void onLogStartOffset(long logStartOffset) {
        if (logStartOffset <= startOffset) {
            return;
        }
        Iterator<Map.Entry<Long, Slot>> below = slots.headMap(logStartOffset).entrySet().iterator();
        while (below.hasNext()) {
            if (below.next().getValue().state == RecordState.AVAILABLE) {
                available--;
            }
            below.remove();
        }
        startOffset = logStartOffset;
        endOffset = Math.max(endOffset, logStartOffset);
        changes++;
        advanceStart();
    }

    /** The earliest lock expiry of the acquired records, or {@link Long#MAX_VALUE} if none is acquired. */
    public synchronized long nextLockExpiryMs() {
        long next = Long.MAX_VALUE;
        for (Slot slot : slots.values()) {
            if (slot.state == RecordState.ACQUIRED) {
                next = Math.min(next, slot.lockExpiryMs);
            }
        }
        return next;
    }

    /** Records acquired now (by any member). */
    public synchronized int acquiredCount() {
        int acquired = 0;
        for (Slot slot : slots.values()) {
            if (slot.state == RecordState.ACQUIRED) {
                acquired++;
            }
        }
        return acquired;
    }

    /**
     * The durable form of this share-partition: the start and the in-flight records, acquired ones as available
     * with their delivery count (their locks do not outlive this leader).
     */
    public synchronized ShareState toState(int stateEpoch, int leaderEpoch) {
        List<StateBatch> batches = new ArrayList<>();
        for (StateBatch batch : stateBatches()) {
            RecordState state = batch.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : batch.state();
            StateBatch stored = new StateBatch(batch.firstOffset(), batch.lastOffset(), state, batch.deliveryCount());
            StateBatch previous = batches.isEmpty() ? null : batches.get(batches.size() - 1);
            if (previous != null && previous.lastOffset() + 1 == stored.firstOffset() && previous.state() == state
                    && previous.deliveryCount() == stored.deliveryCount()) {
                batches.set(batches.size() - 1, new StateBatch(previous.firstOffset(), stored.lastOffset(), state,
                        stored.deliveryCount()));
            } else {
                batches.add(stored);
            }
        }
        return new ShareState(stateEpoch, leaderEpoch, startOffset, batches);
    }

    /**
     * The in-flight state in runs of equal state and delivery count, offsets without a slot left out: what must be
     * persisted beside {@link #startOffset()} to restore the window.
     */
    public synchronized List<StateBatch> stateBatches() {
        List<StateBatch> batches = new ArrayList<>();
        long first = -1;
        long last = -1;
        RecordState state = null;
        short count = 0;
        for (Map.Entry<Long, Slot> entry : slots.entrySet()) {
            long offset = entry.getKey();
            Slot slot = entry.getValue();
            if (state != null && offset == last + 1 && slot.state == state && slot.deliveryCount == count) {
                last = offset;
                continue;
            }
            if (state != null) {
                batches.add(new StateBatch(first, last, state, count));
            }
            first = offset;
            last = offset;
            state = slot.state;
            count = slot.deliveryCount;
        }
        if (state != null) {
            batches.add(new StateBatch(first, last, state, count));
        }
        return batches;
    }

    private void finish(Slot slot, RecordState state) {
        slot.state = state;
        slot.memberId = null;
    }

    private void makeAvailable(Slot slot) {
        slot.memberId = null;
        filteredUpTo.clear();
        if (slot.deliveryCount >= settings.deliveryCountLimit()) {
            slot.state = RecordState.ARCHIVED;
        } else {
            slot.state = RecordState.AVAILABLE;
            available++;
        }
    }

    /** Moves the start past done records and offsets without a slot. */
    private void advanceStart() {
        while (!slots.isEmpty()) {
            Map.Entry<Long, Slot> first = slots.firstEntry();
            if (!first.getValue().state.isDone()) {
                startOffset = first.getKey();
                return;
            }
            slots.pollFirstEntry();
        }
        startOffset = endOffset;
    }

    @Override
    public synchronized String toString() {
        return "share-partition " + groupId + "/" + partition + " [" + startOffset + ", " + endOffset + ")";
    }

    /** Collects acquired offsets into ranges of consecutive offsets with one delivery count. */
    private static final class RangeBuilder {
        private final List<AcquiredRange> out;
        private long first = -1;
        private long last = -1;
        private short count;

        RangeBuilder(List<AcquiredRange> out) {
            this.out = out;
        }

        void add(long offset, short deliveryCount) {
            if (first >= 0 && offset == last + 1 && deliveryCount == count) {
                last = offset;
                return;
            }
            skip();
            first = offset;
            last = offset;
            count = deliveryCount;
        }

        /** Ends the current range (a gap follows). */
        void skip() {
            if (first >= 0) {
                out.add(new AcquiredRange(first, last, count));
                first = -1;
            }
        }
    }
}
