package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.scheduler.service.BusyWork;
import io.psmr.bench.scheduler.service.MapBenchService;
import io.psmr.bench.scheduler.service.MapCommand;
import io.psmr.kvstore.KvCommand;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The partitioned ceiling: how a cycle splits by key, and a short run over the map service. */
class PartitionedRunTest {

    @Test
    void everyCommandLandsInItsKeysPartitionInCycleOrderAndMultiPartitionCommandsAreLeftOut() {
        BenchWorkload w = BenchWorkload.build(200, 20, 64, 42);
        List<List<KvCommand>> batches = new ArrayList<>(w.batches());
        // Two multi-key commands: one whose keys share a partition, one whose keys do not.
        byte[] a = BenchWorkload.key(1);
        byte[] sameAsA = null;
        byte[] otherThanA = null;
        for (int i = 2; sameAsA == null || otherThanA == null; i++) {
            byte[] k = BenchWorkload.key(i);
            if (PartitionedRun.partitionOf(k, 3) == PartitionedRun.partitionOf(a, 3)) {
                sameAsA = sameAsA == null ? k : sameAsA;
            } else {
                otherThanA = otherThanA == null ? k : otherThanA;
            }
        }
        byte[][] values = {new byte[16], new byte[16]};
        KvCommand together = KvCommand.multiPut(1, 1, new byte[][] {a, sameAsA}, values);
        KvCommand apart = KvCommand.multiPut(1, 2, new byte[][] {a, otherThanA}, values);
        batches.add(List.of(together, apart));

        PartitionedRun.Split<KvCommand> split = PartitionedRun.split(batches, 3);
        long total = batches.stream().mapToLong(List::size).sum();
        assertEquals(total, split.total());
        assertEquals(1, split.leftOut(), "only the command whose keys span two partitions");
        assertEquals(3, split.streams().size());
        long placed = 0;
        for (int p = 0; p < 3; p++) {
            List<KvCommand> stream = split.streams().get(p);
            placed += stream.size();
            for (KvCommand c : stream) {
                for (int k = 0; k < c.keyCount(); k++) {
                    assertEquals(p, PartitionedRun.partitionOf(c.key(k), 3), "partition " + p + " holds " + c);
                }
            }
            // Cycle order within a partition: the workload's request numbers ascend, then the extra batch's command.
            for (int i = 1; i < stream.size(); i++) {
                if (stream.get(i) != together) {
                    assertTrue(stream.get(i - 1).requestSeq() < stream.get(i).requestSeq(),
                            "cycle order in partition " + p + " at " + i);
                }
            }
        }
        assertEquals(total - 1, placed, "every command but the left-out one, once");
        assertTrue(split.streams().get(PartitionedRun.partitionOf(a, 3)).contains(together));
        // Balanced enough that the ceiling is not one thread's: no partition holds more than half.
        for (List<KvCommand> s : split.streams()) {
            assertTrue(s.size() < total / 2, "partition sizes " + split.streams().stream().map(List::size).toList());
        }
    }

    @Test
    void oneKeysCommandsShareAStreamWhateverTheirBatch() {
        BenchWorkload w = BenchWorkload.build(1, 100, 64, 7); // every command writes the hot key
        PartitionedRun.Split<KvCommand> split = PartitionedRun.split(w.batches(), 4);
        int hot = PartitionedRun.partitionOf(BenchWorkload.hotKey(), 4);
        assertEquals(w.cycleLength(), split.streams().get(hot).size(), "the hot key's partition runs them all");
        assertEquals(0, split.leftOut());
        assertThrows(IllegalArgumentException.class, () -> PartitionedRun.split(w.batches(), 0));
    }

    @Test
    void aShortRunExecutesEveryStreamThroughTheService() throws InterruptedException {
        BenchWorkload w = BenchWorkload.build(200, 0, 64, 42);
        try (MapBenchService service = new MapBenchService(BenchWorkload.keysNeeded(200, 64), BusyWork.of(0))) {
            List<List<MapCommand>> batches = service.batches(w);
            PartitionedRun.Split<MapCommand> split = PartitionedRun.split(batches, 2);
            Cell cell = new Cell(BenchMode.partitioned(), 200, 2, 0);
            RunSample s = PartitionedRun.run(cell, split, service, 50_000_000L);
            assertTrue(s.throughputCps() > 0, "throughput " + s.throughputCps());
            assertTrue(Double.isNaN(s.avgGraphSize()), "no graph");
            // Both threads ran: every key of the map was merged or read; writes show as merged values.
            java.util.Map<Long, Long> contents = service.map().contents();
            Set<Integer> written = new HashSet<>();
            for (int p = 0; p < 2; p++) {
                for (MapCommand c : split.streams().get(p)) {
                    if (c.write() && contents.get(c.mapKey()) != 0) {
                        written.add(p);
                    }
                }
            }
            assertEquals(Set.of(0, 1), written, "each partition's thread wrote its keys");
        }
    }
}
