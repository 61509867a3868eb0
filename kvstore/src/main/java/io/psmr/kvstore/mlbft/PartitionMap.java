package io.psmr.kvstore.mlbft;

import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvOp;

/**
 * MLBFT's prediction (thesis §3.2.3, {@code PREDICT()}): which partitions a request touches, from the request itself.
 * For the key-value store the prediction is exact, from the keys.
 *
 * <ul>
 *   <li>A key {@code k<n>} (the benchmarks' keys, {@code n} decimal) is in partition {@code n mod P}, as in the
 *       thesis' §4.3; any other key in the partition of a fixed hash of its bytes.</li>
 *   <li>A batch's partitions are those of its commands' keys. An OPEN_SESSION has no key and opens its session in
 *       every partition, so a batch holding one is of every partition.</li>
 *   <li>A batch's exec partition, the one whose worker runs it when it is cross-border, is chosen among its partitions by
 *       its proxy and batch ids: a proxy's retry of the batch gets the same one, so it meets the same session table.</li>
 * </ul>
 *
 * <p>Immutable; any thread.
 */
public final class PartitionMap {

    /** The most partitions: the execution stage keeps sets of them in a {@code long}. */
    public static final int MAX_PARTITIONS = 64;

    private final int partitions;

    /** @throws IllegalArgumentException unless {@code partitions} is from 1 to {@value #MAX_PARTITIONS} */
    public PartitionMap(int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("MLBFT partitions must be from 1 to " + MAX_PARTITIONS + ", got " + partitions);
        }
        this.partitions = partitions;
    }

    /** P. */
    public int partitions() {
        return partitions;
    }

    /** The partition of {@code key}. */
    public int partitionOf(byte[] key) {
        long n = 0;
        boolean numbered = key.length >= 2 && key.length <= 19 && key[0] == 'k';
        for (int i = 1; numbered && i < key.length; i++) {
            int d = key[i] - '0';
            numbered = d >= 0 && d <= 9;
            n = n * 10 + d;
        }
        if (numbered) {
            return (int) (n % partitions);
        }
        int h = 1;
        for (byte b : key) {
            h = 31 * h + b;
        }
        return Math.floorMod(h ^ (h >>> 16), partitions);
    }

    /**
     * The partitions of {@code command} as a set, bit p for partition p (every partition for an OPEN_SESSION): a store
     * proxy's batch lane under MLBFT, so that a batch is of as few partitions as its commands.
     */
    public long partitionSetOf(KvCommand command) {
        if (command.op() == KvOp.OPEN_SESSION) {
            return partitions == 64 ? -1L : (1L << partitions) - 1;
        }
        long set = 0;
        for (int i = 0; i < command.keyCount(); i++) {
            set |= 1L << partitionOf(command.key(i));
        }
        return set;
    }

    /** The partitions of {@code batch}, ascending and distinct (every partition if it opens a session). */
    public int[] partitionsOf(KvBatch batch) {
        long set = 0;
        for (KvCommand c : batch.commands()) {
            set |= partitionSetOf(c);
        }
        if (set == 0) {
            return new int[] {0}; // an empty batch: any one partition answers it
        }
        return members(set);
    }

    /** The exec partition of the batch {@code batchId} of proxy {@code proxyId} whose partitions are {@code of}. */
    public static int execPartition(int[] of, long proxyId, long batchId) {
        if (of.length == 1) {
            return of[0];
        }
        long h = proxyId * 0x9E3779B97F4A7C15L + batchId;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return of[(int) Math.floorMod(h, (long) of.length)];
    }

    private static int[] members(long set) {
        int[] out = new int[Long.bitCount(set)];
        for (int i = 0; set != 0; i++) {
            out[i] = Long.numberOfTrailingZeros(set);
            set &= set - 1;
        }
        return out;
    }
}
