package io.tributary.itests.share;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;

/**
 * Proof of {@value #MEMBERS} concurrent deliveries that does not depend on timing: the first {@value #MEMBERS}
 * deliveries to arrive wait here until all {@value #MEMBERS} are in {@code onMessage} at once, which on a
 * one-partition queue only share-group delivery allows. Had fewer been delivered at a time, the waiting ones would
 * time out after {@value #TIMEOUT_SECONDS} s and report it, so the test fails rather than hangs.
 *
 * <p>Bean-managed concurrency: the MDB instances on the adapter's delivery threads call it at the same time.
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class ConcurrencyGate {

    public static final int MEMBERS = 8;
    /**
     * Generous on a loaded machine, and below the broker's record lock ({@code group.share.record.lock.duration.ms},
     * 30 s): a delivery that outlived its lock would be acknowledged too late and delivered again.
     */
    static final long TIMEOUT_SECONDS = 25;

    /** What {@link #pass} reports, which the MDB forwards with the message. */
    public static final String OPENED = "opened";
    public static final String TIMED_OUT = "timed-out";
    public static final String NOT_FIRST = "not-first";

    private final CountDownLatch allInside = new CountDownLatch(MEMBERS);
    private final AtomicInteger arrivals = new AtomicInteger();

    /**
     * For the first {@value #MEMBERS} deliveries: waits until all of them are here, then {@value #OPENED}, or
     * {@value #TIMED_OUT}. For later ones {@value #NOT_FIRST} at once.
     */
    public String pass(String text) {
        if (arrivals.incrementAndGet() > MEMBERS) {
            return NOT_FIRST;
        }
        allInside.countDown();
        try {
            return allInside.await(TIMEOUT_SECONDS, TimeUnit.SECONDS) ? OPENED : TIMED_OUT;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return TIMED_OUT;
        }
    }
}
