package io.psmr.kvstore.mlbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.mlbft.PartitionQueues.Request;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The claim MLBFT's determinism rests on: what each partition runs, in which order, how many deadlocks are resolved and
 * how ({@link PartitionQueues#resolutionDigest()}), depend only on the orders the instances gave, never on when requests
 * arrive at a replica or how its workers are scheduled. Random per-instance orders full of opposite cross-border orders
 * are replayed under many random interleavings of arrivals, worker takes and worker finishes, each one a replica, and
 * compared with a first one. A second test runs a resolver that decides by arrival time under the same harness and
 * shows that the comparison catches it.
 *
 * <p>Seeded: a failure names its seed and the command that re-runs it ({@code -Dpsmr.seed=S}, or
 * {@code -Dpsmr.mlbft.seed=S}); {@code -Dpsmr.mlbft.cases=C} and {@code -Dpsmr.mlbft.interleavings=K} scale it.
 */
class PartitionQueuesDeterminismTest {

    private static final int CASES = Integer.getInteger("psmr.mlbft.cases", 10);
    /** Interleavings compared with each case's first one. */
    private static final int INTERLEAVINGS = Integer.getInteger("psmr.mlbft.interleavings", 200);

    /**
     * What one replica did: per partition, the ids its worker ran (a cross-border one counts in each of its partitions),
     * the deadlocks and their digest; or, if a deadlock needed more than a queue's bound, that it stopped.
     */
    record Outcome(List<List<Long>> runs, long deadlocks, long resolutions, boolean stopped) {
        static Outcome stop() {
            return new Outcome(List.of(), -1, 0, true);
        }

        @Override
        public String toString() {
            return stopped ? "stopped at the bound" : "deadlocks " + deadlocks + ", resolutions "
                    + Long.toHexString(resolutions) + ", runs " + runs;
        }
    }

    /** The orders the instances gave: per partition, its requests in its instance's order. */
    record Orders(int partitions, List<List<Ordered>> perPartition) {
        int total() {
            return perPartition.stream().mapToInt(List::size).sum();
        }
    }

    /** One request as ordered: its id, partitions (ascending) and exec partition. */
    record Ordered(long id, int[] partitions, int exec) {
        @Override
        public String toString() {
            return Long.toUnsignedString(id, 16) + Arrays.toString(partitions) + "@" + exec;
        }
    }

    /** The execution stage as the harness drives it. */
    interface Stage {
        boolean hasRoom(int p);

        /** @throws IllegalStateException if a deadlock needs more room than the bound */
        void append(int p, long instance, Ordered o);

        /** What partition p's worker takes now, or null. */
        Ordered next(int p);

        void finished(Ordered o);

        long deadlocks();

        long resolutions();

        int size(int p);
    }

    /** {@link PartitionQueues}, under test. */
    static final class RealStage implements Stage {
        private final PartitionQueues<Ordered> queues;
        private final Map<Ordered, Request<Ordered>> running = new IdentityHashMap<>();

        RealStage(int partitions, int capacity) {
            queues = new PartitionQueues<>(partitions, capacity);
        }

        @Override
        public boolean hasRoom(int p) {
            return queues.hasRoom(p);
        }

        @Override
        public void append(int p, long instance, Ordered o) {
            assertEquals(PartitionQueues.Appended.QUEUED, queues.append(p, o.id(), instance, o.partitions(), o.exec(), o));
        }

        @Override
        public Ordered next(int p) {
            Request<Ordered> r = queues.next(p);
            if (r == null) {
                return null;
            }
            assertEquals(p, r.execPartition, r + " runs on its exec partition's worker");
            running.put(r.payload, r);
            return r.payload;
        }

        @Override
        public void finished(Ordered o) {
            queues.finished(running.remove(o));
        }

        @Override
        public long deadlocks() {
            return queues.deadlocks();
        }

        @Override
        public long resolutions() {
            return queues.resolutionDigest();
        }

        @Override
        public int size(int p) {
            return queues.size(p);
        }
    }

    @Test
    void everyInterleavingRunsTheSameOrdersAndResolvesTheSameDeadlocks() {
        long seed = seed();
        Random random = new Random(seed);
        long casesWithDeadlocks = 0;
        long deadlocksSeen = 0;
        int stops = 0;
        int ran = 0; // cases that ran to the end, not stopped at the bound
        int c = 0;
        for (; ran < CASES && c < 3 * CASES; c++) {
            long caseSeed = random.nextLong();
            Random caseRandom = new Random(caseSeed);
            Orders orders = orders(caseRandom);
            // Mostly roomy queues; a quarter small, where deadlocks wait for requests behind full queues (or stop).
            int capacity = caseRandom.nextInt(4) == 0 ? 3 + caseRandom.nextInt(8) : 16 + caseRandom.nextInt(400);
            String context = "case " + c + " (" + orders.partitions() + " partitions, " + orders.total() + " copies, queue"
                    + " capacity " + capacity + "); " + rerun(seed);
            Outcome reference = replay(orders, () -> new RealStage(orders.partitions(), capacity),
                    new Random(caseRandom.nextLong()), context);
            for (int k = 1; k <= INTERLEAVINGS; k++) {
                Outcome other = replay(orders, () -> new RealStage(orders.partitions(), capacity),
                        new Random(caseRandom.nextLong()), context);
                if (!other.equals(reference)) {
                    assertEquals(reference.toString(), other.toString(), "interleaving " + k + " differs from the first: "
                            + context + "\norders: " + orders.perPartition());
                }
            }
            stops += reference.stopped() ? 1 : 0;
            ran += reference.stopped() ? 0 : 1;
            if (reference.deadlocks() > 0) {
                casesWithDeadlocks++;
                deadlocksSeen += reference.deadlocks();
            }
        }
        System.out.println("MLBFT determinism: " + c + " cases x " + (1 + INTERLEAVINGS) + " interleavings, "
                + casesWithDeadlocks + " with deadlocks (" + deadlocksSeen + " in all), " + stops + " stopped at the bound; "
                + "seed " + seed);
        assertEquals(CASES, ran, "too many cases stopped at the bound (" + stops + " of " + c + "); " + rerun(seed));
        assertTrue(casesWithDeadlocks >= Math.max(1, CASES / 3), "the cases must deadlock to test anything: "
                + casesWithDeadlocks + " of " + c + " cases did (" + deadlocksSeen + " deadlocks); " + rerun(seed));
    }

    /**
     * The comparison above catches a replica that resolved otherwise. First by hand: requests 2 and 1, both of
     * partitions {0, 1}, ordered alike by both instances run 2 then 1 without a deadlock; ordered oppositely, they
     * deadlock and 1 moves ahead; a replica that moved 2 instead would report the first outcome, not the second.
     */
    @Test
    void aReplicaThatResolvesOtherwiseIsCaught() {
        int[] both = {0, 1};
        Ordered one = new Ordered(1, both, 0);
        Ordered two = new Ordered(2, both, 1);
        Orders alikeOrders = new Orders(2, List.of(List.of(two, one), List.of(two, one)));
        Orders oppositeOrders = new Orders(2, List.of(List.of(two, one), List.of(one, two)));
        Outcome alike = replay(alikeOrders, () -> new RealStage(2, 4), new Random(1), "alike");
        Outcome opposite = replay(oppositeOrders, () -> new RealStage(2, 4), new Random(1), "opposite");
        assertEquals(0, alike.deadlocks());
        assertEquals(List.of(List.of(2L, 1L), List.of(2L, 1L)), alike.runs());
        assertEquals(1, opposite.deadlocks());
        assertEquals(List.of(List.of(1L, 2L), List.of(1L, 2L)), opposite.runs(), "the smallest id moved ahead");
        assertNotEquals(alike, opposite);
        assertNotEquals(alike.resolutions(), opposite.resolutions(), "the resolution digests tell them apart");
        for (int s = 0; s < 50; s++) {
            assertEquals(opposite, replay(oppositeOrders, () -> new RealStage(2, 4), new Random(s), "opposite"),
                    "the same orders agree under another interleaving");
        }
    }

    /**
     * The harness itself catches a resolver that decides by arrival time: {@link ByArrivalStage} resolves any cycle of
     * blocked queues as soon as it forms, moving the head whose first copy arrived first. Replayed on the same kind of
     * orders, some interleavings disagree with the first, so a PartitionQueues that did so would fail the test above.
     */
    @Test
    void aResolverThatDependsOnArrivalsIsCaught() {
        long seed = seed();
        Random random = new Random(seed);
        int caught = 0;
        int tried = 0;
        for (int c = 0; c < 40 && caught < 3; c++) {
            Orders orders = orders(random);
            Outcome reference = replay(orders, () -> new ByArrivalStage(orders.partitions()), new Random(random.nextLong()),
                    "by arrival");
            if (reference.deadlocks() == 0) {
                continue;
            }
            tried++;
            for (int k = 0; k < 50; k++) {
                Outcome other = replay(orders, () -> new ByArrivalStage(orders.partitions()), new Random(random.nextLong()),
                        "by arrival");
                if (!other.equals(reference)) {
                    caught++;
                    break;
                }
            }
        }
        assertTrue(caught >= 3, "a resolver by arrival time went unnoticed: caught in " + caught + " of " + tried
                + " cases with deadlocks; " + rerun(seed));
    }

    /**
     * Random per-partition orders: every cross-border request is in each of its partitions, displaced apart. Two to six
     * partitions are used; in one case of five they are spread over 64, always with 63, the top bit of the resolver's
     * sets.
     */
    static Orders orders(Random random) {
        int used = 2 + random.nextInt(5);
        boolean wide = random.nextInt(5) == 0;
        int partitions = wide ? 64 : used;
        int requests = 100 + random.nextInt(300);
        int crossPct = random.nextInt(101);
        int displacement = 1 + random.nextInt(8);
        List<List<Ordered>> per = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            per.add(new ArrayList<>());
        }
        Set<Long> ids = new HashSet<>();
        List<Integer> all = new ArrayList<>();
        if (wide) {
            all.add(63);
            List<Integer> others = new ArrayList<>();
            for (int p = 0; p < 63; p++) {
                others.add(p);
            }
            Collections.shuffle(others, random);
            all.addAll(others.subList(0, used - 1));
        } else {
            for (int p = 0; p < partitions; p++) {
                all.add(p);
            }
        }
        for (int i = 0; i < requests; i++) {
            long id;
            do {
                // Mostly small ids; some with the top bit set, which the resolver compares unsigned.
                id = random.nextInt(8) == 0 ? random.nextLong() : 1 + random.nextInt(1 << 20);
            } while (id == 0 || !ids.add(id));
            int[] of;
            if (random.nextInt(100) < crossPct) {
                int k = 2 + random.nextInt(used - 1);
                Collections.shuffle(all, random);
                of = all.subList(0, k).stream().mapToInt(Integer::intValue).sorted().toArray();
            } else {
                of = new int[] {all.get(random.nextInt(used))};
            }
            Ordered o = new Ordered(id, of, of[random.nextInt(of.length)]);
            for (int p : of) {
                List<Ordered> q = per.get(p);
                // Near the end of each instance's order, displaced at random: instances order the same requests
                // differently, so cross-border requests head their queues in opposite orders.
                q.add(Math.max(0, q.size() - random.nextInt(displacement + 1)), o);
            }
        }
        return new Orders(partitions, per);
    }

    /**
     * One replica: at each step, at random, an instance delivers its next request to a queue with room, a worker takes
     * what it may run, or a running request finishes (several may run at once, on different partitions).
     */
    static Outcome replay(Orders orders, Supplier<Stage> stages, Random random, String context) {
        int n = orders.partitions();
        Stage stage = stages.get();
        int[] next = new int[n];
        List<List<Long>> runs = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            runs.add(new ArrayList<>());
        }
        List<Ordered> running = new ArrayList<>();
        boolean[] idle = new boolean[n]; // took nothing since the queues last changed
        int steps = 0;
        int limit = 20 * orders.total() + 1000;
        // Each replica's own pace: some instances deliver up to 64 times faster than others, workers are quick or slow.
        int[] weights = new int[2 * n + 1];
        for (int p = 0; p < n; p++) {
            weights[p] = 1 << random.nextInt(7);
            weights[n + p] = 1 << random.nextInt(4);
        }
        weights[2 * n] = 1 << random.nextInt(4);
        int[] moves = new int[2 * n + 1];
        while (true) {
            int m = 0;
            int total = 0;
            for (int p = 0; p < n; p++) {
                if (next[p] < orders.perPartition().get(p).size() && stage.hasRoom(p)) {
                    moves[m++] = p; // deliver to p
                    total += weights[p];
                }
                if (!idle[p] && stage.size(p) > 0) {
                    moves[m++] = n + p; // p's worker looks
                    total += weights[n + p];
                }
            }
            if (!running.isEmpty()) {
                moves[m++] = 2 * n; // one finishes
                total += weights[2 * n];
            }
            if (m == 0) {
                break;
            }
            int pick = random.nextInt(total);
            int move = -1;
            for (int i = 0; move < 0; i++) {
                pick -= weights[moves[i]];
                if (pick < 0) {
                    move = moves[i];
                }
            }
            try {
                if (move < n) {
                    Ordered o = orders.perPartition().get(move).get(next[move]++);
                    stage.append(move, next[move], o);
                    Arrays.fill(idle, false);
                } else if (move < 2 * n) {
                    int p = move - n;
                    Ordered o = stage.next(p);
                    if (o == null) {
                        idle[p] = true;
                    } else {
                        assertNull(running.stream().filter(r -> r == o).findAny().orElse(null), o + " taken twice");
                        running.add(o);
                        for (int x : o.partitions()) {
                            runs.get(x).add(o.id());
                        }
                    }
                } else {
                    stage.finished(running.remove(random.nextInt(running.size())));
                    Arrays.fill(idle, false);
                }
            } catch (IllegalStateException stop) {
                // Every replica stops; which full queue it names first may differ, as queues fill at their own pace.
                assertTrue(stop.getMessage() != null
                        && stop.getMessage().endsWith("and a deadlock still waits for a request behind them"),
                        stop.getMessage() + "; " + context);
                return Outcome.stop();
            }
            if (++steps > limit) {
                throw new AssertionError("no end after " + steps + " steps, delivered " + Arrays.toString(next) + "; "
                        + context);
            }
        }
        for (int p = 0; p < n; p++) {
            assertEquals(orders.perPartition().get(p).size(), next[p], "partition " + p + " did not take all its requests; "
                    + context);
            assertEquals(0, stage.size(p), "partition " + p + " is stuck with " + stage.size(p) + " requests; " + context);
        }
        return new Outcome(runs, stage.deadlocks(), stage.resolutions(), false);
    }

    private static long seed() {
        return Long.getLong("psmr.mlbft.seed", Long.getLong("psmr.seed", System.nanoTime()));
    }

    private static String rerun(long seed) {
        return "seed " + seed + "; re-run with: mvn -B -o -pl kvstore test -Dtest='io.psmr.kvstore.mlbft."
                + "PartitionQueuesDeterminismTest' -Dsurefire.failIfNoSpecifiedTests=false -Dpsmr.seed=" + seed;
    }

    /**
     * A resolver as one might naively write it, for the harness to catch: unbounded queues, the same run rule, but a
     * deadlock is any cycle of blocked queues, resolved as soon as it forms, by moving the head whose first copy
     * arrived first (not the smallest id) to the head of its queues, once it arrived everywhere and no head it jumps
     * runs.
     */
    static final class ByArrivalStage implements Stage {
        private final class Req {
            final Ordered o;
            final long firstArrival;
            int arrived;
            boolean running;

            Req(Ordered o, long firstArrival) {
                this.o = o;
                this.firstArrival = firstArrival;
            }
        }

        private final int n;
        private final List<ArrayDeque<Req>> queues = new ArrayList<>();
        private final Map<Long, Req> byId = new HashMap<>();
        private long arrivals;
        private long deadlocks;
        private long digest;

        ByArrivalStage(int n) {
            this.n = n;
            for (int p = 0; p < n; p++) {
                queues.add(new ArrayDeque<>());
            }
        }

        @Override
        public boolean hasRoom(int p) {
            return true;
        }

        @Override
        public void append(int p, long instance, Ordered o) {
            Req r = byId.computeIfAbsent(o.id(), id -> new Req(o, ++arrivals));
            r.arrived++;
            queues.get(p).addLast(r);
            resolve();
        }

        @Override
        public Ordered next(int p) {
            Req h = queues.get(p).peekFirst();
            if (h == null || h.running || h.o.exec() != p || !headsAll(h)) {
                return null;
            }
            h.running = true;
            return h.o;
        }

        @Override
        public void finished(Ordered o) {
            Req r = byId.get(o.id());
            for (int p : o.partitions()) {
                if (queues.get(p).pollFirst() != r) {
                    throw new AssertionError(o + " did not head " + p);
                }
            }
            resolve();
        }

        @Override
        public long deadlocks() {
            return deadlocks;
        }

        @Override
        public long resolutions() {
            return digest;
        }

        @Override
        public int size(int p) {
            return queues.get(p).size();
        }

        private boolean headsAll(Req r) {
            for (int p : r.o.partitions()) {
                if (queues.get(p).peekFirst() != r) {
                    return false;
                }
            }
            return true;
        }

        /** Queues p's head waits for (headed by another request), or null if p is not blocked on present heads. */
        private List<Integer> waits(int p) {
            Req h = queues.get(p).peekFirst();
            if (h == null || h.running || h.o.partitions().length == 1 || headsAll(h)) {
                return null;
            }
            List<Integer> out = new ArrayList<>();
            for (int q : h.o.partitions()) {
                Req other = queues.get(q).peekFirst();
                if (other == null) {
                    return null;
                }
                if (other != h) {
                    out.add(q);
                }
            }
            return out;
        }

        private void resolve() {
            boolean again = true;
            while (again) {
                again = false;
                for (int p = 0; p < n && !again; p++) {
                    List<Integer> cycle = cycleFrom(p, new ArrayList<>());
                    if (cycle == null) {
                        continue;
                    }
                    Req victim = null;
                    for (int q : cycle) {
                        Req h = queues.get(q).peekFirst();
                        if (victim == null || h.firstArrival < victim.firstArrival) {
                            victim = h;
                        }
                    }
                    if (victim.arrived < victim.o.partitions().length || jumpsARunningHead(victim)) {
                        continue;
                    }
                    for (int q : victim.o.partitions()) {
                        queues.get(q).remove(victim);
                        queues.get(q).addFirst(victim);
                    }
                    deadlocks++;
                    digest = digest * 31 + victim.o.id();
                    again = true;
                }
            }
        }

        private boolean jumpsARunningHead(Req victim) {
            for (int q : victim.o.partitions()) {
                Req h = queues.get(q).peekFirst();
                if (h != null && h.running) {
                    return true;
                }
            }
            return false;
        }

        /** A cycle of blocked queues back to path's first, depth first, or null. */
        private List<Integer> cycleFrom(int p, List<Integer> path) {
            List<Integer> w = waits(p);
            if (w == null) {
                return null;
            }
            path.add(p);
            for (int q : w) {
                if (q == path.get(0)) {
                    return path;
                }
                if (!path.contains(q)) {
                    List<Integer> c = cycleFrom(q, path);
                    if (c != null) {
                        return c;
                    }
                }
            }
            path.remove(path.size() - 1);
            return null;
        }
    }
}
