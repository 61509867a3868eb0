package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static List<Long> take(Backoff b, int n) {
        List<Long> delays = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            delays.add(b.nextDelayMillis());
        }
        return delays;
    }

    @Test
    void delaysDoubleFromTheMinimumUpToTheMaximumAndResetGoesBack() {
        Backoff b = new ReconnectPolicy(Duration.ofMillis(50), Duration.ofSeconds(2)).newBackoff();
        assertEquals(List.of(50L, 100L, 200L, 400L, 800L, 1600L, 2000L, 2000L), take(b, 8));
        b.reset();
        assertEquals(List.of(50L, 100L), take(b, 2));
    }

    @Test
    void aMaximumThatIsNoPowerOfTwoOfTheMinimumIsReachedExactly() {
        assertEquals(List.of(3L, 6L, 7L, 7L), take(new Backoff(3, 7), 4));
        assertEquals(List.of(5L, 5L), take(new Backoff(5, 5), 2));
    }

    @Test
    void aHugeMaximumDoesNotOverflow() {
        Backoff b = new Backoff(1L << 61, Long.MAX_VALUE);
        assertEquals(List.of(1L << 61, 1L << 62, Long.MAX_VALUE, Long.MAX_VALUE), take(b, 4));
    }

    @Test
    void badBoundsAreRefusedWithTheirValues() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Backoff(10, 5));
        assertEquals("backoff needs 1 <= min <= max, got min 10 ms, max 5 ms", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new ReconnectPolicy(Duration.ZERO, Duration.ofSeconds(1)));
        assertEquals("reconnect delays: min must be at least 1 ms and max at least min, got min PT0S, max PT1S", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ReconnectPolicy(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
