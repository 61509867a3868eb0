package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExecutionStageTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261123L);

    /** Test requests are strings "client/number/body"; client and number are their identity. */
    static final RequestKeys<String> KEYS = new RequestKeys<>() {
        @Override
        public long client(String r) {
            return Long.parseLong(r.split("/")[0]);
        }

        @Override
        public long number(String r) {
            return Long.parseLong(r.split("/")[1]);
        }

        @Override
        public byte[] canonical(String r) {
            return r.getBytes(StandardCharsets.UTF_8);
        }
    };

    private static ExecutionStage<String> stage(int pillars, int window, int k) {
        return new ExecutionStage<>(pillars, window, k, 1, KEYS, new RequestDeduplicator(64, 16));
    }

    @Test
    void releasesInSequenceOrderAcrossPillarsAndSkipsEmpties() {
        ExecutionStage<String> s = stage(2, 8, 100);
        assertTrue(s.offer(2, "0/2/b"));
        assertNull(s.poll(), "seq 1 is missing: nothing may be released");
        assertEquals(OptionalLong.of(1), s.awaitedSeq());
        assertEquals(1, s.pillarOf(1));
        assertTrue(s.offerEmpty(1));
        assertTrue(s.offer(3, "0/3/c"));
        ExecutionStage.Released<String> r1 = s.poll();
        assertEquals(1, r1.seq());
        assertTrue(r1.isEmpty());
        assertEquals(0, r1.instance());
        ExecutionStage.Released<String> r2 = s.poll();
        assertEquals(2, r2.seq());
        assertEquals("0/2/b", r2.request());
        assertEquals(1, r2.instance(), "the first non-empty sequence number is delivered instance 1");
        ExecutionStage.Released<String> r3 = s.poll();
        assertEquals(3, r3.seq());
        assertEquals(2, r3.instance());
        assertNull(s.poll());
        assertEquals(OptionalLong.empty(), s.awaitedSeq(), "nothing buffered: no gap to fill");
        assertEquals(4, s.nextSeq());
        assertEquals(3, s.nextInstance());
    }

    @Test
    void refusesBeyondTheWindowAndAcceptsOnceItMoves() {
        ExecutionStage<String> s = stage(2, 4, 100);
        assertTrue(s.offer(4, "0/4/d"));
        assertFalse(s.offer(5, "0/5/e"), "window [1, 5) is full at 5");
        assertEquals(1, s.buffered());
        assertTrue(s.offer(1, "0/1/a"));
        assertEquals("0/1/a", s.poll().request());
        assertTrue(s.offer(5, "0/5/e"), "after releasing 1 the window is [2, 6)");
        assertFalse(s.offer(6, "0/6/f"));
    }

    @Test
    void refusesADoubleCommitWithAClearMessage() {
        ExecutionStage<String> s = stage(1, 4, 100);
        s.offer(2, "0/2/b");
        IllegalArgumentException buffered = assertThrows(IllegalArgumentException.class, () -> s.offer(2, "0/9/x"));
        assertEquals("sequence number 2 was committed twice: it is already buffered", buffered.getMessage());
        s.offer(1, "0/1/a");
        s.poll();
        IllegalArgumentException released = assertThrows(IllegalArgumentException.class, () -> s.offerEmpty(1));
        assertEquals("sequence number 1 was committed twice: it was already released (next to release is 2)",
                released.getMessage());
    }

    @Test
    void checkpointsAtMultiplesOfKRoundRobinOverPillarsWithAHashChain() {
        ExecutionStage<String> s = stage(2, 16, 3);
        List<ExecutionStage.Released<String>> cps = new ArrayList<>();
        for (long seq = 1; seq <= 12; seq++) {
            if (seq % 4 == 0) {
                s.offerEmpty(seq);
            } else {
                s.offer(seq, "0/" + seq + "/v");
            }
            ExecutionStage.Released<String> r = s.poll();
            if (r.isCheckpoint()) {
                cps.add(r);
            } else {
                assertEquals(-1, r.checkpointPillar());
            }
        }
        assertEquals(List.of(3L, 6L, 9L, 12L), cps.stream().map(ExecutionStage.Released::seq).toList());
        assertEquals(List.of(1, 0, 1, 0), cps.stream().map(ExecutionStage.Released::checkpointPillar).toList(),
                "checkpoint s goes to pillar (s / K) mod Np");
        assertArrayEquals(s.digest(), cps.get(3).checkpointDigest());
        assertFalse(Arrays.equals(cps.get(2).checkpointDigest(), cps.get(3).checkpointDigest()));
        // The chain is exactly the documented one.
        byte[] h = ExecutionStage.GENESIS.clone();
        for (long seq = 1; seq <= 3; seq++) {
            h = chain(h, seq, ("0/" + seq + "/v").getBytes(StandardCharsets.UTF_8));
        }
        assertArrayEquals(h, cps.get(0).checkpointDigest());
    }

    private static byte[] chain(byte[] prev, long seq, byte[] value) {
        try {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            md.update(prev);
            md.update(java.nio.ByteBuffer.allocate(13).putLong(seq).put((byte) 1).putInt(value.length).array());
            md.update(value);
            return md.digest();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void emptiesChangeTheDigest() {
        ExecutionStage<String> a = stage(2, 8, 2);
        ExecutionStage<String> b = stage(2, 8, 2);
        a.offer(1, "0/9/x");
        a.offerEmpty(2);
        b.offerEmpty(1);
        b.offer(2, "0/9/x");
        a.poll();
        b.poll();
        byte[] da = a.poll().checkpointDigest();
        byte[] db = b.poll().checkpointDigest();
        assertFalse(Arrays.equals(da, db), "the same value at another sequence number is another history");
    }

    @Test
    void aRequestCommittedTwiceIsDeliveredOnceAndTheNumberingStaysGapFree() {
        ExecutionStage<String> s = stage(2, 8, 100);
        s.offer(1, "5/1/a");
        s.offer(2, "5/2/b");
        s.offer(3, "5/1/a");
        s.offer(4, "5/3/c");
        assertEquals(1, s.poll().instance());
        assertEquals(2, s.poll().instance());
        ExecutionStage.Released<String> dup = s.poll();
        assertFalse(dup.isDelivered());
        assertFalse(dup.isEmpty());
        assertEquals(0, dup.instance());
        assertEquals(3, s.poll().instance());
    }

    @Test
    void stableReportsOnlyNewerCheckpoints() {
        ExecutionStage<String> s = stage(2, 8, 2);
        assertTrue(s.stable(4));
        assertFalse(s.stable(2));
        assertFalse(s.stable(4));
        assertTrue(s.stable(6));
        assertEquals(6, s.lastStable());
    }

    @Test
    void badConfigurationIsRefused() {
        assertEquals("pillars must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> stage(0, 1, 1)).getMessage());
        assertEquals("window must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> stage(1, 0, 1)).getMessage());
        assertEquals("checkpointInterval must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> stage(1, 1, 0)).getMessage());
    }

    /**
     * Many replicas' stages see the same committed instances in different random interleavings across pillars (each
     * pillar committing its own numbers in its own order, within the window): all release the same sequence, the
     * same delivered numbering and the same checkpoint digests.
     */
    @Test
    void randomInterleavingsOfPillarOutputsReleaseTheSameSequence() {
        for (int round = 0; round < 50; round++) {
            long seed = SEED + round;
            try {
                checkInterleavings(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " (rerun with -Dpsmr.seed=" + seed + "): " + e.getMessage(), e);
            }
        }
    }

    private static void checkInterleavings(long seed) {
        Random rnd = new Random(seed);
        int pillars = 1 + rnd.nextInt(4);
        int window = pillars * (2 + rnd.nextInt(8));
        int k = 1 + rnd.nextInt(10);
        int total = 200 + rnd.nextInt(200);
        // The committed outcome of every sequence number: empty (null) about one time in five.
        Map<Long, String> committed = new HashMap<>();
        // Empty about one time in five; about one in ten repeats a recent request (committed twice).
        for (long seq = 1; seq <= total; seq++) {
            int dice = rnd.nextInt(10);
            String v = dice < 2 ? null : "7/" + seq + "/req-" + seed;
            if (dice == 2 && seq > 20) {
                v = committed.get(seq - 1 - rnd.nextInt(20));
            }
            committed.put(seq, v);
        }
        List<String> expectedDelivered = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (long seq = 1; seq <= total; seq++) {
            String v = committed.get(seq);
            if (v != null && seen.add(v)) {
                expectedDelivered.add(v);
            }
        }
        List<Object> reference = null;
        for (int replica = 0; replica < 4; replica++) {
            List<Object> trace = runReplica(new Random(seed * 31 + replica), pillars, window, k, total, committed);
            @SuppressWarnings("unchecked")
            List<String> delivered = (List<String>) trace.get(0);
            assertEquals(expectedDelivered, delivered, "replica " + replica + " delivered another sequence");
            if (reference == null) {
                reference = trace;
            } else {
                assertEquals(reference.get(1), trace.get(1), "replica " + replica + " has other checkpoint digests");
            }
        }
    }

    /** @return [delivered values in order (checked gap-free), checkpoint "seq@pillar:digest" strings] */
    private static List<Object> runReplica(Random rnd, int pillars, int window, int k, int total,
                                           Map<Long, String> committed) {
        ExecutionStage<String> s = stage(pillars, window, k);
        // Each pillar's outputs in a random order of its own (PBFT instances of one pillar may commit out of order),
        // but only within the window: a pillar holds what the stage refuses and offers it again later.
        List<ArrayDeque<Long>> pending = new ArrayList<>();
        for (int p = 0; p < pillars; p++) {
            List<Long> mine = new ArrayList<>();
            for (long seq = 1; seq <= total; seq++) {
                if (seq % pillars == p) {
                    mine.add(seq);
                }
            }
            // Local disorder within small blocks, like several instances of one pillar in flight.
            for (int i = 0; i + 1 < mine.size(); i += 2) {
                if (rnd.nextBoolean()) {
                    java.util.Collections.swap(mine, i, i + 1);
                }
            }
            pending.add(new ArrayDeque<>(mine));
        }
        List<String> delivered = new ArrayList<>();
        List<String> checkpoints = new ArrayList<>();
        long expectInstance = 1;
        long expectSeq = 1;
        int steps = 0;
        while (expectSeq <= total) {
            if (++steps > 1_000_000) {
                throw new AssertionError("no progress at seq " + expectSeq);
            }
            int p = rnd.nextInt(pillars);
            Long seq = pending.get(p).peek();
            if (seq != null) {
                String v = committed.get(seq);
                boolean taken = v == null ? s.offerEmpty(seq) : s.offer(seq, v);
                if (taken) {
                    pending.get(p).poll();
                } else {
                    assertTrue(seq >= s.nextSeq() + window, "refused inside the window: " + seq);
                }
            }
            assertTrue(s.buffered() <= window, "buffer above its bound");
            OptionalLong awaited = s.awaitedSeq();
            if (awaited.isPresent()) {
                assertEquals(expectSeq, awaited.getAsLong());
            }
            if (rnd.nextInt(3) == 0) {
                ExecutionStage.Released<String> r;
                while ((r = s.poll()) != null) {
                    assertEquals(expectSeq++, r.seq(), "a gap or a repeat in the released sequence");
                    assertEquals(committed.get(r.seq()), r.request());
                    if (r.isDelivered()) {
                        assertEquals(expectInstance++, r.instance(), "delivered instances must be gap-free");
                        delivered.add(r.request());
                    }
                    if (r.isCheckpoint()) {
                        checkpoints.add(r.seq() + "@" + r.checkpointPillar() + ":" + Arrays.toString(r.checkpointDigest()));
                    }
                }
            }
        }
        assertEquals(0, s.buffered());
        return List.of(delivered, checkpoints);
    }
}
