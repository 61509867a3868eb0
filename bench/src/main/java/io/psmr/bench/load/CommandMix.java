package io.psmr.bench.load;

import io.psmr.kvstore.KvOp;
import java.util.Objects;
import java.util.Random;

/**
 * The operations one closed-loop client issues, as {@link WorkloadSpec} describes them: which operation, over which
 * key indices. Pure: everything comes from the client's {@link Random} and its operation count, so that a seed gives
 * the same sequence every time.
 *
 * <p><b>Cross-partition share.</b> With {@link WorkloadSpec#crossPartitionPct()} = c, operation {@code n} of client
 * {@code i} (counted from 1) is a two-partition MULTI_PUT exactly when {@code floor((n + i) c / 100)} exceeds
 * {@code floor((n - 1 + i) c / 100)}: c of every 100 consecutive operations, spread evenly, and the clients out of
 * phase with one another. The other operations follow the read/MULTI_PUT/write mix, their MULTI_PUTs within one
 * partition, and draw from the random in the same order as without partitions.
 *
 * <p>Not thread-safe: one per client thread.
 */
public final class CommandMix {

    /** One operation: what it does and the indices of its keys ({@link LoadGenerator#key(int)}). */
    public record Command(KvOp op, int[] keys) {
    }

    private final WorkloadSpec spec;
    private final Random random;
    private final int phase;
    private long count;

    /**
     * @param spec   the workload
     * @param random the client's random (the mix draws every choice from it)
     * @param phase  offsets the client's cross-partition schedule (its index)
     */
    public CommandMix(WorkloadSpec spec, Random random, int phase) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.random = Objects.requireNonNull(random, "random");
        this.phase = Math.max(0, phase);
    }

    /** The next operation. */
    public Command next() {
        count++;
        int c = spec.crossPartitionPct();
        if (c > 0 && (count + phase) * c / 100 > (count - 1 + phase) * c / 100) {
            return new Command(KvOp.MULTI_PUT, twoPartitionKeys());
        }
        double u = random.nextDouble();
        if (u < spec.multiPutFraction()) {
            int[] keys = spec.partitions() > 0 ? partitionKeys(random.nextInt(spec.partitions()), spec.multiPutKeys())
                    : distinctKeys(spec.multiPutKeys());
            return new Command(KvOp.MULTI_PUT, keys);
        }
        int[] keys = {random.nextInt(spec.keys())};
        if (u < spec.multiPutFraction() + spec.readFraction()) {
            return new Command(KvOp.READ, keys);
        }
        int w = random.nextInt(100);
        return new Command(w < 35 ? KvOp.CREATE : w < 80 ? KvOp.UPDATE : KvOp.DELETE, keys);
    }

    /** The partition of key index {@code k} under {@code partitions} partitions. */
    public static int partition(int k, int partitions) {
        return k % partitions;
    }

    /** MULTI_PUT keys alternating between two different partitions, distinct. */
    private int[] twoPartitionKeys() {
        int p = spec.partitions();
        int a = random.nextInt(p);
        int b = (a + 1 + random.nextInt(p - 1)) % p;
        int[] keys = new int[spec.multiPutKeys()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = distinctIn(i % 2 == 0 ? a : b, keys, i);
        }
        return keys;
    }

    private int[] partitionKeys(int partition, int count) {
        int[] keys = new int[count];
        for (int i = 0; i < count; i++) {
            keys[i] = distinctIn(partition, keys, i);
        }
        return keys;
    }

    /** A key of {@code partition} not among the first {@code n} of {@code chosen}. */
    private int distinctIn(int partition, int[] chosen, int n) {
        int p = spec.partitions();
        int size = (spec.keys() - partition + p - 1) / p;
        int k;
        do {
            k = partition + p * random.nextInt(size);
        } while (contains(chosen, n, k));
        return k;
    }

    private int[] distinctKeys(int count) {
        int[] chosen = new int[count];
        for (int i = 0; i < count; i++) {
            int k;
            do {
                k = random.nextInt(spec.keys());
            } while (contains(chosen, i, k));
            chosen[i] = k;
        }
        return chosen;
    }

    private static boolean contains(int[] a, int n, int k) {
        for (int i = 0; i < n; i++) {
            if (a[i] == k) {
                return true;
            }
        }
        return false;
    }
}
