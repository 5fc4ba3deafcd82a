package io.tributary.itests.concurrent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * Proof of parallel delivery that does not depend on timing: the first delivery of each partition waits here until
 * the first deliveries of all {@value #PARTITIONS} partitions are in progress at once, which can only happen if the
 * adapter delivers that many partitions concurrently. Had it delivered fewer at a time, the waiting ones would time
 * out after {@value #TIMEOUT_SECONDS} s and report it, so the test fails rather than hangs.
 *
 * <p>Bean-managed concurrency: the MDB instances on the adapter's delivery threads call it at the same time.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class StartGate {

    public static final int PARTITIONS = 6;
    /** Generous: the deliveries of the six partitions may start far apart on a loaded machine. */
    static final long TIMEOUT_SECONDS = 120;

    /** What {@link #pass} reports, which the MDB forwards with the message. */
    public static final String OPENED = "opened";
    public static final String TIMED_OUT = "timed-out";
    public static final String NOT_FIRST = "not-first";

    private final CountDownLatch allInProgress = new CountDownLatch(PARTITIONS);
    private final Set<Integer> arrived = ConcurrentHashMap.newKeySet();

    /**
     * For the first delivery of {@code partition}: waits until the first deliveries of all partitions are here, then
     * {@value #OPENED}, or {@value #TIMED_OUT}. For later deliveries of that partition {@value #NOT_FIRST} at once.
     */
    public String pass(int partition) {
        if (!arrived.add(partition)) {
            return NOT_FIRST;
        }
        allInProgress.countDown();
        try {
            return allInProgress.await(TIMEOUT_SECONDS, TimeUnit.SECONDS) ? OPENED : TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return TIMED_OUT;
        }
    }
}
