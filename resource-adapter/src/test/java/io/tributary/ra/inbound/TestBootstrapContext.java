package io.tributary.ra.inbound;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.resource.spi.BootstrapContext;
import jakarta.resource.spi.XATerminator;
import jakarta.resource.spi.work.ExecutionContext;
import jakarta.resource.spi.work.Work;
import jakarta.resource.spi.work.WorkCompletedException;
import jakarta.resource.spi.work.WorkContext;
import jakarta.resource.spi.work.WorkEvent;
import jakarta.resource.spi.work.WorkException;
import jakarta.resource.spi.work.WorkListener;
import jakarta.resource.spi.work.WorkManager;
import jakarta.resource.spi.work.WorkRejectedException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;

/**
 * A container's BootstrapContext, as little as the adapter's tests need: a {@link WorkManager} on a thread pool
 * (scheduleWork, startWork, doWork, listeners told of acceptance, start, completion and rejection), and
 * {@link Transactions}, a thread-bound transaction registry the recording endpoints begin and complete.
 *
 * <p>Thread-safe.
 */
final class TestBootstrapContext implements BootstrapContext, AutoCloseable {

    private final Pool workManager = new Pool();
    private final Transactions transactions = new Transactions();

    @Override
    public Pool getWorkManager() {
        return workManager;
    }

    @Override
    public XATerminator getXATerminator() {
        return null;
    }

    @Override
    public Timer createTimer() {
        return new Timer(true);
    }

    @Override
    public boolean isContextSupported(Class<? extends WorkContext> type) {
        return false;
    }

    @Override
    public Transactions getTransactionSynchronizationRegistry() {
        return transactions;
    }

    @Override
    public void close() {
        workManager.executor.shutdownNow();
    }

    /** A WorkManager on a pool of at most 32 threads. */
    static final class Pool implements WorkManager {

        private final ThreadPoolExecutor executor = new ThreadPoolExecutor(0, 32, 30, TimeUnit.SECONDS,
                new SynchronousQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "work-" + THREADS.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        private static final AtomicInteger THREADS = new AtomicInteger();
        private final AtomicInteger running = new AtomicInteger();
        private volatile boolean rejectAll;

        /** From now on, every Work is rejected (a container whose pool is exhausted or shutting down). */
        void rejectAll(boolean reject) {
            this.rejectAll = reject;
        }

        /** Works running now. */
        int running() {
            return running.get();
        }

        @Override
        public void doWork(Work work) throws WorkException {
            doWork(work, INDEFINITE, null, null);
        }

        @Override
        public void doWork(Work work, long startTimeout, ExecutionContext context, WorkListener listener)
                throws WorkException {
            Future<?> done = submit(work, listener, new CountDownLatch(1));
            try {
                done.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WorkCompletedException(e);
            } catch (ExecutionException e) {
                throw new WorkCompletedException(e.getCause());
            }
        }

        @Override
        public long startWork(Work work) throws WorkException {
            return startWork(work, INDEFINITE, null, null);
        }

        @Override
        public long startWork(Work work, long startTimeout, ExecutionContext context, WorkListener listener)
                throws WorkException {
            CountDownLatch started = new CountDownLatch(1);
            long begin = System.nanoTime();
            submit(work, listener, started);
            try {
                if (!started.await(startTimeout == INDEFINITE ? Long.MAX_VALUE : startTimeout,
                        TimeUnit.MILLISECONDS)) {
                    throw new WorkRejectedException("not started within " + startTimeout + " ms",
                            WorkException.START_TIMED_OUT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WorkRejectedException(e);
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        }

        @Override
        public void scheduleWork(Work work) throws WorkException {
            scheduleWork(work, INDEFINITE, null, null);
        }

        @Override
        public void scheduleWork(Work work, long startTimeout, ExecutionContext context, WorkListener listener)
                throws WorkException {
            submit(work, listener, new CountDownLatch(1));
        }

        private Future<?> submit(Work work, WorkListener listener, CountDownLatch started)
                throws WorkRejectedException {
            if (rejectAll) {
                return reject(work, listener, new WorkRejectedException("rejected by the test",
                        WorkException.INTERNAL));
            }
            try {
                Future<?> future = executor.submit(() -> {
                    running.incrementAndGet();
                    try {
                        if (listener != null) {
                            listener.workStarted(new WorkEvent(this, WorkEvent.WORK_STARTED, work, null));
                        }
                        started.countDown();
                        work.run();
                    } finally {
                        running.decrementAndGet();
                        if (listener != null) {
                            listener.workCompleted(new WorkEvent(this, WorkEvent.WORK_COMPLETED, work, null));
                        }
                    }
                });
                if (listener != null) {
                    listener.workAccepted(new WorkEvent(this, WorkEvent.WORK_ACCEPTED, work, null));
                }
                return future;
            } catch (RejectedExecutionException e) {
                return reject(work, listener, new WorkRejectedException(e));
            }
        }

        private Future<?> reject(Work work, WorkListener listener, WorkRejectedException e)
                throws WorkRejectedException {
            if (listener != null) {
                listener.workRejected(new WorkEvent(this, WorkEvent.WORK_REJECTED, work, e));
            }
            throw e;
        }
    }

    /**
     * Container-managed transactions, one per thread: {@link #begin()} in beforeDelivery, {@link #complete()} in
     * afterDelivery, which rolls back when the bean marked the transaction rollback-only and tells the interposed
     * synchronizations how it ended.
     */
    static final class Transactions implements TransactionSynchronizationRegistry {

        private final ThreadLocal<Transaction> current = new ThreadLocal<>();
        private final AtomicInteger committed = new AtomicInteger();
        private final AtomicInteger rolledBack = new AtomicInteger();

        private static final class Transaction {
            int status = Status.STATUS_ACTIVE;
            final List<Synchronization> synchronizations = new ArrayList<>();
            final Map<Object, Object> resources = new HashMap<>();
        }

        void begin() {
            if (current.get() != null) {
                throw new IllegalStateException("a transaction is already active on this thread");
            }
            current.set(new Transaction());
        }

        /** Commits, or rolls back when marked; returns whether it committed. */
        boolean complete() {
            Transaction tx = current.get();
            if (tx == null) {
                throw new IllegalStateException("no transaction on this thread");
            }
            current.remove();
            boolean commit = tx.status == Status.STATUS_ACTIVE;
            if (commit) {
                tx.synchronizations.forEach(Synchronization::beforeCompletion);
            }
            int outcome = commit ? Status.STATUS_COMMITTED : Status.STATUS_ROLLEDBACK;
            tx.synchronizations.forEach(s -> s.afterCompletion(outcome));
            (commit ? committed : rolledBack).incrementAndGet();
            return commit;
        }

        int committed() {
            return committed.get();
        }

        int rolledBack() {
            return rolledBack.get();
        }

        private Transaction active() {
            Transaction tx = current.get();
            if (tx == null) {
                throw new IllegalStateException("no transaction on this thread");
            }
            return tx;
        }

        @Override
        public Object getTransactionKey() {
            return current.get();
        }

        @Override
        public void putResource(Object key, Object value) {
            active().resources.put(key, value);
        }

        @Override
        public Object getResource(Object key) {
            return active().resources.get(key);
        }

        @Override
        public void registerInterposedSynchronization(Synchronization sync) {
            Transaction tx = active();
            if (tx.status != Status.STATUS_ACTIVE) {
                throw new IllegalStateException("the transaction is not active: " + tx.status);
            }
            tx.synchronizations.add(sync);
        }

        @Override
        public int getTransactionStatus() {
            Transaction tx = current.get();
            return tx == null ? Status.STATUS_NO_TRANSACTION : tx.status;
        }

        @Override
        public void setRollbackOnly() {
            active().status = Status.STATUS_MARKED_ROLLBACK;
        }

        @Override
        public boolean getRollbackOnly() {
            return active().status == Status.STATUS_MARKED_ROLLBACK;
        }
    }
}
