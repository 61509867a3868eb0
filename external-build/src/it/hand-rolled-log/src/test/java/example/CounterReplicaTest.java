package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import example.CounterReplica.Add;
import example.CounterReplica.Entry;
import example.CounterReplica.Snapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The replica of a hand-rolled log executes it as sequential execution would, snapshots at its applied
 * index, and a replica restarted from that snapshot and the log after it reaches the same state.
 * Re-run with {@code -Dpsmr.seed=SEED}.
 */
class CounterReplicaTest {

    private static final long SEED = Long.getLong("psmr.seed", System.nanoTime());

    /** The stack's committed log: entries at indices 1..n; one in eight carries no batch. */
    private static List<Entry> log(Random rnd, int n) {
        List<Entry> log = new ArrayList<>();
        for (long index = 1; index <= n; index++) {
            List<Add> adds = new ArrayList<>();
            if (rnd.nextInt(8) != 0) {
                for (int c = 1 + rnd.nextInt(6); c > 0; c--) {
                    adds.add(new Add("counter-" + rnd.nextInt(12), 1 + rnd.nextInt(100)));
                }
            }
            log.add(new Entry(index, adds));
        }
        return log;
    }

    /** Sequential execution of the entries up to {@code upTo}: the counters, and each entry's results. */
    private static Map<String, Long> sequential(List<Entry> log, long upTo, Map<Long, List<Long>> results) {
        Map<String, Long> counters = new TreeMap<>();
        for (Entry e : log) {
            if (e.index() > upTo) {
                break;
            }
            List<Long> r = new ArrayList<>();
            for (Add a : e.commands()) {
                r.add(counters.merge(a.name(), a.amount(), Long::sum));
            }
            results.put(e.index(), e.commands().isEmpty() ? null : r);
        }
        return counters;
    }

    @Test
    void aReplicaRestartedFromASnapshotAndTheLogSuffixEqualsSequentialExecution() throws Exception {
        Random rnd = new Random(SEED);
        String seed = "seed " + SEED;
        List<Entry> log = log(rnd, 600);
        int snapshotAfter = 100 + rnd.nextInt(400);               // entries applied before the snapshot
        Map<Long, List<Long>> expectedResults = new TreeMap<>();
        Map<String, Long> expected = sequential(log, log.size(), expectedResults);

        Snapshot snapshot;
        try (CounterReplica first = new CounterReplica(new Snapshot(0, Map.of()))) {
            for (Entry e : log.subList(0, snapshotAfter)) {
                first.apply(e);
            }
            snapshot = first.snapshot();                          // execution pauses here
            assertEquals(snapshotAfter, snapshot.index(), seed);
            assertEquals(sequential(log, snapshot.index(), new TreeMap<>()), snapshot.counters(), seed);
            for (Entry e : log.subList(snapshotAfter, log.size())) {
                first.apply(e);
            }
            assertEquals(expected, first.snapshot().counters(), seed);
            for (Entry e : log) {
                assertEquals(expectedResults.get(e.index()), first.results(e.index()), seed + ", entry " + e.index());
            }
        }

        // A restart: the snapshot, then the log after it. Entries it holds are skipped if replayed.
        try (CounterReplica restarted = new CounterReplica(snapshot)) {
            assertEquals(snapshot.index(), restarted.appliedIndex(), seed);
            restarted.apply(log.get(0));
            for (Entry e : log.subList((int) snapshot.index(), log.size())) {
                restarted.apply(e);
            }
            Snapshot end = restarted.snapshot();
            assertEquals(log.size(), end.index(), seed);
            assertEquals(expected, end.counters(), seed);
            assertNull(restarted.results(1), "entry 1 was in the snapshot, not executed again");
            for (Entry e : log.subList((int) snapshot.index(), log.size())) {
                assertEquals(expectedResults.get(e.index()), restarted.results(e.index()), seed + ", entry " + e.index());
            }
        }
    }

    @Test
    void theAppliedIndexCountsEntriesWithoutABatchBehindTheOnesBeforeThem() throws Exception {
        try (CounterReplica replica = new CounterReplica(new Snapshot(0, Map.of()))) {
            replica.apply(new Entry(1, List.of(new Add("a", 1), new Add("b", 2))));
            replica.apply(new Entry(2, List.of()));
            replica.apply(new Entry(3, List.of(new Add("a", 3))));
            Snapshot s = replica.snapshot();
            assertEquals(3, s.index());
            assertEquals(Map.of("a", 4L, "b", 2L), s.counters());
            assertEquals(List.of(1L, 2L), replica.results(1));
            assertNull(replica.results(2));
            assertEquals(List.of(4L), replica.results(3));
        }
    }
}
