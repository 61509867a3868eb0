package io.psmr.bench.load;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.KvOp;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@link CommandMix}: the cross-partition knob gives exactly the asked share of two-partition MULTI_PUTs. */
class CommandMixTest {

    private static final long SEED = Long.getLong("psmr.seed", 42L);
    private static final int OPS = 2_000;
    private static final int PARTITIONS = 4;

    private static WorkloadSpec spec(int crossPct) {
        return new WorkloadSpec(8, 1_000, 0.5, 0.05, 4, 16, Duration.ofSeconds(1), 0, SEED, PARTITIONS, crossPct);
    }

    private static long partitionsOf(int[] keys) {
        return Arrays.stream(keys).map(k -> CommandMix.partition(k, PARTITIONS)).distinct().count();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 10, 25, 50, 100})
    void theAskedShareOfOperationsAreTwoPartitionMultiPutsAndNoOthersSpanPartitions(int pct) {
        WorkloadSpec spec = spec(pct);
        for (int client = 1; client <= 3; client++) {
            CommandMix mix = new CommandMix(spec, new Random(SEED + client), client);
            int cross = 0;
            int singlePartitionMultiPuts = 0;
            for (int n = 0; n < OPS; n++) {
                CommandMix.Command c = mix.next();
                long p = partitionsOf(c.keys());
                assertTrue(p <= 2, "seed " + SEED + ": at most two partitions: " + Arrays.toString(c.keys()));
                assertEquals(c.keys().length, Arrays.stream(c.keys()).distinct().count(), "seed " + SEED + ": distinct keys");
                if (p == 2) {
                    assertEquals(KvOp.MULTI_PUT, c.op(), "seed " + SEED);
                    assertEquals(4, c.keys().length, "seed " + SEED);
                    cross++;
                } else if (c.op() == KvOp.MULTI_PUT) {
                    singlePartitionMultiPuts++;
                }
            }
            assertEquals(OPS * pct / 100, cross, "seed " + SEED + ", client " + client + ": exactly " + pct + " %");
            if (pct < 100) {
                assertTrue(singlePartitionMultiPuts > 0, "seed " + SEED + ": the mix's own MULTI_PUTs stay in one partition");
            }
        }
    }

    @Test
    void withoutPartitionsTheMixDrawsAsBefore() {
        WorkloadSpec spec = new WorkloadSpec(8, 1_000, 0.5, 0.05, 4, 16, Duration.ofSeconds(1), 0, SEED);
        CommandMix mix = new CommandMix(spec, new Random(SEED), 1);
        Random r = new Random(SEED);
        for (int n = 0; n < OPS; n++) {
            CommandMix.Command c = mix.next();
            double u = r.nextDouble();
            if (u < 0.05) {
                assertEquals(KvOp.MULTI_PUT, c.op(), "seed " + SEED);
                int[] chosen = new int[4];
                for (int i = 0; i < 4; i++) {
                    int k;
                    do {
                        k = r.nextInt(1_000);
                    } while (contains(chosen, i, k));
                    chosen[i] = k;
                }
                assertArrayEquals(chosen, c.keys(), "seed " + SEED);
            } else {
                assertEquals(r.nextInt(1_000), c.keys()[0], "seed " + SEED);
                if (u >= 0.55) {
                    int w = r.nextInt(100);
                    assertEquals(w < 35 ? KvOp.CREATE : w < 80 ? KvOp.UPDATE : KvOp.DELETE, c.op(), "seed " + SEED);
                } else {
                    assertEquals(KvOp.READ, c.op(), "seed " + SEED);
                }
            }
        }
    }

    private static boolean contains(int[] a, int n, int k) {
        for (int i = 0; i < n; i++) {
            if (a[i] == k) {
                return true;
            }
        }
        return false;
    }

    @Test
    void badPartitionSettingsAreRefused() {
        assertEquals("cross-partition MULTI_PUTs need at least 2 partitions and 2 keys per MULTI_PUT, got 0 and 4",
                assertThrows(IllegalArgumentException.class, () -> new WorkloadSpec(8, 1_000, 0.5, 0.05, 4, 16,
                        Duration.ofSeconds(1), 0, SEED, 0, 10)).getMessage());
        assertEquals("partitions (300) times multiPutKeys (4) must be at most keys (1000): every partition must hold a "
                + "MULTI_PUT's keys", assertThrows(IllegalArgumentException.class, () -> new WorkloadSpec(8, 1_000, 0.5,
                0.05, 4, 16, Duration.ofSeconds(1), 0, SEED, 300, 10)).getMessage());
    }
}
