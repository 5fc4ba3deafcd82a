package io.tributary.broker.share;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share sessions of this broker (KIP-932): one per share consumer (group and member id) that fetches from it,
 * holding the partitions it fetches and the epoch its next request must carry. Epoch 0 opens a session (replacing
 * the member's previous one), -1 closes it, any other epoch must be the session's next; ShareFetch adds partitions
 * and forgets others, ShareAcknowledge uses the session as it is.
 *
 * <p>A session that no request used for the idle timeout is dropped (its consumer is gone; the locks of the records
 * it held expire on their own). At most {@code maxSessions} are kept: a new one beyond that is refused with
 * SHARE_SESSION_LIMIT_REACHED, as in Kafka.
 *
 * <p>Thread-safe: every method holds this object's monitor.
 */
public final class ShareSessions {

    /** A session's identity. */
    public record Key(String groupId, String memberId) {
    }

    /** What a request finds: the session's partitions after the request's changes, or an error. */
    public record Outcome(Errors error, List<TopicIdPartition> partitions) {

        static Outcome failed(Errors error) {
            return new Outcome(error, List.of());
        }
    }

    private static final class Session {
        final LinkedHashSet<TopicIdPartition> partitions = new LinkedHashSet<>();
        int nextEpoch = 1;
        long lastUsedMs;
    }

    private final int maxSessions;
    private final long idleTimeoutMs;
    /** In order of last use: the first is the longest idle. */
    private final LinkedHashMap<Key, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    public ShareSessions(int maxSessions, long idleTimeoutMs) {
        this.maxSessions = maxSessions;
        this.idleTimeoutMs = idleTimeoutMs;
    }

    /**
     * A ShareFetch with {@code epoch} (0 opens, -1 closes, else the next): the session's partitions with
     * {@code added} and without {@code forgotten}. On close the session is gone afterwards, the partitions returned
     * are those it had (to release what the member holds).
     */
    public synchronized Outcome fetch(Key key, int epoch, Collection<TopicIdPartition> added,
                                      Collection<TopicIdPartition> forgotten, long nowMs) {
        if (epoch == 0) {
            Session previous = sessions.remove(key);
            if (previous == null && sessions.size() >= maxSessions) {
                return Outcome.failed(Errors.SHARE_SESSION_LIMIT_REACHED);
            }
            Session session = new Session();
            session.partitions.addAll(added);
            session.partitions.removeAll(forgotten);
            session.lastUsedMs = nowMs;
            sessions.put(key, session);
            return new Outcome(Errors.NONE, List.copyOf(session.partitions));
        }
        Session session = sessions.get(key);
        if (session == null) {
            return Outcome.failed(Errors.SHARE_SESSION_NOT_FOUND);
        }
        if (epoch == -1) {
            sessions.remove(key);
            return new Outcome(Errors.NONE, List.copyOf(session.partitions));
        }
        if (epoch != session.nextEpoch) {
            return Outcome.failed(Errors.INVALID_SHARE_SESSION_EPOCH);
        }
        session.nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
        session.partitions.addAll(added);
        session.partitions.removeAll(forgotten);
        session.lastUsedMs = nowMs;
        return new Outcome(Errors.NONE, List.copyOf(session.partitions));
    }

    /**
     * A ShareAcknowledge with {@code epoch}: it may not open a session (epoch 0 is INVALID_SHARE_SESSION_EPOCH); -1
     * closes it.
     */
    public synchronized Outcome acknowledge(Key key, int epoch, long nowMs) {
        if (epoch == 0) {
            return Outcome.failed(Errors.INVALID_SHARE_SESSION_EPOCH);
        }
        return fetch(key, epoch, List.of(), List.of(), nowMs);
    }

    /** Drops the sessions idle longer than the timeout and returns them, to release what their members hold. */
    public synchronized Map<Key, Set<TopicIdPartition>> expire(long nowMs) {
        Map<Key, Set<TopicIdPartition>> expired = new LinkedHashMap<>();
        List<Key> idle = new ArrayList<>();
        for (Map.Entry<Key, Session> entry : sessions.entrySet()) {
            if (nowMs - entry.getValue().lastUsedMs < idleTimeoutMs) {
                break;
            }
            idle.add(entry.getKey());
        }
        for (Key key : idle) {
            expired.put(key, sessions.remove(key).partitions);
        }
        return expired;
    }

    /** Whether any member of the group has a session here. */
    public synchronized boolean hasGroup(String groupId) {
        for (Key key : sessions.keySet()) {
            if (key.groupId().equals(groupId)) {
                return true;
            }
        }
        return false;
    }

    public synchronized int size() {
        return sessions.size();
    }
}
