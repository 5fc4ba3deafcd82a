package io.tributary.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

class RequestMemoryPoolTest {

    @Test
    void aReservationThatDoesNotFitInWhatIsLeftFailsAndOneThatFitsExactlySucceeds() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        RequestMemoryPool.Reservation first = pool.tryReserve(60);
        assertNotNull(first);
        assertNull(pool.tryReserve(41));
        assertNotNull(pool.tryReserve(40));
        assertEquals(100, pool.used());
        assertNull(pool.tryReserve(1));
        assertNotNull(pool.tryReserve(0));
    }

    @Test
    void releasingWakesEveryWaiterOnceAndReleasingTwiceGivesBackOnce() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        RequestMemoryPool.Reservation held = pool.tryReserve(100);
        AtomicInteger woken = new AtomicInteger();
        pool.whenAvailable(50, woken::incrementAndGet);
        pool.whenAvailable(80, woken::incrementAndGet);
        assertEquals(0, woken.get());

        held.release();
        assertEquals(2, woken.get());
        assertEquals(0, pool.used());
        held.release();
        assertEquals(0, pool.used(), "a second release is a no-op");
        assertEquals(2, woken.get());
    }

    @Test
    void aWaiterForMemoryThatIsAlreadyFreeRunsAtOnce() {
        RequestMemoryPool pool = new RequestMemoryPool(100);
        pool.tryReserve(30);
        AtomicInteger woken = new AtomicInteger();
        pool.whenAvailable(70, woken::incrementAndGet);
        assertEquals(1, woken.get());
    }

    @Test
    void anUnboundedPoolGrantsEverythingAndStillCounts() {
        RequestMemoryPool pool = new RequestMemoryPool(-1);
        assertFalse(pool.isBounded());
        RequestMemoryPool.Reservation a = pool.tryReserve(Integer.MAX_VALUE);
        RequestMemoryPool.Reservation b = pool.tryReserve(Integer.MAX_VALUE);
        assertEquals(2L * Integer.MAX_VALUE, pool.used());
        a.release();
        b.release();
        assertEquals(0, pool.used());
        assertTrue(new RequestMemoryPool(1).isBounded());
    }
}
