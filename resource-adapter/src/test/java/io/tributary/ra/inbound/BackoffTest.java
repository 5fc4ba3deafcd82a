package io.tributary.ra.inbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void clusterBackoffDoublesFromOneSecondToThirtyAndStartsOverAfterReset() {
        Backoff backoff = Backoff.forCluster();
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            delays.add(backoff.nextDelayMillis());
        }
        assertEquals(List.of(1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 30_000L, 30_000L, 30_000L), delays);
        backoff.reset();
        assertEquals(1_000L, backoff.nextDelayMillis());
    }

    @Test
    void endpointBackoffStartsShortAndStopsAtTenSeconds() {
        Backoff backoff = Backoff.forEndpoint();
        long last = 0;
        for (int i = 0; i < 20; i++) {
            last = backoff.nextDelayMillis();
        }
        assertEquals(10_000L, last);
        backoff.reset();
        assertEquals(100L, backoff.nextDelayMillis());
    }

    @Test
    void refusesABackoffThatIsNotBounded() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
