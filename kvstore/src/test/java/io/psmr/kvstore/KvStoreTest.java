package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KvStoreTest {

    private static final StoreConfig SMALL_CHRONICLE = StoreConfig.defaults().sized(20_000, 8, 64);

    private static long seed(String test) {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println(test + " seed=" + seed);
        return seed;
    }

    private static KvStore open(StoreConfig.Backend backend) {
        return backend == StoreConfig.Backend.HEAP ? StoreConfig.heap().open() : SMALL_CHRONICLE.open();
    }

    @ParameterizedTest
    @EnumSource(StoreConfig.Backend.class)
    void commandsHaveTheirSemantics(StoreConfig.Backend backend) {
        try (KvStore store = open(backend)) {
            KvService s = new KvService(store, KvLimits.defaults());
            byte[] k = Workload.key(1);
            assertEquals(KvStatus.NOT_FOUND, s.execute(KvCommand.read(1, 1, k)).status());
            assertEquals(KvStatus.NOT_FOUND, s.execute(KvCommand.update(1, 2, k, new byte[] {1})).status());
            assertEquals(KvStatus.NOT_FOUND, s.execute(KvCommand.delete(1, 3, k)).status());
            assertEquals(KvStatus.OK, s.execute(KvCommand.create(1, 4, k, new byte[] {1})).status());
            assertEquals(KvStatus.EXISTS, s.execute(KvCommand.create(1, 5, k, new byte[] {2})).status());
            assertArrayEquals(new byte[] {1}, s.execute(KvCommand.read(1, 6, k)).value());
            assertEquals(KvStatus.OK, s.execute(KvCommand.update(1, 7, k, new byte[0])).status());
            assertArrayEquals(new byte[0], s.execute(KvCommand.read(1, 8, k)).value());
            byte[] k2 = Workload.key(2);
            KvResult mp = s.execute(KvCommand.multiPut(1, 9, new byte[][] {k, k2, k}, new byte[][] {{7}, {8}, {9}}));
            assertEquals(KvResult.ok(), mp);
            assertArrayEquals(new byte[] {9}, store.get(k), "a repeated key ends with its last value");
            assertArrayEquals(new byte[] {8}, store.get(k2));
            assertEquals(KvStatus.OK, s.execute(KvCommand.delete(1, 10, k)).status());
            assertNull(store.get(k));
            assertEquals(1, store.size());
        }
    }

    @Test
    void digestIsIndependentOfInsertionOrderAndBackend() {
        long seed = seed("digestIsIndependentOfInsertionOrderAndBackend");
        Random random = new Random(seed);
        List<byte[][]> entries = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            byte[] v = new byte[random.nextInt(50)];
            random.nextBytes(v);
            entries.add(new byte[][] {Workload.key(i), v});
        }
        long first;
        try (KvStore a = StoreConfig.heap().open()) {
            entries.forEach(e -> a.put(e[0], e[1]));
            first = a.digest();
        }
        for (StoreConfig.Backend backend : StoreConfig.Backend.values()) {
            List<byte[][]> shuffled = new ArrayList<>(entries);
            Collections.shuffle(shuffled, random);
            try (KvStore b = open(backend)) {
                // Insert extra entries and remove them again: history must not matter either.
                for (int i = 0; i < 100; i++) {
                    b.put(Workload.key(100_000 + i), new byte[] {1});
                }
                shuffled.forEach(e -> b.put(e[0], e[1]));
                for (int i = 0; i < 100; i++) {
                    assertTrue(b.remove(Workload.key(100_000 + i)));
                }
                assertEquals(first, b.digest(), backend + ", seed " + seed);
                b.put(entries.get(0)[0], new byte[] {42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42, 42});
                assertNotEquals(first, b.digest(), "a changed value changes the digest");
            }
        }
    }

    @Test
    void digestFramesKeysAndValues() {
        StateDigest empty = new StateDigest();
        long emptyDigest = empty.value();
        assertEquals(emptyDigest, new StateDigest().value());
        assertNotEquals(StateDigest.entryHash(new byte[] {1, 2}, new byte[] {3}),
                StateDigest.entryHash(new byte[] {1}, new byte[] {2, 3}), "moving a byte between key and value changes the hash");
        assertNotEquals(emptyDigest, new StateDigest().add(new byte[] {1}, new byte[0]).value());
        assertEquals(16, StateDigest.hex(-1L).length());
        // A fixed vector: the digest is a cross-replica contract, so changing it must be loud.
        StateDigest d = new StateDigest().add("k1".getBytes(), "v1".getBytes()).add("k2".getBytes(), "v2".getBytes());
        StateDigest reversed = new StateDigest().add("k2".getBytes(), "v2".getBytes()).add("k1".getBytes(), "v1".getBytes());
        assertEquals(d.value(), reversed.value());
        assertEquals(FIXED_VECTOR, StateDigest.hex(d.value()));
    }

    /** Digest of {k1=v1, k2=v2} (Guava's MurmurHash3 x64 128, seed 0, as documented), pinned. */
    static final String FIXED_VECTOR = "7cad45d137f9cecf";

    @Test
    void chronicleAndHeapGiveIdenticalResultsOnARandomWorkload() {
        long seed = seed("chronicleAndHeapGiveIdenticalResultsOnARandomWorkload");
        Workload w = new Workload(seed, 300, 80);
        try (KvStore heap = StoreConfig.heap().open(); KvStore chronicle = SMALL_CHRONICLE.open()) {
            KvService h = new KvService(heap, KvLimits.defaults());
            KvService c = new KvService(chronicle, KvLimits.defaults());
            for (int i = 0; i < 20_000; i++) {
                KvCommand cmd = w.command(1, i + 1);
                assertEquals(h.execute(cmd), c.execute(cmd), "command " + i + " " + cmd + ", seed " + seed);
            }
            assertEquals(heap.size(), chronicle.size());
            assertEquals(heap.digest(), chronicle.digest(), "seed " + seed);
        }
    }

    @Test
    void chroniclePersistsToAFileAndReopensIt(@TempDir Path dir) {
        Path file = dir.resolve("store.dat");
        StoreConfig config = SMALL_CHRONICLE.persistedTo(file);
        long digest;
        try (KvStore store = config.open()) {
            store.put(Workload.key(1), new byte[] {1});
            store.put(Workload.key(2), new byte[] {2});
            digest = store.digest();
        }
        assertTrue(file.toFile().length() > 0);
        try (KvStore again = config.open()) {
            assertArrayEquals(new byte[] {2}, again.get(Workload.key(2)));
            assertEquals(digest, again.digest());
        }
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.heap().persistedTo(file));
        assertThrows(IllegalArgumentException.class, () -> StoreConfig.defaults().sized(0, 1, 1));
        assertFalse(new StoreConfig(StoreConfig.Backend.HEAP, 1, 1, 1, null).open().get(new byte[1]) != null);
    }
}
