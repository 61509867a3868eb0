package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The applied index advances over gap-free runs of executed entries only, tells its listener in
 * increasing order, and, behind a real scheduler, never names an entry whose commands have not all
 * executed. Re-run a randomised case with {@code -Dpsmr.seed=SEED}.
 */
class AppliedIndexTest {

    @Test
    void advancesOnlyOverAGapFreeRunOfCompletedEntries() {
        AppliedIndex a = new AppliedIndex();
        assertEquals(-1, a.index());
        assertTrue(a.register(1, 0));
        assertTrue(a.register(1, 1));
        assertTrue(a.register(2, 2));
        assertFalse(a.complete(2), "entry 2 done, but 0 and 1 still run");
        assertEquals(-1, a.index());
        assertFalse(a.complete(1));
        assertTrue(a.complete(0), "0 completes the run up to 2");
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
        assertTrue(a.complete(11));
        assertEquals(11, a.index());
        assertEquals(3, a.term());
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

    @Test
    void tellsItsListenerEachAdvanceInIncreasingOrder() {
        List<long[]> heard = new ArrayList<>();
        AppliedIndex a = new AppliedIndex((term, index) -> heard.add(new long[] {term, index}));
        for (long i = 1; i <= 5; i++) {
            assertTrue(a.register(i <= 2 ? 1 : 2, i));
        }
        a.complete(3);
        a.complete(1);
        a.complete(5);
        a.complete(2);
        a.complete(4);
        assertEquals(3, heard.size());
        assertEquals(List.of("1@1", "2@3", "2@5"), heard.stream().map(h -> h[0] + "@" + h[1]).toList());
    }

    @Test
    void aResetSkipsWhatTheSnapshotCoversAndTellsNoOne() {
        List<Long> heard = new ArrayList<>();
        AppliedIndex a = new AppliedIndex((term, index) -> heard.add(index));
        a.reset(0, 7);
        assertEquals(7, a.index());
        assertEquals(7, a.lastRegistered());
        for (long i = 1; i <= 7; i++) {
            assertFalse(a.register(i), "entry " + i + " is in the snapshot");
        }
        assertTrue(heard.isEmpty());
        assertTrue(a.register(8));
        assertEquals(8, a.lastRegistered());
        assertEquals(1, a.inFlight());
        assertTrue(a.complete(8));
        assertEquals(List.of(8L), heard);
        assertEquals(0, a.term(), "register(index) is term 0");
    }

    /** A command of the concurrent test: one key, written or read, of the log entry it belongs to. */
    private record Step(int entry, int key, boolean write) implements Command {
        public int keyCount() {
            return 1;
        }

        public byte[] key(int i) {
            return ByteBuffer.allocate(4).putInt(key).array();
        }

        public boolean writes(int i) {
            return write;
        }
    }

    @RepeatedTest(5)
    void behindASchedulerItNeverNamesAnEntryWhoseCommandsHaveNotAllExecuted() throws Exception {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        Random rnd = new Random(seed);
        int entries = 1_500;
        // Plain ints: one worker runs all of an entry's commands, and the applied index's monitor
        // is what makes them visible to a thread that reads the index.
        int[] size = new int[entries + 1];
        int[] executed = new int[entries + 1];
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        long[] lastHeard = {0};
        AppliedIndex applied = new AppliedIndex((term, index) -> {
            if (index <= lastHeard[0]) {
                wrong.add("advance to " + index + " after " + lastHeard[0]);
            }
            for (long e = lastHeard[0] + 1; e <= index; e++) {
                if (executed[(int) e] != size[(int) e]) {
                    wrong.add("applied index " + index + " but entry " + e + " ran " + executed[(int) e]
                            + " of " + size[(int) e]);
                }
            }
            lastHeard[0] = index;
        });
        applied.reset(0, 0);
        ConflictDetection detection = ConflictDetection.bitmap(1 << 10);
        Service<Step, Integer> service = step -> {
            executed[step.entry()]++;
            return step.entry();
        };
        ResultSink<Step, Integer> sink = new ResultSink<>() {
            public void onResult(long instance, int index, Step command, Integer result) {
            }

            public void onError(long instance, int index, Step command, CommandError error) {
                wrong.add("entry " + instance + " command " + index + ": " + error);
            }

            @Override
            public void onBatchComplete(Batch<Step> batch) {
                applied.complete(batch.instance());
            }
        };
        AtomicBoolean delivering = new AtomicBoolean(true);
        Thread reader = new Thread(() -> {
            long seen = 0;
            while (delivering.get()) {
                long i = applied.index();
                for (long e = seen + 1; e <= i; e++) {
                    if (executed[(int) e] != size[(int) e]) {
                        wrong.add("a reader saw applied index " + i + " before entry " + e + " executed");
                    }
                }
                seen = Math.max(seen, i);
            }
        }, "applied-index-reader");
        reader.start();
        try (Scheduler<Step, Integer> scheduler = Scheduler.builder(service).resultSink(sink).detection(detection)
                .workers(1 + rnd.nextInt(4)).maxPending(1 + rnd.nextInt(32)).start()) {
            for (int e = 1; e <= entries; e++) {
                assertTrue(applied.register(e % 7, e), "seed " + seed);
                if (rnd.nextInt(10) == 0) {
                    applied.complete(e); // an entry without a batch: it counts behind the batches before it
                    continue;
                }
                List<Step> steps = new ArrayList<>();
                for (int c = 1 + rnd.nextInt(8); c > 0; c--) {
                    steps.add(new Step(e, rnd.nextInt(64), rnd.nextInt(3) == 0));
                }
                size[e] = steps.size();
                scheduler.deliver(Batch.of(e, steps, detection));
            }
            assertTrue(scheduler.awaitIdle(30, TimeUnit.SECONDS), "seed " + seed);
        } finally {
            delivering.set(false);
            reader.join();
        }
        assertTrue(wrong.isEmpty(), "seed " + seed + ": " + wrong);
        assertEquals(entries, applied.index(), "seed " + seed);
        assertEquals(entries % 7, applied.term(), "seed " + seed);
        assertEquals(0, applied.inFlight(), "seed " + seed);
    }
}
