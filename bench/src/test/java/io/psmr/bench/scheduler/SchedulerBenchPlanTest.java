package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cos.CosVariant;
import io.psmr.bench.scheduler.service.BenchStore;
import io.psmr.bench.scheduler.service.ServiceKind;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The plan's summary dimension: nothing runs. */
class SchedulerBenchPlanTest {

    private static List<Cell> plan(SummaryTiming timing) {
        return plan(timing, List.of(BenchStore.CHRONICLE), ServiceKind.KV);
    }

    private static List<Cell> plan(SummaryTiming timing, List<BenchStore> stores, ServiceKind service) {
        BenchSettings s = new BenchSettings(BenchCommand.DEFAULT_MODES, List.of(1, 2, 4), List.of(1, 200), List.of(0, 20),
                BenchSettings.DEFAULT_BITS, 64, 3, Duration.ofMillis(500), Duration.ofMillis(500), false, 42, 2,
                Path.of("results"), stores, service, 0, timing);
        return new SchedulerBench(s).plan();
    }

    @Test
    void aSecondStoreTwinsEveryCellRightAfterItAndTheMapServiceHasNoTwins() {
        List<Cell> one = plan(SummaryTiming.BOTH);
        List<Cell> two = plan(SummaryTiming.BOTH, List.of(BenchStore.CHRONICLE, BenchStore.HEAP), ServiceKind.KV);
        assertEquals(2 * one.size(), two.size());
        for (int i = 0; i < one.size(); i++) {
            assertEquals(one.get(i), two.get(2 * i));
            assertEquals(one.get(i).on(BenchStore.HEAP), two.get(2 * i + 1), "the twin follows its cell");
        }
        assertEquals("sequential@heap", new Cell(SchedulerMode.SEQUENTIAL, 200, 1, 0).on(BenchStore.HEAP).label());
        assertFalse(new Cell(SchedulerMode.BITMAP_INDEXED, 200, 1, 0).on(BenchStore.HEAP).runs(SchedulerMode.BITMAP_INDEXED),
                "a twin is not the mode as a replica runs it on the first store");
        assertEquals(one, plan(SummaryTiming.BOTH, List.of(BenchStore.CHRONICLE, BenchStore.HEAP), ServiceKind.MAP));
    }

    @Test
    void bothPlansEveryParallelCellPreThenTimedSideBySide() {
        List<Cell> pre = plan(SummaryTiming.PRE);
        List<Cell> both = plan(SummaryTiming.BOTH);
        long summarised = pre.stream().filter(Cell::buildsSummaries).count();
        assertEquals(76, pre.size(), "the quick matrix, COS baselines and partitioned ceilings included");
        assertEquals(12, pre.stream().filter(Cell::isPartitioned).count(), "batch 1 and 200, 1, 2 and 4 threads, 0 and 20%");
        assertEquals(48, summarised, "parallel psmr cells; COS and sequential build no summaries");
        assertEquals(12, pre.stream().filter(Cell::isCos).count());
        assertEquals(pre.size() + summarised, both.size());
        assertTrue(pre.stream().noneMatch(Cell::summaryTimed));
        for (int i = 0; i < both.size(); i++) {
            Cell c = both.get(i);
            if (c.summaryTimed()) {
                Cell before = both.get(i - 1);
                assertEquals(new Cell(c.mode(), c.batch(), c.workers(), c.conflictPct()), before, "pre twin first");
            }
            assertFalse(!c.buildsSummaries() && c.summaryTimed(), "sequential, COS and partitioned build no summaries: " + c);
        }
        assertEquals(12, both.stream().filter(Cell::isCos).count(), "COS cells are not duplicated");
        List<Cell> timed = plan(SummaryTiming.TIMED);
        assertEquals(pre.size(), timed.size());
        assertTrue(timed.stream().allMatch(c -> c.summaryTimed() == c.buildsSummaries()));
        assertTrue(timed.contains(new Cell(SchedulerMode.CBASE, 1, 2, 20, true)), "the CBASE reference of timed cells");
        assertTrue(timed.contains(new Cell(BenchMode.of(CosVariant.LOCK_FREE), 1, 2, 20, false)), "COS, untimed");
    }

    @Test
    void describeAndTheColumnSayWhereSummariesAreBuilt() {
        assertEquals("bitmap-indexed batch 200, 2 workers, 0% conflicts, summaries timed",
                new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0, true).describe());
        assertEquals("timed", new Cell(SchedulerMode.BITMAP_INDEXED, 200, 2, 0, true).summaries());
        assertEquals("pre", new Cell(SchedulerMode.CBASE, 1, 2, 0).summaries());
        assertEquals("none", new Cell(SchedulerMode.SEQUENTIAL, 200, 1, 0).summaries());
        assertEquals("none", new Cell(BenchMode.of(CosVariant.COARSE), 1, 2, 0).summaries());
        assertEquals("none", new Cell(BenchMode.partitioned(), 200, 2, 0).summaries());
        assertEquals("partitioned batch 200, 2 workers, 0% conflicts", new Cell(BenchMode.partitioned(), 200, 2, 0).describe());
    }
}
