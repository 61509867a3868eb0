package io.psmr.bench.scheduler;

import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvStore;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The commands of one (batch size, conflict percentage) cell, built once before timing and replayed
 * in a cycle: {@link #cycleLength()} batches of {@code batch} key-value commands each.
 *
 * <p><b>Keys.</b> Every command of a cycle has its own key (16 bytes), so two batches share a key
 * only through the hot key, or when they are a whole cycle apart; a cycle is at least four times
 * the scheduler's {@code maxPending}, so batches a cycle apart are never in the graph together.
 * Half the commands are READs and half UPDATEs of an existing key with a 16-byte value, chosen by a
 * seeded random generator. Bitmaps may still collide (false positives): that is the bitmap modes' cost.
 *
 * <p><b>Conflicts</b>, as the load generator defines them: {@code conflictPct}% of the batches,
 * chosen at random, also write one shared hot key (their first command becomes an UPDATE of it).
 * Batches of 1 command are then single writes of the hot key.
 */
public final class BenchWorkload {

    /** Key and value size in bytes. */
    public static final int KEY_BYTES = 16;
    /** Value size in bytes. */
    public static final int VALUE_BYTES = 16;

    /** What {@link #keyIndex} answers for the hot key. */
    public static final long HOT_KEY_INDEX = -1;

    private static final byte[] HOT_KEY = "psmr-bench-hot-k".getBytes(StandardCharsets.US_ASCII);

    private final int batch;
    private final int conflictPct;
    private final List<List<KvCommand>> batches;

    private BenchWorkload(int batch, int conflictPct, List<List<KvCommand>> batches) {
        this.batch = batch;
        this.conflictPct = conflictPct;
        this.batches = batches;
    }

    /** Batches per cycle for a scheduler of at most {@code maxPending} pending batches. */
    public static int cycleLength(int batch, int maxPending) {
        // At least 4 x maxPending so that a batch is never in the graph with its replay; at least
        // 1,024 batches and 8,192 commands so that the mix of conflicting batches is representative.
        return Math.max(Math.max(4 * maxPending, 1024), ceilDiv(8192, batch));
    }

    /** Distinct keys a cycle of this batch size uses. */
    public static int keysNeeded(int batch, int maxPending) {
        return cycleLength(batch, maxPending) * batch;
    }

    /**
     * The {@code i}-th key of the key space: a mix of {@code i} then {@code i}, so that keys differ
     * in every byte and any hash function (Chronicle Map's, a heap map's) spreads them.
     */
    public static byte[] key(int i) {
        long z = (i + 1) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return ByteBuffer.allocate(KEY_BYTES).putLong(z).putLong(i).array();
    }

    /**
     * The index {@code i} that {@link #key(int) key(i)} was made from (its last 8 bytes), or
     * {@link #HOT_KEY_INDEX} for the hot key: a number per key, for services keyed by numbers.
     *
     * @throws IllegalArgumentException for a key of another length
     */
    public static long keyIndex(byte[] key) {
        if (Arrays.equals(key, HOT_KEY)) {
            return HOT_KEY_INDEX;
        }
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("a bench key has " + KEY_BYTES + " bytes, got " + key.length);
        }
        return ByteBuffer.wrap(key, 8, 8).getLong();
    }

    /** The hot key that conflicting batches write. */
    public static byte[] hotKey() {
        return HOT_KEY.clone();
    }

    /** Fills {@code store} with keys {@code 0 .. keys-1} and the hot key, so that every command finds its key. */
    public static void populate(KvStore store, int keys) {
        byte[] value = new byte[VALUE_BYTES];
        for (int i = 0; i < keys; i++) {
            store.put(key(i), value);
        }
        store.put(hotKey(), value);
    }

    /** Builds the cycle of a cell. */
    public static BenchWorkload build(int batch, int conflictPct, int maxPending, long seed) {
        int cycle = cycleLength(batch, maxPending);
        Random rnd = new Random(seed ^ (batch * 0x9E3779B97F4A7C15L) ^ (conflictPct * 0xC2B2AE3D27D4EB4FL));
        byte[] value = new byte[VALUE_BYTES];
        rnd.nextBytes(value);
        byte[] hot = hotKey();
        List<List<KvCommand>> batches = new ArrayList<>(cycle);
        long seq = 1;
        int keyIndex = 0;
        for (int b = 0; b < cycle; b++) {
            boolean conflicting = rnd.nextInt(100) < conflictPct;
            List<KvCommand> commands = new ArrayList<>(batch);
            for (int c = 0; c < batch; c++) {
                byte[] key = key(keyIndex++);
                if (c == 0 && conflicting) {
                    commands.add(KvCommand.update(1, seq++, hot, value));
                } else if (rnd.nextBoolean()) {
                    commands.add(KvCommand.read(1, seq++, key));
                } else {
                    commands.add(KvCommand.update(1, seq++, key, value));
                }
            }
            batches.add(List.copyOf(commands));
        }
        return new BenchWorkload(batch, conflictPct, List.copyOf(batches));
    }

    /** The summaries of the cycle's batches under {@code detection}, in cycle order. */
    public ConflictSummary[] summaries(ConflictDetection detection) {
        ConflictSummary[] s = new ConflictSummary[batches.size()];
        SummaryBuilder builder = new SummaryBuilder(detection);
        for (int i = 0; i < s.length; i++) {
            for (KvCommand c : batches.get(i)) {
                builder.add(c);
            }
            s[i] = builder.build();
        }
        return s;
    }

    /** Commands per batch. */
    public int batch() {
        return batch;
    }

    /** Percentage of batches that write the hot key. */
    public int conflictPct() {
        return conflictPct;
    }

    /** Batches in a cycle. */
    public int cycleLength() {
        return batches.size();
    }

    /** Every batch of the cycle, in order (immutable). */
    public List<List<KvCommand>> batches() {
        return batches;
    }

    /** The commands of batch {@code i} of the cycle. */
    public List<KvCommand> commands(int i) {
        return batches.get(i);
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
