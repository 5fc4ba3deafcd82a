package io.tributary.broker.cluster;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import org.apache.kafka.common.errors.TimeoutException;

/**
 * Runs the ZooKeeper work of administrative requests (topic creation and deletion, partition creation, config
 * changes, producer-id blocks) on a thread of its own, so that a ZooKeeper that answers slowly or not at all never
 * holds a request-handler thread: Curator retries a lost connection for up to about 15 s, and produce and fetch of
 * every client would wait behind it. While ZooKeeper is unreachable the work fails at once with a retriable
 * {@link TimeoutException} (REQUEST_TIMED_OUT on the wire) instead of queueing; partitions that exist keep serving.
 *
 * <p>Threads: {@link #submit} from any thread; the work runs on the admin thread, one piece at a time.
 * {@link #close()} is idempotent.
 */
public final class AdminWork implements AutoCloseable {

    private final ZkConnection connection;
    private final ExecutorService thread;

    AdminWork(ZkConnection connection, int brokerId) {
        this.connection = connection;
        this.thread = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = new Thread(runnable, "cluster-admin-" + brokerId);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs {@code work} on the admin thread.
     *
     * @param what what the work does, for the error when ZooKeeper is unreachable
     * @return its result, or its failure; a {@link TimeoutException} if ZooKeeper is unreachable when it is submitted
     *         or when its turn comes
     */
    public <T> CompletableFuture<T> submit(String what, Supplier<T> work) {
        if (!connection.isConnected()) {
            return CompletableFuture.failedFuture(unreachable(what));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            thread.execute(() -> {
                if (!connection.isConnected()) {
                    result.completeExceptionally(unreachable(what));
                    return;
                }
                try {
                    result.complete(work.get());
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new TimeoutException("The broker is shutting down: " + what
                    + " is not carried out"));
        }
        return result;
    }

    private TimeoutException unreachable(String what) {
        return new TimeoutException("ZooKeeper (" + connection.connectString() + ") is unreachable: " + what
                + " cannot be carried out now; try again");
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
