package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.mlbft.PartitionQueues.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The claim MLBFT's determinism rests on: what each partition runs, in which order, how many deadlocks are resolved and
 * how, depend only on the orders the instances gave, never on when requests arrive at a replica or how its workers are
 * scheduled. Random per-instance orders full of opposite cross-border orders are replayed under many random
 * interleavings, each a replica, and compared with the first. Seeded: re-run a failure with {@code -Dpsmr.seed=S}.
 */
class PartitionQueuesDeterminismTest {

    private static final int CASES = 40;
    private static final int REPLICAS = 25;

    /**
     * What one replica did: per partition, the ids its worker ran (a cross-border one in each of its partitions), the
     * deadlocks and their digest; or, if a deadlock needed more than a queue's bound, that it stopped.
     */
    record Outcome(List<List<Long>> runs, long deadlocks, long resolutions, String stopped) {
        Outcome(List<List<Long>> runs, long deadlocks, long resolutions) {
            this(runs, deadlocks, resolutions, null);
        }
    }

    /** The orders the instances gave: per partition, its requests in order. */
    record Orders(int partitions, List<List<Ordered>> perPartition) {
    }

    record Ordered(long id, int[] partitions, int exec) {
    }

    @Test
    void everyInterleavingRunsTheSameOrdersAndResolvesTheSameDeadlocks() {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        Random random = new Random(seed);
        long deadlocksSeen = 0;
        int stops = 0;
        for (int c = 0; c < CASES; c++) {
            Orders orders = orders(random);
            int capacity = 2 + random.nextInt(30);
            Outcome reference = replay(orders, capacity, new Random(random.nextLong()));
            for (int r = 1; r < REPLICAS; r++) {
                Outcome other = replay(orders, capacity, new Random(random.nextLong()));
                assertEquals(reference, other, "case " + c + ", replica " + r + " differs from replica 0; re-run with"
                        + " -Dpsmr.seed=" + seed);
            }
            deadlocksSeen += Math.max(0, reference.deadlocks());
            stops += reference.stopped() == null ? 0 : 1;
        }
        assertTrue(stops < CASES / 2, stops + " of " + CASES + " cases stopped at the bound; seed " + seed);
        assertTrue(deadlocksSeen > CASES, "the cases must deadlock to test anything: " + deadlocksSeen
                + " deadlocks in " + CASES + " cases; seed " + seed);
    }

    /**
     * The comparison above catches a replica that resolved otherwise: requests 2 and 1, both of partitions {0, 1}, ordered
     * alike by both instances run 2 then 1 without a deadlock; ordered oppositely, they deadlock and 1 moves ahead. Had
     * a replica resolved that deadlock by moving 2 instead, its outcome would equal the first one's, not the second's.
     */
    @Test
    void aReplicaThatResolvesOtherwiseIsCaught() {
        int[] both = {0, 1};
        Ordered one = new Ordered(1, both, 0);
        Ordered two = new Ordered(2, both, 1);
        Outcome alike = replay(new Orders(2, List.of(List.of(two, one), List.of(two, one))), 4, new Random(1));
        Outcome opposite = replay(new Orders(2, List.of(List.of(two, one), List.of(one, two))), 4, new Random(1));
        assertEquals(0, alike.deadlocks());
        assertEquals(List.of(List.of(2L, 1L), List.of(2L, 1L)), alike.runs());
        assertEquals(1, opposite.deadlocks());
        assertEquals(List.of(List.of(1L, 2L), List.of(1L, 2L)), opposite.runs(), "the smallest id moved ahead");
        assertNotEquals(alike, opposite);
        assertNotEquals(alike.resolutions(), opposite.resolutions(), "the resolution digests tell them apart");
        assertEquals(opposite, replay(new Orders(2, List.of(List.of(two, one), List.of(one, two))), 4, new Random(99)),
                "the same orders agree under another interleaving");
    }

    /** Random per-partition orders: every cross-border request appears in each of its partitions, shuffled apart. */
    private static Orders orders(Random random) {
        int partitions = 2 + random.nextInt(5);
        int requests = 20 + random.nextInt(120);
        int crossPct = random.nextInt(101);
        List<List<Ordered>> per = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            per.add(new ArrayList<>());
        }
        for (int i = 0; i < requests; i++) {
            long id = 1 + random.nextInt(1_000_000) * 1_000L + i; // distinct, not in arrival order
            int[] of;
            if (partitions > 1 && random.nextInt(100) < crossPct) {
                int k = 2 + random.nextInt(Math.min(3, partitions - 1));
                List<Integer> all = new ArrayList<>();
                for (int p = 0; p < partitions; p++) {
                    all.add(p);
                }
                java.util.Collections.shuffle(all, random);
                of = all.subList(0, k).stream().mapToInt(Integer::intValue).sorted().toArray();
            } else {
                of = new int[] {random.nextInt(partitions)};
            }
            Ordered o = new Ordered(id, of, of[random.nextInt(of.length)]);
            for (int p : of) {
                List<Ordered> q = per.get(p);
                // Near the end, with a small random displacement: instances order the same requests differently.
                int at = Math.max(0, q.size() - random.nextInt(4));
                q.add(at, o);
            }
        }
        return new Orders(partitions, per);
    }

    /** One replica: arrivals and worker steps in a random interleaving, each partition's arrivals in its order. */
    private static Outcome replay(Orders orders, int capacity, Random random) {
        int n = orders.partitions();
        PartitionQueues<String> q = new PartitionQueues<>(n, capacity);
        int[] next = new int[n];
        List<List<Long>> runs = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            runs.add(new ArrayList<>());
        }
        List<Request<String>> running = new ArrayList<>();
        int total = orders.perPartition().stream().mapToInt(List::size).sum();
        int steps = 0;
        while (true) {
            List<Runnable> moves = new ArrayList<>();
            for (int p = 0; p < n; p++) {
                int partition = p;
                if (next[p] < orders.perPartition().get(p).size() && q.hasRoom(p)) {
                    moves.add(() -> {
                        Ordered o = orders.perPartition().get(partition).get(next[partition]++);
                        q.append(partition, o.id(), next[partition], o.partitions(), o.exec(), "r");
                    });
                }
                Request<String> head = q.next(p);
                if (head != null) {
                    running.add(head); // taken now; it finishes in a later step, others may start meanwhile
                    for (int x : head.partitions) {
                        runs.get(x).add(head.id);
                    }
                }
            }
            if (!running.isEmpty()) {
                moves.add(() -> q.finished(running.remove(random.nextInt(running.size()))));
            }
            if (moves.isEmpty()) {
                break;
            }
            try {
                moves.get(random.nextInt(moves.size())).run();
            } catch (IllegalStateException stop) {
                // Every replica must stop; which full queue it names first may differ, as other queues fill at their pace.
                assertTrue(stop.getMessage().endsWith("and a deadlock still waits for a request behind them"),
                        stop.getMessage());
                return new Outcome(List.of(), -1, 0, "stopped: a deadlock needs more than the bound");
            }
            if (++steps > 100 * total + 1000) {
                throw new AssertionError("no progress after " + steps + " steps: " + Arrays.toString(next));
            }
        }
        for (int p = 0; p < n; p++) {
            assertEquals(orders.perPartition().get(p).size(), next[p], "partition " + p + " did not take all its requests");
            assertEquals(0, q.size(p), "partition " + p + " still holds " + Arrays.toString(q.ids(p)));
        }
        return new Outcome(runs, q.deadlocks(), q.resolutionDigest());
    }
}
