package io.psmr.scheduler;

import io.psmr.scheduler.testing.KeyCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Property test of every conflict mode against the true key-level conflict relation: no false negatives, ever. */
class ConflictSummaryPropertyTest {

    /** Base seed; re-run a failure with {@code -Dpsmr.seed=<seed>}. */
    private static final long SEED = Long.getLong("psmr.seed", 0x5EED_C0F1L);

    /** Pairs of batches per detection setting. */
    private static final int PAIRS = 3000;


    /** How one trial draws its batches: a key space, an encoding, a write ratio and batch sizes. */
    private record Workload(long keySpace, boolean stringKeys, double writeRatio, int maxBatch) {

        static Workload random(Random rnd) {
            long space = Math.max(1, Math.round(Math.pow(10, rnd.nextDouble() * 6)));
            double[] ratios = {0, 0.05, 0.5, 0.95, 1};
            int maxBatch = rnd.nextInt(4) == 0 ? 256 : 1 + rnd.nextInt(16);
            return new Workload(space, rnd.nextBoolean(), ratios[rnd.nextInt(ratios.length)], maxBatch);
        }

        byte[] key(long k) {
            if (stringKeys) {
                return ("k" + k).getBytes(StandardCharsets.US_ASCII);
            }
            return ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(k).array();
        }

        List<KeyCommand> batch(Random rnd) {
            int n = 1 + rnd.nextInt(maxBatch);
            List<KeyCommand> cmds = new ArrayList<>(n);
            for (int c = 0; c < n; c++) {
                int keys = rnd.nextInt(20) == 0 ? 0 : 1 + rnd.nextInt(3);
                byte[][] ks = new byte[keys][];
                boolean[] ws = new boolean[keys];
                for (int i = 0; i < keys; i++) {
                    ks[i] = key((long) (rnd.nextDouble() * keySpace));
                    ws[i] = rnd.nextDouble() < writeRatio;
                }
                cmds.add(new KeyCommand(ks, ws));
            }
            return cmds;
        }
    }

    /** Each distinct key of a batch, mapped to whether any command writes it. */
    private static Map<ByteBuffer, Boolean> access(List<KeyCommand> batch) {
        Map<ByteBuffer, Boolean> m = new HashMap<>();
        for (KeyCommand c : batch) {
            for (int i = 0; i < c.keyCount(); i++) {
                m.merge(ByteBuffer.wrap(c.key(i)), c.writes(i), Boolean::logicalOr);
            }
        }
        return m;
    }

    /** Whether the batches share a key at all ({@code anyAccess}) or a key one of them writes. */
    private static boolean[] trueConflicts(Map<ByteBuffer, Boolean> a, Map<ByteBuffer, Boolean> b) {
        boolean any = false;
        boolean rw = false;
        for (Map.Entry<ByteBuffer, Boolean> e : a.entrySet()) {
            Boolean other = b.get(e.getKey());
            if (other != null) {
                any = true;
                if (other || e.getValue()) {
                    rw = true;
                    break;
                }
            }
        }
        return new boolean[] {any, rw};
    }

    /** Bits of the batch's keys, computed with Guava rather than KeyDigest: [all, read, written]. */
    private static BitSet[] oracleBits(List<KeyCommand> batch, int m) {
        BitSet all = new BitSet();
        BitSet reads = new BitSet();
        BitSet writes = new BitSet();
        for (KeyCommand c : batch) {
            for (int i = 0; i < c.keyCount(); i++) {
                long d = Hashing.murmur3_128(0).hashBytes(c.key(i)).asLong();
                int bit = (int) Math.floorMod(d, (long) m);
                all.set(bit);
                (c.writes(i) ? writes : reads).set(bit);
            }
        }
        return new BitSet[] {all, reads, writes};
    }

    static Stream<Arguments> settings() {
        return Stream.of(
                Arguments.of(ConflictMode.KEYS_PAIRWISE, null),
                Arguments.of(ConflictMode.KEYS_HASHED, null),
                Arguments.of(ConflictMode.BITMAP, BitmapRepresentation.ROARING),
                Arguments.of(ConflictMode.BITMAP, BitmapRepresentation.DENSE),
                Arguments.of(ConflictMode.RW_BITMAP, BitmapRepresentation.ROARING),
                Arguments.of(ConflictMode.RW_BITMAP, BitmapRepresentation.DENSE));
    }

    private static ConflictDetection detection(ConflictMode mode, BitmapRepresentation r, Random rnd) {
        if (!mode.usesBitmaps()) {
            return new ConflictDetection(mode, 0, null);
        }
        int[] sizes = {1, 7, 64, 1000, 4096, 102_400, 102_400, 1_024_000};
        return new ConflictDetection(mode, sizes[rnd.nextInt(sizes.length)], r);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("settings")
    void noFalseNegativesAndExactModesAreExact(ConflictMode mode, BitmapRepresentation rep) {
        Random rnd = new Random(SEED * 7919 + mode.ordinal() * 31L + (rep == null ? 0 : rep.ordinal() + 1));
        int trueConflicts = 0;
        int reported = 0;
        int falsePositives = 0;
        for (int trial = 0; trial < PAIRS; trial++) {
            ConflictDetection det = detection(mode, rep, rnd);
            Workload w = Workload.random(rnd);
            List<KeyCommand> a = w.batch(rnd);
            List<KeyCommand> b = rnd.nextInt(10) == 0 ? a : w.batch(rnd);
            String ctx = " [" + det + ", " + w + ", |A|=" + a.size() + ", |B|=" + b.size()
                    + ", psmr.seed=" + SEED + ", trial " + trial + "]";

            ConflictSummary sa = SummaryBuilder.summarize(det, a);
            ConflictSummary sb = SummaryBuilder.summarize(det, b);
            assertEquals(mode, sa.mode(), ctx);
            assertEquals(det.bitmapBits(), sa.bitmapBits(), ctx);
            det.requireMatches(sa);
            det.requireMatches(sb);
            assertNull(SummaryVerifier.findProblem(sa, a), "builder's summary of A fails verification" + ctx);
            assertNull(SummaryVerifier.findProblem(sb, b), "builder's summary of B fails verification" + ctx);

            boolean ab = sa.conflictsWith(sb);
            boolean ba = sb.conflictsWith(sa);
            assertEquals(ab, ba, "conflictsWith is not symmetric" + ctx);

            boolean[] truth = trueConflicts(access(a), access(b));
            boolean conflict = mode == ConflictMode.RW_BITMAP ? truth[1] : truth[0];
            if (conflict) {
                trueConflicts++;
                assertTrue(ab, "FALSE NEGATIVE: the batches share a conflicting key but the summaries do not conflict" + ctx);
            }
            if (ab) {
                reported++;
                if (!conflict) {
                    falsePositives++;
                }
            }
            switch (mode) {
                case KEYS_PAIRWISE, KEYS_HASHED ->
                        assertEquals(truth[0], ab, "exact-key mode must report exactly the shared keys" + ctx);
                case BITMAP -> {
                    BitSet[] x = oracleBits(a, det.bitmapBits());
                    BitSet[] y = oracleBits(b, det.bitmapBits());
                    assertEquals(x[0].intersects(y[0]), ab, "BITMAP must conflict iff the key bits intersect" + ctx);
                }
                case RW_BITMAP -> {
                    BitSet[] x = oracleBits(a, det.bitmapBits());
                    BitSet[] y = oracleBits(b, det.bitmapBits());
                    boolean want = x[2].intersects(y[0]) || x[1].intersects(y[2]);
                    assertEquals(want, ab, "RW_BITMAP must conflict iff W1∩(R2∪W2) or R1∩W2 is non-empty" + ctx);
                }
            }
        }
        // The workload must exercise both outcomes, or the properties above prove nothing.
        assertTrue(trueConflicts > PAIRS / 10, "too few true conflicts: " + trueConflicts + " [psmr.seed=" + SEED + "]");
        assertTrue(reported < PAIRS - PAIRS / 10, "too few non-conflicting pairs: " + reported + " [psmr.seed=" + SEED + "]");
        if (mode.usesBitmaps()) {
            assertTrue(falsePositives > 0, "no false positives at all: the bitmap oracle was never exercised");
        } else {
            assertEquals(0, falsePositives);
        }
    }

    /** A batch of distinct, printable keys: command c has keys "c{c}-{i}". */
    private static List<KeyCommand> distinctKeyBatch(Random rnd, int commands) {
        List<KeyCommand> cmds = new ArrayList<>();
        for (int c = 0; c < commands; c++) {
            int n = 1 + rnd.nextInt(3);
            byte[][] ks = new byte[n][];
            boolean[] ws = new boolean[n];
            for (int i = 0; i < n; i++) {
                ks[i] = ("c" + c + "-" + i).getBytes(StandardCharsets.US_ASCII);
                ws[i] = rnd.nextBoolean();
            }
            cmds.add(new KeyCommand(ks, ws));
        }
        return cmds;
    }

    /** Builds a summary by hand from every key of {@code cmds} except key {@code vi} of command {@code vc}. */
    private static ConflictSummary summaryMissing(ConflictDetection det, List<KeyCommand> cmds, int vc, int vi,
                                                  boolean writeAsRead) {
        List<Key> keys = new ArrayList<>();
        BloomBitmap reads = det.mode().usesBitmaps() ? BloomBitmap.create(det.representation(), det.bitmapBits()) : null;
        BloomBitmap writes = det.mode().usesBitmaps() ? BloomBitmap.create(det.representation(), det.bitmapBits()) : null;
        for (int c = 0; c < cmds.size(); c++) {
            KeyCommand cmd = cmds.get(c);
            for (int i = 0; i < cmd.keyCount(); i++) {
                boolean victim = c == vc && i == vi;
                if (victim && !writeAsRead) {
                    continue;
                }
                boolean write = cmd.writes(i) && !victim;
                keys.add(new Key(cmd.key(i)));
                if (writes != null) {
                    long d = KeyDigest.digest(cmd.key(i));
                    (write || det.mode() == ConflictMode.BITMAP ? writes : reads).addDigest(d);
                }
            }
        }
        return switch (det.mode()) {
            case KEYS_PAIRWISE -> new KeyListSummary(keys);
            case KEYS_HASHED -> new KeySetSummary(keys);
            case BITMAP -> new BitmapSummary(writes);
            case RW_BITMAP -> new RwBitmapSummary(reads, writes);
        };
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("settings")
    void verifierNamesTheMissingKeyAndBit(ConflictMode mode, BitmapRepresentation rep) {
        Random rnd = new Random(SEED ^ (mode.ordinal() * 17L + (rep == null ? 0 : rep.ordinal() + 1)));
        ConflictDetection det = mode.usesBitmaps()
                ? new ConflictDetection(mode, 1_024_000, rep)
                : new ConflictDetection(mode, 0, null);
        int checked = 0;
        for (int trial = 0; trial < 200; trial++) {
            List<KeyCommand> cmds = distinctKeyBatch(rnd, 1 + rnd.nextInt(40));
            int vc = rnd.nextInt(cmds.size());
            int vi = rnd.nextInt(cmds.get(vc).keyCount());
            byte[] victim = cmds.get(vc).key(vi);
            boolean written = cmds.get(vc).writes(vi);
            String ctx = " [" + det + ", psmr.seed=" + SEED + ", trial " + trial + "]";
            ConflictSummary s = summaryMissing(det, cmds, vc, vi, false);
            long digest = KeyDigest.digest(victim);
            if (s.covers(victim, digest, written)) {
                continue; // another key set the victim's bit: a legitimate Bloom collision, not a miss
            }
            checked++;
            String problem = SummaryVerifier.findProblem(s, cmds);
            String name = new String(victim, StandardCharsets.US_ASCII);
            String access = written ? "written" : "read";
            String expected = switch (mode) {
                case KEYS_PAIRWISE, KEYS_HASHED ->
                        "conflict summary misses " + access + " key \"" + name + "\" of command " + vc;
                case BITMAP -> "conflict summary misses a key: bit " + KeyDigest.bitIndex(digest, det.bitmapBits())
                        + " of " + access + " key \"" + name + "\" in command " + vc + " is not set in the bitmap";
                case RW_BITMAP -> "conflict summary misses a key: bit " + KeyDigest.bitIndex(digest, det.bitmapBits())
                        + " of " + access + " key \"" + name + "\" in command " + vc + " is not set in the "
                        + (written ? "write bitmap" : "read or write bitmap");
            };
            assertEquals(expected, problem, ctx);
            assertNull(SummaryVerifier.findProblem(SummaryBuilder.summarize(det, cmds), cmds), ctx);

            if (mode == ConflictMode.RW_BITMAP && written) {
                // The written key's bit only in the read bitmap: a reader would miss the conflict.
                ConflictSummary asRead = summaryMissing(det, cmds, vc, vi, true);
                if (!asRead.covers(victim, digest, true)) {
                    String p = SummaryVerifier.findProblem(asRead, cmds);
                    assertEquals("conflict summary misses a key: bit " + KeyDigest.bitIndex(digest, det.bitmapBits())
                            + " of written key \"" + name + "\" in command " + vc + " is not set in the write bitmap", p, ctx);
                }
            }
        }
        assertTrue(checked >= 150, "too few misses checked: " + checked);
    }

    @Test
    void verifierReportsTheFirstMissAndNullKeys() {
        ConflictDetection det = ConflictDetection.keysHashed();
        List<KeyCommand> cmds = List.of(
                new KeyCommand(new byte[][] {"a".getBytes(StandardCharsets.US_ASCII)}, new boolean[] {true}),
                new KeyCommand(new byte[][] {"b".getBytes(StandardCharsets.US_ASCII), new byte[] {0, (byte) 0xff}},
                        new boolean[] {false, true}));
        ConflictSummary onlyA = new KeySetSummary(List.of(new Key("a".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("conflict summary misses read key \"b\" of command 1", SummaryVerifier.findProblem(onlyA, cmds));
        ConflictSummary noBinary = new KeySetSummary(List.of(
                new Key("a".getBytes(StandardCharsets.US_ASCII)), new Key("b".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("conflict summary misses written key 0x00ff of command 1", SummaryVerifier.findProblem(noBinary, cmds));
        assertNull(SummaryVerifier.findProblem(SummaryBuilder.summarize(det, cmds), cmds));
        List<KeyCommand> withNull = List.of(new KeyCommand(new byte[][] {"a".getBytes(StandardCharsets.US_ASCII), null}, new boolean[] {true, true}));
        assertEquals("command 0 has a null key at position 1", SummaryVerifier.findProblem(onlyA, withNull));
    }

    private static ConflictSummary sample(ConflictDetection det) {
        return SummaryBuilder.summarize(det, List.of(new KeyCommand(
                new byte[][] {"x".getBytes(StandardCharsets.US_ASCII)}, new boolean[] {true})));
    }

    @Test
    void mismatchedModesAreRefusedNamingBoth() {
        List<ConflictDetection> dets = List.of(ConflictDetection.keysPairwise(), ConflictDetection.keysHashed(),
                ConflictDetection.bitmap(1024), ConflictDetection.rwBitmap(1024));
        for (ConflictDetection d1 : dets) {
            for (ConflictDetection d2 : dets) {
                ConflictSummary s1 = sample(d1);
                ConflictSummary s2 = sample(d2);
                if (d1.mode() == d2.mode()) {
                    assertTrue(s1.conflictsWith(s2), d1 + " with " + d2);
                    continue;
                }
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s1.conflictsWith(s2),
                        d1 + " with " + d2);
                assertEquals("conflict mode mismatch: " + d1.mode() + " summary against " + d2.mode(), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> d1.requireMatches(s2));
                assertEquals("conflict summary mode " + d2.mode() + " does not match the scheduler's " + d1.mode(),
                        e.getMessage());
            }
        }
    }

    @Test
    void bitmapSizeAndRepresentationMismatchesAreNamed() {
        for (ConflictMode mode : new ConflictMode[] {ConflictMode.BITMAP, ConflictMode.RW_BITMAP}) {
            ConflictDetection small = new ConflictDetection(mode, 102_400, BitmapRepresentation.ROARING);
            ConflictDetection large = new ConflictDetection(mode, 1_024_000, BitmapRepresentation.ROARING);
            ConflictDetection dense = small.withRepresentation(BitmapRepresentation.DENSE);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> large.requireMatches(sample(small)));
            assertEquals("bitmap has 102400 bits but the scheduler is configured for 1024000 bits", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> small.requireMatches(sample(large)));
            assertEquals("bitmap has 1024000 bits but the scheduler is configured for 102400 bits", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> small.requireMatches(sample(dense)));
            assertEquals("bitmap representation DENSE does not match the scheduler's ROARING", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> sample(small).conflictsWith(sample(large)));
            assertEquals("bitmap size mismatch: 102400 bits against 1024000 bits", e.getMessage(), mode.name());
            e = assertThrows(IllegalArgumentException.class, () -> sample(small).conflictsWith(sample(dense)));
            assertEquals("bitmap representation mismatch: ROARING against DENSE", e.getMessage(), mode.name());
            small.requireMatches(sample(small));
            dense.requireMatches(sample(dense));
        }
        rwSummaryRejectsMismatchedBitmaps();
    }

    private static void rwSummaryRejectsMismatchedBitmaps() {
        BloomBitmap r = BloomBitmap.create(BitmapRepresentation.ROARING, 64);
        BloomBitmap w = BloomBitmap.create(BitmapRepresentation.ROARING, 128);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new RwBitmapSummary(r, w));
        assertEquals("bitmap size mismatch: 64 bits against 128 bits", e.getMessage());
    }

    @Test
    void detectionSettingsAreValidatedAndNormalised() {
        assertThrows(IllegalArgumentException.class, () -> ConflictDetection.bitmap(0));
        assertThrows(NullPointerException.class, () -> new ConflictDetection(ConflictMode.RW_BITMAP, 64, null));
        ConflictDetection keys = new ConflictDetection(ConflictMode.KEYS_HASHED, 999, BitmapRepresentation.DENSE);
        assertEquals(0, keys.bitmapBits());
        assertNull(keys.representation());
        assertEquals(ConflictDetection.keysHashed(), keys);
        assertNotEquals(ConflictDetection.bitmap(64), ConflictDetection.bitmap(64).withRepresentation(BitmapRepresentation.DENSE));
        assertFalse(ConflictMode.KEYS_PAIRWISE.usesBitmaps());
        assertTrue(ConflictMode.RW_BITMAP.usesBitmaps());
    }

    @Test
    void readersNeverConflictInRwModeButDoInBitmapMode() {
        List<KeyCommand> readA = List.of(new KeyCommand(new byte[][] {"k".getBytes(StandardCharsets.US_ASCII)}, new boolean[] {false}));
        List<KeyCommand> readB = List.of(new KeyCommand(new byte[][] {"k".getBytes(StandardCharsets.US_ASCII)}, new boolean[] {false}));
        List<KeyCommand> writeB = List.of(new KeyCommand(new byte[][] {"k".getBytes(StandardCharsets.US_ASCII)}, new boolean[] {true}));
        for (BitmapRepresentation r : BitmapRepresentation.values()) {
            ConflictDetection rw = ConflictDetection.rwBitmap(1 << 16).withRepresentation(r);
            assertFalse(SummaryBuilder.summarize(rw, readA).conflictsWith(SummaryBuilder.summarize(rw, readB)), r.name());
            assertTrue(SummaryBuilder.summarize(rw, readA).conflictsWith(SummaryBuilder.summarize(rw, writeB)), r.name());
            ConflictDetection bm = ConflictDetection.bitmap(1 << 16).withRepresentation(r);
            assertTrue(SummaryBuilder.summarize(bm, readA).conflictsWith(SummaryBuilder.summarize(bm, readB)), r.name());
        }
    }
}
