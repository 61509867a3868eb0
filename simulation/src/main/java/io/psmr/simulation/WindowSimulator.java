package io.psmr.simulation;

import io.psmr.scheduler.KeyDigest;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hot loop of the simulator: checks each incoming batch against the list of the last g
 * batches, under every granularity at once, then slides the list by one batch.
 *
 * <p><b>Bits are the production bits.</b> A key's bit is {@code KeyDigest.bitIndex(KeyDigest.digest(key), m)},
 * exactly what {@code BloomBitmap.addDigest} sets, and two batches conflict iff some bit is set in
 * both, exactly {@code BloomBitmap.intersects}. {@code WindowSimulatorTest} replays random streams
 * through the scheduler's own {@code SummaryBuilder} and {@code conflictsWith} and requires
 * identical counts.
 *
 * <p><b>Why stamps, not g bitmaps.</b> Every batch gets a number. Instead of g bitmaps the
 * simulator keeps, per bit, the number of the last batch that set it; the incoming batch n
 * intersects the union of batches n-g..n-1 iff one of its bits carries a number &ge; n-g. So a
 * check costs one read per key whatever g is, the oldest batch drops out by itself as n grows,
 * and nothing is ever cleared. The same holds per bit for writes (read/write bitmaps) and per
 * partition. Only when a bit is shared does the simulator look the key up in the exact key sets
 * of the g batches, to split true conflicts from false positives; that happens on a fraction
 * g*B/m of keys.
 *
 * <p>Not thread-safe. A worker thread reuses one instance for every chunk of the same shape.
 */
final class WindowSimulator {

    /** Progress is published every this many iterations, to keep the shared counter off the hot path. */
    private static final int PROGRESS_STEP = 1024;
    /** Restart numbering well before an int stamp could overflow. */
    private static final int RENUMBER_AT = Integer.MAX_VALUE - (1 << 24);

    private final int bits;
    private final int batchSize;
    private final int graphSize;
    private final int partitions;

    /** Per bit, the number of the last batch with a key on it (0: none). */
    private final int[] bitStamp;
    /** Per bit, the number of the last batch that wrote a key on it; allocated only when reads exist. */
    private int[] writeStamp;
    /** Per partition, the number of the last batch with a key in it. */
    private final int[] partitionStamp;
    /** Exact key sets of the list and of the incoming batch; batch n uses set n mod (g+1). */
    private final BatchKeySet[] sets;

    private final long[] inKey;
    private final long[] inDigest;
    private final boolean[] inWrite;
    private final int[] inBit;

    /** Number of the last batch drawn. */
    private int now;

    WindowSimulator(int bits, int batchSize, int graphSize, int partitions) {
        this.bits = bits;
        this.batchSize = batchSize;
        this.graphSize = graphSize;
        this.partitions = partitions;
        this.bitStamp = new int[graphSize == 0 ? 0 : bits];
        this.partitionStamp = new int[graphSize == 0 ? 0 : partitions];
        this.sets = new BatchKeySet[graphSize + 1];
        for (int i = 0; i < sets.length; i++) {
            sets[i] = new BatchKeySet(batchSize);
        }
        this.inKey = new long[batchSize];
        this.inDigest = new long[batchSize];
        this.inWrite = new boolean[batchSize];
        this.inBit = new int[batchSize];
    }

    /** Whether this instance can run chunks of {@code c}. */
    boolean fits(SimulationConfig c) {
        return c.bitmapBits() == bits && c.batchSize() == batchSize && c.graphSize() == graphSize
                && c.partitions() == partitions;
    }

    /**
     * Runs one chunk: draws g batches that fill the list, then counts {@code iterations} incoming
     * ones. Stamps of earlier chunks are older than the list by then, so they never count.
     *
     * @param progress receives the iterations done, in steps, for the progress bar; may be null
     */
    ConflictCounts run(SimulationConfig config, long seed, long iterations, AtomicLong progress) {
        if (now > RENUMBER_AT) {
            renumber();
        }
        boolean reads = config.readFraction() > 0;
        if (reads && writeStamp == null && graphSize > 0) {
            writeStamp = new int[bits];
        }
        BatchGenerator gen = new BatchGenerator(config, seed);
        for (int s = 0; s < graphSize; s++) {
            draw(gen);
            stamp(reads);
        }
        long bitmap = 0;
        long exact = 0;
        long rwBitmap = 0;
        long rwExact = 0;
        long partition = 0;
        int sinceReport = 0;
        for (long i = 0; i < iterations; i++) {
            draw(gen);
            if (graphSize > 0) {
                int verdict = check(reads);
                bitmap += verdict & 1;
                exact += (verdict >>> 1) & 1;
                rwBitmap += (verdict >>> 2) & 1;
                rwExact += (verdict >>> 3) & 1;
                partition += (verdict >>> 4) & 1;
                stamp(reads);
            }
            if (++sinceReport == PROGRESS_STEP) {
                if (progress != null) {
                    progress.addAndGet(sinceReport);
                }
                sinceReport = 0;
            }
        }
        if (progress != null) {
            progress.addAndGet(sinceReport);
        }
        return new ConflictCounts(iterations, bitmap, exact, rwBitmap, rwExact, partitions > 0 ? partition : 0);
    }

    private void draw(BatchGenerator gen) {
        now++;
        gen.next(inKey, inDigest, inWrite, sets[now % sets.length]);
        for (int j = 0; j < batchSize; j++) {
            inBit[j] = KeyDigest.bitIndex(inDigest[j], bits);
        }
    }

    /**
     * Checks the incoming batch {@code now} against batches {@code now-g..now-1}. Returns a bit
     * set: 1 bitmap, 2 exact keys, 4 read/write bitmaps, 8 read/write exact keys, 16 partitions.
     */
    private int check(boolean reads) {
        int oldestLive = now - graphSize;
        int[] writes = reads ? writeStamp : bitStamp; // with no reads every key is written
        boolean bitmap = false;
        boolean exact = false;
        boolean rwBitmap = false;
        boolean rwExact = false;
        boolean partition = false;
        for (int j = 0; j < batchSize; j++) {
            int bit = inBit[j];
            if (bitStamp[bit] >= oldestLive) {
                bitmap = true;
                boolean write = inWrite[j];
                // An incoming write conflicts with any access on its bit; a read only with a write.
                if (write || writes[bit] >= oldestLive) {
                    rwBitmap = true;
                }
                // Equal keys set equal bits, so true conflicts can only hide behind a shared bit.
                int found = exactAccess(inKey[j], inDigest[j]);
                if (found != BatchKeySet.ABSENT) {
                    exact = true;
                    if (write || found == BatchKeySet.WRITTEN) {
                        rwExact = true;
                    }
                }
            }
            if (partitions > 0 && partitionStamp[(int) (inKey[j] % partitions)] >= oldestLive) {
                partition = true;
            }
        }
        return (bitmap ? 1 : 0) | (exact ? 2 : 0) | (rwBitmap ? 4 : 0) | (rwExact ? 8 : 0) | (partition ? 16 : 0);
    }

    /** How the list's batches access {@code key}: WRITTEN if any writes it, else READ if any reads it. */
    private int exactAccess(long key, long digest) {
        int found = BatchKeySet.ABSENT;
        for (int n = now - graphSize; n < now; n++) {
            found = Math.max(found, sets[n % sets.length].access(key, digest));
            if (found == BatchKeySet.WRITTEN) {
                break;
            }
        }
        return found;
    }

    /** Marks the incoming batch's bits and partitions as set by batch {@code now}. */
    private void stamp(boolean reads) {
        for (int j = 0; j < batchSize; j++) {
            int bit = inBit[j];
            bitStamp[bit] = now;
            if (reads && inWrite[j]) {
                writeStamp[bit] = now;
            }
            if (partitions > 0) {
                partitionStamp[(int) (inKey[j] % partitions)] = now;
            }
        }
    }

    /** Forgets all stamps and starts numbering again; between chunks only, when no list is live. */
    private void renumber() {
        Arrays.fill(bitStamp, 0);
        if (writeStamp != null) {
            Arrays.fill(writeStamp, 0);
        }
        Arrays.fill(partitionStamp, 0);
        now = 0;
    }
}
