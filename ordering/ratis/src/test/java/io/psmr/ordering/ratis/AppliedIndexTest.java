package io.psmr.ordering.ratis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class AppliedIndexTest {

    @Test
    void advancesOnlyOverAGapFreeRunOfCompletedEntries() {
        AppliedIndex a = new AppliedIndex();
        assertEquals(-1, a.index());
        assertTrue(a.register(1, 0));
        assertTrue(a.register(1, 1));
        assertTrue(a.register(2, 2));
        assertNull(a.complete(2), "entry 2 done, but 0 and 1 still run");
        assertEquals(-1, a.index());
        assertNull(a.complete(1));
        assertArrayEquals(new long[] {2, 2}, a.complete(0), "0 completes the run up to 2");
        assertEquals(2, a.index());
        assertEquals(2, a.term());
        assertEquals(0, a.inFlight());
    }

    @Test
    void refusesEntriesOutOfOrderAndUnknownCompletions() {
        AppliedIndex a = new AppliedIndex();
        a.reset(3, 10);
        assertFalse(a.register(3, 10), "an index a snapshot covers");
        assertTrue(a.register(3, 11));
        assertFalse(a.register(3, 11));
        assertThrows(IllegalArgumentException.class, () -> a.complete(12));
        assertThrows(IllegalStateException.class, () -> a.reset(3, 20), "cannot reset with an entry in flight");
        assertArrayEquals(new long[] {3, 11}, a.complete(11));
    }

    @RepeatedTest(20)
    void neverRunsAheadOfTheLowestEntryStillRunning() {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        Random rnd = new Random(seed);
        AppliedIndex a = new AppliedIndex();
        int n = 200;
        List<Long> order = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            a.register(1, i);
            order.add(i);
        }
        Collections.shuffle(order, rnd);
        boolean[] done = new boolean[n];
        for (long i : order) {
            done[(int) i] = true;
            a.complete(i);
            int firstRunning = 0;
            while (firstRunning < n && done[firstRunning]) {
                firstRunning++;
            }
            assertEquals(firstRunning - 1, a.index(), "seed " + seed);
        }
    }
}
