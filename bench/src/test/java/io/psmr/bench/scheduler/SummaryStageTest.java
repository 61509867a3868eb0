package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psmr.kvstore.KvCommand;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SchedulerMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The timed cells' summary stage: the same summaries as built before timing, in cycle order, and its failures. */
class SummaryStageTest {

    @Test
    void buildsEachBatchsSummaryInCycleOrderAndWrapsAround() throws InterruptedException {
        BenchWorkload w = BenchWorkload.build(50, 20, 4, 42);
        ConflictDetection detection = SchedulerMode.BITMAP_INDEXED.detection(102_400);
        ConflictSummary[] pre = SchedulerBench.summaries(w.batches(), detection);
        try (SummaryStage<KvCommand> stage = new SummaryStage<>(w.batches(), detection, 8)) {
            for (int i = 0; i < pre.length + 5; i++) {
                assertEquals(elements(pre[i % pre.length]), elements(stage.next()), "batch " + i + " of the cycle");
            }
        }
    }

    /** A summary's bits, with their write flags, in its own order. */
    private static List<String> elements(ConflictSummary s) {
        List<String> out = new java.util.ArrayList<>();
        s.forEachElement(new ConflictSummary.ElementVisitor() {
            @Override
            public void onBit(int bit, boolean write) {
                out.add(bit + (write ? "w" : "r"));
            }

            @Override
            public void onKey(io.psmr.scheduler.Key key, boolean write) {
                out.add(key + (write ? "w" : "r"));
            }
        });
        assertFalse(out.isEmpty());
        return out;
    }

    @Test
    void aBuilderFailureReachesTheDeliveryThread() throws InterruptedException {
        Command broken = new Command() {
            @Override
            public int keyCount() {
                return 1;
            }

            @Override
            public byte[] key(int i) {
                throw new IllegalStateException("no key here");
            }

            @Override
            public boolean writes(int i) {
                return true;
            }
        };
        try (SummaryStage<Command> stage = new SummaryStage<>(List.of(List.of(broken)),
                SchedulerMode.BITMAP_INDEXED.detection(1024), 2)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, stage::next);
            assertEquals("the summary stage failed: java.lang.IllegalStateException: no key here", e.getMessage());
        }
    }
}
