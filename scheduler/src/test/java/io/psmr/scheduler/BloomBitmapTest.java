package io.psmr.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.BitSet;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks that the Roaring and dense Bloom bitmaps agree with a {@link BitSet} oracle and with each other. */
class BloomBitmapTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x5EED_B17L);

    private static String where(int m, long trial) {
        return " [m=" + m + ", psmr.seed=" + SEED + ", trial " + trial + "]";
    }

    /** A random bit set of {@code m} bits in one of several shapes: empty, sparse, clustered, dense. */
    private static BitSet randomBits(Random rnd, int m) {
        BitSet s = new BitSet(m);
        int shape = rnd.nextInt(6);
        switch (shape) {
            case 0 -> {
                // empty
            }
            case 1 -> s.set(rnd.nextInt(m));
            case 2 -> {
                // sparse: like a batch's few hundred keys
                int n = rnd.nextInt(Math.min(m, 600) + 1);
                for (int i = 0; i < n; i++) {
                    s.set(rnd.nextInt(m));
                }
            }
            case 3 -> {
                // a cluster: bits in a narrow window, so dense word ranges and Roaring runs matter
                int width = 1 + rnd.nextInt(Math.min(m, 5000));
                int from = rnd.nextInt(m - width + 1);
                int n = rnd.nextInt(width + 1);
                for (int i = 0; i < n; i++) {
                    s.set(from + rnd.nextInt(width));
                }
            }
            case 4 -> {
                // a full run
                int width = 1 + rnd.nextInt(Math.min(m, 70_000));
                int from = rnd.nextInt(m - width + 1);
                s.set(from, from + width);
            }
            default -> {
                // dense enough for Roaring's bitmap containers (over 4096 values per 65536 chunk)
                int n = Math.min(m, 1 + rnd.nextInt(20_000));
                for (int i = 0; i < n; i++) {
                    s.set(rnd.nextInt(m));
                }
            }
        }
        return s;
    }

    private static BloomBitmap fill(BitmapRepresentation r, int m, BitSet bits, Random rnd) {
        BloomBitmap b = BloomBitmap.create(r, m);
        int[] order = bits.stream().toArray();
        // set in a shuffled order with some repetitions: the result must not depend on the order
        for (int i = order.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int bit : order) {
            b.set(bit);
            if (rnd.nextInt(8) == 0) {
                b.set(bit);
            }
        }
        if (b instanceof RoaringBloomBitmap rb && rnd.nextBoolean()) {
            rb.optimize();
        }
        return b;
    }

    private static int[] setBits(BloomBitmap b) {
        IntStream.Builder out = IntStream.builder();
        b.forEachSetBit(out::add);
        return out.build().toArray();
    }

    private static void assertMatches(BitSet expected, BloomBitmap b, int m, Random rnd, String ctx) {
        assertEquals(m, b.sizeBits(), "sizeBits" + ctx);
        assertEquals(expected.cardinality(), b.cardinality(), "cardinality" + ctx);
        assertArrayEquals(expected.stream().toArray(), setBits(b), "forEachSetBit order and content" + ctx);
        if (m <= 5_000) {
            for (int i = 0; i < m; i++) {
                if (expected.get(i) != b.get(i)) {
                    assertEquals(expected.get(i), b.get(i), "get(" + i + ")" + ctx);
                }
            }
        } else {
            for (int i = expected.nextSetBit(0); i >= 0; i = expected.nextSetBit(i + 1)) {
                if (!b.get(i)) {
                    assertTrue(b.get(i), "get(" + i + ")" + ctx);
                }
                if (i + 1 < m && expected.get(i + 1) != b.get(i + 1)) {
                    assertEquals(expected.get(i + 1), b.get(i + 1), "get(" + (i + 1) + ")" + ctx);
                }
            }
            for (int k = 0; k < 2000; k++) {
                int i = rnd.nextInt(m);
                if (expected.get(i) != b.get(i)) {
                    assertEquals(expected.get(i), b.get(i), "get(" + i + ")" + ctx);
                }
            }
            assertEquals(expected.get(0), b.get(0), "get(0)" + ctx);
            assertEquals(expected.get(m - 1), b.get(m - 1), "get(m-1)" + ctx);
        }
    }

    @ParameterizedTest(name = "m={0}")
    @ValueSource(ints = {1, 2, 63, 64, 65, 127, 128, 129, 1000, 65_536, 65_537, 102_400, 1_024_000})
    void representationsAgreeWithBitSetOracle(int m) {
        int trials = m >= 1_000_000 ? 40 : m >= 100_000 ? 80 : 300;
        Random rnd = new Random(SEED * 31 + m);
        BitSet prevExpected = null;
        BloomBitmap prevRoaring = null;
        BloomBitmap prevDense = null;
        for (int trial = 0; trial < trials; trial++) {
            String ctx = where(m, trial);
            BitSet expected = randomBits(rnd, m);
            BloomBitmap roaring = fill(BitmapRepresentation.ROARING, m, expected, rnd);
            BloomBitmap dense = fill(BitmapRepresentation.DENSE, m, expected, rnd);
            assertEquals(BitmapRepresentation.ROARING, roaring.representation());
            assertEquals(BitmapRepresentation.DENSE, dense.representation());
            assertMatches(expected, roaring, m, rnd, " (ROARING)" + ctx);
            assertMatches(expected, dense, m, rnd, " (DENSE)" + ctx);

            boolean selfNonEmpty = !expected.isEmpty();
            assertEquals(selfNonEmpty, roaring.intersects(roaring), "roaring self-intersection" + ctx);
            assertEquals(selfNonEmpty, dense.intersects(dense), "dense self-intersection" + ctx);

            // Intersections with the previous trial's bitmaps and with a correlated bitmap.
            BitSet other = prevExpected != null && rnd.nextBoolean() ? prevExpected : perturb(expected, rnd, m);
            BloomBitmap otherRoaring = other == prevExpected ? prevRoaring : fill(BitmapRepresentation.ROARING, m, other, rnd);
            BloomBitmap otherDense = other == prevExpected ? prevDense : fill(BitmapRepresentation.DENSE, m, other, rnd);
            boolean want = expected.intersects(other);
            assertEquals(want, roaring.intersects(otherRoaring), "roaring intersects" + ctx);
            assertEquals(want, otherRoaring.intersects(roaring), "roaring intersects, reversed" + ctx);
            assertEquals(want, dense.intersects(otherDense), "dense intersects" + ctx);
            assertEquals(want, otherDense.intersects(dense), "dense intersects, reversed" + ctx);

            prevExpected = expected;
            prevRoaring = roaring;
            prevDense = dense;
        }
    }

    /** A set that shares bits with {@code s} about half the time, and otherwise lies near it. */
    private static BitSet perturb(BitSet s, Random rnd, int m) {
        BitSet o = new BitSet(m);
        int[] bits = s.stream().toArray();
        int n = bits.length == 0 ? rnd.nextInt(4) : 1 + rnd.nextInt(Math.min(bits.length, 50));
        boolean share = rnd.nextBoolean();
        for (int i = 0; i < n; i++) {
            if (bits.length == 0) {
                o.set(rnd.nextInt(m));
                continue;
            }
            int b = bits[rnd.nextInt(bits.length)];
            int candidate = share && i == 0 ? b : b + rnd.nextInt(129) - 64;
            if (candidate >= 0 && candidate < m && (share || !s.get(candidate))) {
                o.set(candidate);
            }
        }
        return o;
    }

    @Test
    void addDigestSetsTheBitIndex() {
        Random rnd = new Random(SEED ^ 0xADD);
        for (int trial = 0; trial < 2000; trial++) {
            int m = trial % 3 == 0 ? 1 + rnd.nextInt(200) : trial % 3 == 1 ? 102_400 : 1_024_000;
            long d = rnd.nextLong();
            for (BitmapRepresentation r : BitmapRepresentation.values()) {
                BloomBitmap b = BloomBitmap.create(r, m);
                b.addDigest(d);
                assertEquals(1, b.cardinality(), r + where(m, trial));
                assertTrue(b.get(KeyDigest.bitIndex(d, m)), r + " bit of digest " + d + where(m, trial));
            }
        }
    }

    @Test
    void intersectingDifferentSizesOrRepresentationsIsRefused() {
        for (BitmapRepresentation r : BitmapRepresentation.values()) {
            BloomBitmap a = BloomBitmap.create(r, 64);
            BloomBitmap b = BloomBitmap.create(r, 65);
            a.set(3);
            b.set(3);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.intersects(b), r.name());
            assertEquals("bitmap size mismatch: 64 bits against 65 bits", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> b.intersects(a), r.name());
            assertEquals("bitmap size mismatch: 65 bits against 64 bits", e.getMessage());
        }
        BloomBitmap roaring = BloomBitmap.create(BitmapRepresentation.ROARING, 1024);
        BloomBitmap dense = BloomBitmap.create(BitmapRepresentation.DENSE, 1024);
        roaring.set(7);
        dense.set(7);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> roaring.intersects(dense));
        assertEquals("bitmap representation mismatch: ROARING against DENSE", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> dense.intersects(roaring));
        assertEquals("bitmap representation mismatch: DENSE against ROARING", e.getMessage());
        // Both differ: the size is named first.
        BloomBitmap denseOther = BloomBitmap.create(BitmapRepresentation.DENSE, 2048);
        e = assertThrows(IllegalArgumentException.class, () -> roaring.intersects(denseOther));
        assertTrue(e.getMessage().contains("1024") && e.getMessage().contains("2048"), e.getMessage());
    }

    @Test
    void outOfRangeBitsAndSizesAreRejected() {
        for (BitmapRepresentation r : BitmapRepresentation.values()) {
            for (int m : new int[] {1, 63, 64, 65, 102_400}) {
                BloomBitmap b = BloomBitmap.create(r, m);
                for (int bad : new int[] {-1, m, m + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
                    IllegalArgumentException e =
                            assertThrows(IllegalArgumentException.class, () -> b.set(bad), r + " set(" + bad + ") m=" + m);
                    assertEquals("bit " + bad + " outside a bitmap of " + m + " bits", e.getMessage());
                    e = assertThrows(IllegalArgumentException.class, () -> b.get(bad), r + " get(" + bad + ") m=" + m);
                    assertEquals("bit " + bad + " outside a bitmap of " + m + " bits", e.getMessage());
                }
                assertEquals(0, b.cardinality(), r + " a refused set must leave the bitmap empty, m=" + m);
                b.set(m - 1);
                assertTrue(b.get(m - 1));
                assertFalse(m > 1 && b.get(0));
            }
            for (int m : new int[] {0, -1, Integer.MIN_VALUE}) {
                IllegalArgumentException e =
                        assertThrows(IllegalArgumentException.class, () -> BloomBitmap.create(r, m), r + " m=" + m);
                assertEquals("bitmap size must be positive, got " + m, e.getMessage());
            }
        }
    }

    /**
     * {@code intersects} is on the scheduler's hot path and documented to allocate nothing. Measured
     * with the per-thread allocation counter over 100,000 calls after warm-up; a per-call
     * allocation of even 16 bytes would show as 1.6 MB.
     */
    @Test
    void intersectsAllocatesNothing() {
        java.lang.management.ThreadMXBean std = ManagementFactory.getThreadMXBean();
        assumeTrue(std instanceof com.sun.management.ThreadMXBean, "no com.sun.management.ThreadMXBean");
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) std;
        assumeTrue(mx.isThreadAllocatedMemorySupported(), "thread allocation counting unsupported");
        mx.setThreadAllocatedMemoryEnabled(true);
        Random rnd = new Random(SEED ^ 0xA110C);
        for (BitmapRepresentation r : BitmapRepresentation.values()) {
            int m = 102_400;
            BloomBitmap[] maps = new BloomBitmap[16];
            for (int i = 0; i < maps.length; i++) {
                maps[i] = BloomBitmap.create(r, m);
                for (int k = 0; k < 200; k++) {
                    maps[i].set(rnd.nextInt(m));
                }
                if (maps[i] instanceof RoaringBloomBitmap rb) {
                    rb.optimize();
                }
            }
            long sink = 0;
            for (int i = 0; i < 200_000; i++) {
                sink += maps[i & 15].intersects(maps[(i * 7 + 3) & 15]) ? 1 : 0;
            }
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                sink += maps[i & 15].intersects(maps[(i * 7 + 3) & 15]) ? 1 : 0;
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            assertTrue(sink > 0, "the workload must have intersections");
            assertTrue(allocated < 64 * 1024,
                    r + ": 100,000 intersects allocated " + allocated + " bytes; expected none");
        }
    }

    /** {@code toArray} is the set bits in increasing order, in both representations, empty included. */
    @Test
    void toArrayListsTheSetBitsInOrder() {
        long seed = 0x70A77A7L;
        Random rnd = new Random(seed);
        for (int round = 0; round < 200; round++) {
            int m = 1 + rnd.nextInt(rnd.nextBoolean() ? 200 : 1_024_000);
            int n = rnd.nextInt(300);
            BitSet oracle = new BitSet(m);
            for (BitmapRepresentation r : BitmapRepresentation.values()) {
                BloomBitmap b = BloomBitmap.create(r, m);
                Random bits = new Random(seed + round);
                for (int i = 0; i < n; i++) {
                    int bit = bits.nextInt(m);
                    b.set(bit);
                    oracle.set(bit);
                }
                assertArrayEquals(oracle.stream().toArray(), b.toArray(), r + " m " + m + " round " + round + " seed " + seed);
            }
            oracle.clear();
        }
    }

    @Test
    void aReadWriteSummaryListsItsWrittenBitsThenTheReadBitsNotAlsoWritten() {
        for (BitmapRepresentation r : BitmapRepresentation.values()) {
            BloomBitmap reads = BloomBitmap.create(r, 1024);
            BloomBitmap writes = BloomBitmap.create(r, 1024);
            for (int bit : new int[] {900, 3, 40, 512}) {
                reads.set(bit);
            }
            for (int bit : new int[] {700, 40, 5}) {
                writes.set(bit);
            }
            RwBitmapSummary s = new RwBitmapSummary(reads, writes);
            assertArrayEquals(new int[] {5, 40, 700, 3, 512, 900}, s.accessBits(), r + ": 40 is read and written: a write");
            assertEquals(3, s.writtenBits(), r.toString());
            RwBitmapSummary none = new RwBitmapSummary(BloomBitmap.create(r, 1024), BloomBitmap.create(r, 1024));
            assertEquals(0, none.accessBits().length, r.toString());
        }
    }
}
