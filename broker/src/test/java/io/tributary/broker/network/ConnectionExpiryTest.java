package io.tributary.broker.network;

import static io.tributary.broker.network.ConnectionExpiry.Reason.IDLE;
import static io.tributary.broker.network.ConnectionExpiry.Reason.SLOW_REQUEST;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.TimeUnit;

import io.tributary.broker.storage.ManualTime;
import org.junit.jupiter.api.Test;

class ConnectionExpiryTest {

    private static final long TIMEOUT_MS = 10_000;

    private final ManualTime time = new ManualTime();
    private final ConnectionExpiry expiry = new ConnectionExpiry(TIMEOUT_MS, time);

    @Test
    void aConnectionThatMovesNoBytesIsIdleAfterTheTimeoutAndEveryByteStartsItAgain() {
        time.advance(TIMEOUT_MS - 1);
        assertNull(expiry.expired());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(1), expiry.nanosUntilNextCheck());

        expiry.activity();
        time.advance(TIMEOUT_MS - 1);
        assertNull(expiry.expired());
        time.advance(1);
        assertEquals(IDLE, expiry.expired());
    }

    @Test
    void aConnectionOwedAResponseIsNeverIdleAndItsIdleTimeStartsAtTheLastAnswer() {
        expiry.outstanding(1);
        time.advance(10 * TIMEOUT_MS);
        assertNull(expiry.expired(), "a long-poll fetch or an acks=all produce is waiting");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS), expiry.nanosUntilNextCheck());

        expiry.outstanding(0); // an acks=0 produce: answered without a byte written
        time.advance(TIMEOUT_MS - 1);
        assertNull(expiry.expired());
        time.advance(1);
        assertEquals(IDLE, expiry.expired());
    }

    @Test
    void aRequestThatTricklesInExpiresAsSlowThoughItsConnectionIsNeverIdle() {
        expiry.activity();
        expiry.frameStarted();
        for (int i = 0; i < 9; i++) {
            time.advance(TIMEOUT_MS / 10);
            expiry.activity(); // one more byte of the request
            assertNull(expiry.expired());
        }
        time.advance(TIMEOUT_MS / 10);
        expiry.activity();
        assertEquals(SLOW_REQUEST, expiry.expired());
    }

    @Test
    void aRequestCompleteInTimeEndsItsClockAndTheIdleRuleTakesOver() {
        expiry.frameStarted();
        time.advance(TIMEOUT_MS - 1);
        expiry.activity();
        expiry.frameReceived();
        expiry.outstanding(1);
        expiry.outstanding(0);
        time.advance(TIMEOUT_MS - 1);
        assertNull(expiry.expired());
        time.advance(1);
        assertEquals(IDLE, expiry.expired());
    }

    @Test
    void aRequestIsNotTimedWhileTheServerDoesNotReadItsConnectionAndItsClockRestartsWhenReadingDoes() {
        expiry.frameStarted();
        time.advance(TIMEOUT_MS / 2);
        expiry.reading(false); // waiting for queued.max.request.bytes, say
        time.advance(10 * TIMEOUT_MS);
        assertNull(expiry.expired());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS), expiry.nanosUntilNextCheck());

        expiry.reading(true);
        time.advance(TIMEOUT_MS - 1);
        assertNull(expiry.expired());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(1), expiry.nanosUntilNextCheck());
        time.advance(1);
        assertEquals(SLOW_REQUEST, expiry.expired());
    }

    @Test
    void aConnectionWhoseClientStopsReadingItsResponsesStillGoesIdle() {
        expiry.outstanding(1);
        expiry.outstanding(0); // the response was handed to the socket and makes no progress
        expiry.reading(false); // its queued bytes passed the high water mark
        time.advance(TIMEOUT_MS);
        assertEquals(IDLE, expiry.expired());
    }

    @Test
    void withoutATimeoutNothingExpires() {
        ConnectionExpiry never = new ConnectionExpiry(-1, time);
        never.frameStarted();
        time.advance(365L * 24 * 3_600_000);
        assertNull(never.expired());
        never.frameReceived();
        assertNull(never.expired());
    }
}
