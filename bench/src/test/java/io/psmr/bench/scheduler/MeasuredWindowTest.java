package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.SchedulerMode;
import org.junit.jupiter.api.Test;

/**
 * When a run may end its measured window ({@link SchedulerBench#windowDone}): not before the window holds a completed
 * batch. CI once reported 0 commands/s for a run whose 72 ms window fell inside one JVM-wide pause.
 */
class MeasuredWindowTest {

    private static final Cell CELL = new Cell(SchedulerMode.BITMAP_INDEXED, 200, 1, 0);
    private static final long MS = 1_000_000;

    @Test
    void aWindowWithoutACompletedBatchGoesOnPastTheDuration() {
        assertFalse(SchedulerBench.windowDone(5_000, 5_000, 80 * MS, 80 * MS, CELL));
        assertFalse(SchedulerBench.windowDone(5_000, 5_000, 10_000 * MS, 80 * MS, CELL));
        assertTrue(SchedulerBench.windowDone(5_200, 5_000, 81 * MS, 80 * MS, CELL));
    }

    @Test
    void aSchedulerThatNeverCompletesABatchIsReportedNotWaitedOnForever() {
        long past = 80 * MS + SchedulerBench.STALL_NANOS + MS;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SchedulerBench.windowDone(5_000, 5_000, past, 80 * MS, CELL));
        assertEquals("bitmap-indexed batch 200, 1 worker, 0% conflicts: no batch completed in " + (past / MS)
                + " ms of a 80 ms run: the scheduler made no progress", e.getMessage());
    }
}
