package io.psmr.bench.scheduler.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.scheduler.BenchWorkload;
import io.psmr.kvstore.KvCommand;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.Key;
import io.psmr.scheduler.Scheduler;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.scheduler.SummaryBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/** The map service of {@code psmr bench --service map}: honest footprints, and the same state whatever the scheduler. */
class MapServiceTest {

    private static final long SEED = Long.getLong("psmr.seed", 42);

    @Test
    void commandsDeclareTheKvCommandsKeyAndAccess() {
        BenchWorkload w = BenchWorkload.build(20, 50, 64, SEED);
        MapBenchService service = new MapBenchService(0, BusyWork.NONE);
        List<List<MapCommand>> batches = service.batches(w);
        assertEquals(w.cycleLength(), batches.size());
        int hot = 0;
        for (int b = 0; b < batches.size(); b++) {
            for (int i = 0; i < w.batch(); i++) {
                KvCommand kv = w.commands(b).get(i);
                MapCommand m = batches.get(b).get(i);
                assertEquals(1, m.keyCount());
                assertArrayEquals(kv.key(0), m.key(0), "seed " + SEED);
                assertEquals(kv.writes(0), m.writes(0), "seed " + SEED);
                assertEquals(m.write(), m.writes(0));
                if (m.mapKey() == MapService.HOT_KEY) {
                    hot++;
                    assertTrue(m.write(), "the hot key is only written");
                } else {
                    assertTrue(m.mapKey() >= 0 && m.mapKey() < service.map().size() - 1, m.toString());
                }
            }
            // Same footprint, same summary: the scheduler sees the same conflicts as with kv.
            assertEquals(elements(SummaryBuilder.summarize(SchedulerMode.RW_BITMAP.detection(102_400), w.commands(b))),
                    elements(SummaryBuilder.summarize(SchedulerMode.RW_BITMAP.detection(102_400), batches.get(b))),
                    "batch " + b);
        }
        assertTrue(hot > 0, "some batches write the hot key; seed " + SEED);
        assertEquals(MapService.KEYS + 1, service.map().size(), "10^6 keys and the hot key");
    }

    /** A summary's bits with their access, in visiting order. */
    private static List<String> elements(ConflictSummary s) {
        List<String> out = new ArrayList<>();
        s.forEachElement(new ConflictSummary.ElementVisitor() {
            @Override
            public void onBit(int bit, boolean write) {
                out.add(bit + (write ? "w" : "r"));
            }

            @Override
            public void onKey(Key key, boolean write) {
                out.add(key + (write ? "w" : "r"));
            }
        });
        return out;
    }

    @ParameterizedTest
    @EnumSource(value = SchedulerMode.class, names = {"CBASE", "KEYS_PAIRWISE", "BITMAP_MONITOR", "BITMAP_INDEXED", "RW_BITMAP"})
    void aSchedulerEndsInTheSequentialState(SchedulerMode mode) throws Exception {
        BenchWorkload w = BenchWorkload.build(mode.batch(40), 30, 16, SEED);
        MapBenchService sequential = new MapBenchService(0, BusyWork.NONE);
        for (List<MapCommand> batch : sequential.batches(w)) {
            for (MapCommand c : batch) {
                sequential.service().execute(c);
            }
        }
        MapBenchService parallel = new MapBenchService(0, BusyWork.NONE);
        try (Scheduler<MapCommand, Long> scheduler = Scheduler.builder(parallel.service())
                .detection(mode.detection(102_400)).graph(mode.graph()).workers(3).maxPending(16).start()) {
            long instance = 0;
            SummaryBuilder builder = new SummaryBuilder(mode.detection(102_400));
            // Twice round the cycle, so that the hot key is written many times in delivery order.
            for (int round = 0; round < 2; round++) {
                for (List<MapCommand> batch : parallel.batches(w)) {
                    batch.forEach(builder::add);
                    scheduler.deliver(new Batch<>(++instance, batch, builder.build()));
                }
            }
            assertTrue(scheduler.awaitIdle(30, TimeUnit.SECONDS), "scheduler idle");
            assertFalse(scheduler.failure().isPresent(), () -> "failure: " + scheduler.failure());
        }
        for (List<MapCommand> batch : sequential.batches(w)) {
            for (MapCommand c : batch) {
                sequential.service().execute(c);
            }
        }
        Map<Long, Long> expected = sequential.map().contents();
        Map<Long, Long> actual = parallel.map().contents();
        assertNotEquals(0L, expected.get(MapService.HOT_KEY), "the hot key was written; seed " + SEED);
        assertEquals(expected.size(), actual.size());
        assertEquals("", differences(expected, actual), "mode " + mode + ", seed " + SEED);
    }

    /** The first few keys whose values differ, as {@code key: expected != actual}; empty if none. */
    private static String differences(Map<Long, Long> expected, Map<Long, Long> actual) {
        StringBuilder b = new StringBuilder();
        int shown = 0;
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            Long a = actual.get(e.getKey());
            if (!e.getValue().equals(a) && shown++ < 5) {
                b.append(e.getKey()).append(": ").append(e.getValue()).append(" != ").append(a).append("; ");
            }
        }
        return shown > 5 ? b + "and " + (shown - 5) + " more" : b.toString();
    }

    @Test
    void theMergeDependsOnOrderSoThatTheDeterminismTestCanFail() {
        MapService a = new MapService(0, BusyWork.NONE);
        MapService b = new MapService(0, BusyWork.NONE);
        byte[] k = BenchWorkload.key(7);
        MapCommand first = new MapCommand(k, true, 7, 1);
        MapCommand second = new MapCommand(k, true, 7, 2);
        a.execute(first);
        a.execute(second);
        b.execute(second);
        b.execute(first);
        assertNotEquals(a.contents().get(7L), b.contents().get(7L));
        assertEquals(33L, a.execute(new MapCommand(k, false, 7, 99)), "get reads (0*31+1)*31+2 and changes nothing");
        assertEquals(33L, a.contents().get(7L));
    }

    @Test
    void keyIndexIsTheIndexTheKeyWasMadeFrom() {
        assertEquals(123_456L, BenchWorkload.keyIndex(BenchWorkload.key(123_456)));
        assertEquals(BenchWorkload.HOT_KEY_INDEX, BenchWorkload.keyIndex(BenchWorkload.hotKey()));
    }
}
