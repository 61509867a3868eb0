package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestDeduplicatorTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261123L);

    @Test
    void outOfOrderNumbersWithinTheWindowAreEachReleasedOnce() {
        RequestDeduplicator d = new RequestDeduplicator(4, 8);
        assertTrue(d.firstRelease(1, 5));
        assertTrue(d.firstRelease(1, 3));
        assertTrue(d.firstRelease(1, 7));
        assertFalse(d.firstRelease(1, 5));
        assertFalse(d.firstRelease(1, 3), "3 is still inside the window below 7");
        assertTrue(d.firstRelease(1, 4));
        assertTrue(d.firstRelease(1, 6));
        assertFalse(d.firstRelease(1, 7));
        assertFalse(d.firstRelease(1, 2), "2 is 5 below 7, beyond a window of 4: taken for a duplicate");
        assertTrue(d.firstRelease(2, 2), "clients are independent");
    }

    @Test
    void forgetsTheLeastRecentlyReleasedClientBeyondItsBound() {
        RequestDeduplicator d = new RequestDeduplicator(4, 2);
        d.firstRelease(1, 1);
        d.firstRelease(2, 1);
        d.firstRelease(1, 2);
        d.firstRelease(3, 1); // forgets client 2
        assertEquals(2, d.clientCount());
        assertTrue(d.firstRelease(2, 1), "a forgotten client's number is not recognised");
        assertFalse(d.firstRelease(3, 1));
    }

    @Test
    void matchesASetOracleWhileAtMostWindowRequestsAreOutstanding() {
        Random rnd = new Random(SEED);
        int window = 16;
        RequestDeduplicator d = new RequestDeduplicator(window, 4);
        Set<String> released = new HashSet<>();
        long[] next = new long[3];
        for (int i = 0; i < 20_000; i++) {
            int c = rnd.nextInt(3);
            // A number at most window - 1 below the client's next fresh one, or a fresh one.
            long n = rnd.nextInt(3) == 0 ? next[c]++ : Math.max(0, next[c] - 1 - rnd.nextInt(window - 1));
            boolean expected = released.add(c + "/" + n);
            assertEquals(expected, d.firstRelease(c, n), "seed " + SEED + " step " + i + ": client " + c + " number " + n);
        }
    }

    @Test
    void badBoundsAreRefused() {
        assertEquals("deduplication window must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new RequestDeduplicator(0, 1)).getMessage());
        assertEquals("maxClients must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new RequestDeduplicator(1, 0)).getMessage());
    }
}
