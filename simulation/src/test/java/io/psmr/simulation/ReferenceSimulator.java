package io.psmr.simulation;

import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The naive oracle for {@link WindowSimulator}: the same batch stream, but every conflict decided
 * by the scheduler's production summaries ({@link SummaryBuilder}, {@code conflictsWith}) over the
 * keys' 8 little-endian bytes, with the list kept as g whole summaries. Slow and obviously right.
 */
final class ReferenceSimulator {

    private ReferenceSimulator() {
    }

    /** Counts one chunk exactly as {@code WindowSimulator.run} is specified to. */
    static ConflictCounts run(SimulationConfig c, long seed, long iterations, BitmapRepresentation representation) {
        BatchGenerator gen = new BatchGenerator(c, seed);
        ConflictDetection bitmapMode = ConflictDetection.bitmap(c.bitmapBits()).withRepresentation(representation);
        ConflictDetection rwMode = ConflictDetection.rwBitmap(c.bitmapBits()).withRepresentation(representation);
        ConflictDetection keysMode = ConflictDetection.keysHashed();
        Deque<Batch> list = new ArrayDeque<>();
        long[] keys = new long[c.batchSize()];
        long[] digests = new long[c.batchSize()];
        boolean[] writes = new boolean[c.batchSize()];
        BatchKeySet scratch = new BatchKeySet(c.batchSize());
        long bitmap = 0;
        long exact = 0;
        long rwBitmap = 0;
        long rwExact = 0;
        long partition = 0;
        for (long i = -c.graphSize(); i < iterations; i++) {
            gen.next(keys, digests, writes, scratch);
            Batch in = new Batch(keys, writes, c, bitmapMode, rwMode, keysMode);
            if (i >= 0 && c.graphSize() > 0) {
                boolean b = false;
                boolean e = false;
                boolean rb = false;
                boolean re = false;
                boolean p = false;
                for (Batch old : list) {
                    b |= in.bitmap.conflictsWith(old.bitmap);
                    e |= in.keys.conflictsWith(old.keys);
                    rb |= in.rw.conflictsWith(old.rw);
                    re |= in.rwKeysConflict(old);
                    p |= in.partitionsConflict(old);
                }
                bitmap += b ? 1 : 0;
                exact += e ? 1 : 0;
                rwBitmap += rb ? 1 : 0;
                rwExact += re ? 1 : 0;
                partition += p && c.partitions() > 0 ? 1 : 0;
            }
            if (c.graphSize() > 0) {
                list.addLast(in);
                if (list.size() > c.graphSize()) {
                    list.removeFirst();
                }
            }
        }
        return new ConflictCounts(iterations, bitmap, exact, rwBitmap, rwExact, partition);
    }

    /** The production summaries of one batch, plus the naive key maps. */
    private static final class Batch {
        final ConflictSummary bitmap;
        final ConflictSummary rw;
        final ConflictSummary keys;
        final Map<Long, Boolean> writtenByKey = new HashMap<>();
        final Set<Long> partitions = new HashSet<>();

        Batch(long[] ks, boolean[] ws, SimulationConfig c, ConflictDetection bitmapMode, ConflictDetection rwMode,
                ConflictDetection keysMode) {
            SummaryBuilder b = new SummaryBuilder(bitmapMode);
            SummaryBuilder r = new SummaryBuilder(rwMode);
            SummaryBuilder k = new SummaryBuilder(keysMode);
            List<byte[]> bytes = new ArrayList<>();
            for (int j = 0; j < ks.length; j++) {
                byte[] key = littleEndian(ks[j]);
                bytes.add(key);
                b.addKey(key, ws[j]);
                r.addKey(key, ws[j]);
                k.addKey(key, ws[j]);
                writtenByKey.merge(ks[j], ws[j], Boolean::logicalOr);
                if (c.partitions() > 0) {
                    partitions.add(Math.floorMod(ks[j], (long) c.partitions()));
                }
            }
            bitmap = b.build();
            rw = r.build();
            keys = k.build();
        }

        boolean rwKeysConflict(Batch old) {
            for (Map.Entry<Long, Boolean> e : writtenByKey.entrySet()) {
                Boolean oldWrite = old.writtenByKey.get(e.getKey());
                if (oldWrite != null && (oldWrite || e.getValue())) {
                    return true;
                }
            }
            return false;
        }

        boolean partitionsConflict(Batch old) {
            for (Long p : partitions) {
                if (old.partitions.contains(p)) {
                    return true;
                }
            }
            return false;
        }
    }

    static byte[] littleEndian(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
