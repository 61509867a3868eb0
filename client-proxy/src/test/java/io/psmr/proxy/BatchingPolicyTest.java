package io.psmr.proxy;

import static io.psmr.proxy.BatchingPolicy.NOT_READY;
import static io.psmr.proxy.BatchingPolicy.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link BatchingPolicy} as tables, each condition at its boundary; time is a parameter, so no clock is read.
 */
class BatchingPolicyTest {

    /** Window 2, at most 3 commands, 100 bytes for them, linger 1,000 ns. */
    static final BatchingPolicy LINGERING = new BatchingPolicy(2, 3, 100, 1_000);
    /** As {@link #LINGERING} with linger zero. */
    static final BatchingPolicy EAGER = new BatchingPolicy(2, 3, 100, 0);

    /** One question to {@link BatchingPolicy#closeDelay} and its answer. */
    record Close(int outstanding, int queued, long oldest, long now, long delay) {
    }

    static void assertCloses(BatchingPolicy policy, Close... rows) {
        for (Close r : rows) {
            assertEquals(r.delay(), policy.closeDelay(r.outstanding(), r.queued(), r.oldest(), r.now()), r.toString());
        }
    }

    @Test
    void aBatchClosesOnlyWithAFreeWindowSlotAndAQueuedCommand() {
        assertCloses(EAGER,
                new Close(0, 0, 0, 0, NOT_READY),
                new Close(1, 0, 0, 0, NOT_READY),
                new Close(2, 1, 0, 0, NOT_READY),
                new Close(3, 5, 0, 0, NOT_READY),
                new Close(1, 1, 0, 0, NOW),
                new Close(0, 1, 0, 0, NOW),
                new Close(0, 50, 0, 0, NOW));
        assertCloses(LINGERING,
                new Close(2, 3, 0, 5_000, NOT_READY),
                new Close(1, 0, 0, 5_000, NOT_READY),
                new Close(1, 3, 0, 0, NOW));
    }

    @Test
    void withoutLingerABatchClosesAtOnceHoweverYoungItsOldestCommand() {
        assertCloses(EAGER,
                new Close(0, 1, 5_000, 5_000, NOW),
                new Close(0, 2, 5_000, 4_000, NOW));
    }

    @Test
    void withLingerABatchClosesWhenTheOldestCommandHasWaitedLinger() {
        assertCloses(LINGERING,
                new Close(0, 1, 5_000, 5_000, 1_000),
                new Close(0, 1, 5_000, 5_001, 999),
                new Close(0, 2, 5_000, 5_999, 1),
                new Close(0, 2, 5_000, 6_000, NOW),
                new Close(1, 1, 5_000, 6_001, NOW),
                new Close(0, 1, 5_000, 1_000_000, NOW));
    }

    @Test
    void withLingerAFullQueueClosesTheBatchAtOnce() {
        assertCloses(LINGERING,
                new Close(0, 2, 5_000, 5_000, 1_000),
                new Close(0, 3, 5_000, 5_000, NOW),
                new Close(0, 4, 5_000, 5_000, NOW));
    }

    @Test
    void lingerSurvivesAWrapOfTheNanoClock() {
        long oldest = Long.MAX_VALUE - 10;
        assertCloses(LINGERING,
                new Close(0, 1, oldest, Long.MIN_VALUE + 5, 1_000 - 16),
                new Close(0, 1, oldest, Long.MIN_VALUE + 989, NOW),
                new Close(0, 1, oldest, Long.MIN_VALUE + 988, 1));
    }

    /** How many of {@code costs} (queued in this order) the next batch takes, asking as the proxy does. */
    static int batchOf(BatchingPolicy policy, int... costs) {
        int taken = 0;
        long bytes = 0;
        while (taken < costs.length && policy.takes(taken, bytes, costs[taken])) {
            bytes += costs[taken];
            taken++;
        }
        return taken;
    }

    @Test
    void aBatchTakesCommandsUpToItsCommandAndByteBounds() {
        assertEquals(1, batchOf(EAGER, 10));
        assertEquals(3, batchOf(EAGER, 10, 10, 10, 10), "at most 3 commands");
        assertEquals(3, batchOf(EAGER, 1, 1, 1, 1, 1));
        assertEquals(2, batchOf(EAGER, 60, 40, 1), "40 fills the 100 bytes exactly; the third does not fit");
        assertEquals(1, batchOf(EAGER, 60, 41), "one byte over");
        assertEquals(3, batchOf(EAGER, 0, 0, 100), "100 fits exactly after two empty ones");
        assertEquals(1, batchOf(EAGER, 40, 70, 10), "no command is skipped to fit a later one");
        assertEquals(1, batchOf(EAGER, 100, 1));
        assertEquals(1, batchOf(EAGER, 150, 1), "the first command is always taken");
    }

    @Test
    void takesAtItsBoundaries() {
        assertTrue(EAGER.takes(0, 0, 101), "the first always");
        assertTrue(EAGER.takes(2, 50, 50));
        assertFalse(EAGER.takes(2, 50, 51));
        assertFalse(EAGER.takes(3, 0, 0), "a fourth never");
        assertFalse(new BatchingPolicy(1, 1, 100, 0).takes(1, 0, 0));
    }

    @Test
    void aCommandFitsInABatchUpToTheByteBudget() {
        assertEquals(100, EAGER.byteBudget());
        assertTrue(EAGER.fitsInABatch(0));
        assertTrue(EAGER.fitsInABatch(100));
        assertFalse(EAGER.fitsInABatch(101));
    }

    @Test
    void boundsAreValidated() {
        assertEquals("window must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BatchingPolicy(0, 1, 1, 0)).getMessage());
        assertEquals("maxBatchCommands must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BatchingPolicy(1, 0, 1, 0)).getMessage());
        assertEquals("byteBudget must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> new BatchingPolicy(1, 1, 0, 0)).getMessage());
        assertEquals("lingerNanos must not be negative, got -1",
                assertThrows(IllegalArgumentException.class, () -> new BatchingPolicy(1, 1, 1, -1)).getMessage());
    }
}
