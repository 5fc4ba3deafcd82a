package io.tributary.broker.cluster;

/**
 * A ZooKeeper operation failed, timed out, or found a znode it cannot read; the message names the znode or the
 * ensemble. Failures a client caused are Kafka's {@code ApiException}s instead.
 */
public class ClusterException extends RuntimeException {

    public ClusterException(String message) {
        super(message);
    }

    public ClusterException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Wraps a failed ZooKeeper call: {@code what} says what was being done and to which znode. An interrupt is
     * re-asserted on the thread, so that the caller's loop sees it.
     */
    static ClusterException wrap(String what, Exception cause) {
        if (cause instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        if (cause instanceof ClusterException clusterException) {
            return clusterException;
        }
        return new ClusterException(what + " failed: " + cause, cause);
    }
}
