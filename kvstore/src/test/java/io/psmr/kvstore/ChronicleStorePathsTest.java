package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link ChronicleKvStore}'s query-context path against {@link ChronicleKvStore#openMapApi} (the
 * plain {@code Map} methods) and {@link HeapKvStore}: the same calls give the same answers, the same
 * previous sizes and the same digest.
 */
class ChronicleStorePathsTest {

    private static final StoreConfig CONFIG = StoreConfig.defaults().sized(20_000, 12, 64);

    private static long seed(String test) {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println(test + " seed=" + seed);
        return seed;
    }

    private static byte[] bytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max + 1)];
        r.nextBytes(b);
        return b;
    }

    private static int size(byte[] previous) {
        return previous == null ? -1 : previous.length;
    }

    @Test
    void previousSizesFollowValuesThatGrowAndShrink() {
        try (KvStore s = CONFIG.open()) {
            byte[] k = Workload.key(7);
            assertEquals(-1, s.replaceReturningPreviousSize(k, new byte[3]), "replace of an absent key");
            assertNull(s.get(k), "a replace of an absent key inserts nothing");
            assertEquals(-1, s.removeReturningPreviousSize(k));
            assertEquals(-1, s.putReturningPreviousSize(k, new byte[0]), "put of an absent key");
            assertArrayEquals(new byte[0], s.get(k));
            assertEquals(0, s.putReturningPreviousSize(k, new byte[300]), "an empty value grows past the scratch size");
            assertEquals(300, s.replaceReturningPreviousSize(k, new byte[] {1, 2}), "shrinks");
            assertArrayEquals(new byte[] {1, 2}, s.get(k));
            byte[] big = new byte[70_000];
            new Random(1).nextBytes(big);
            assertEquals(2, s.replaceReturningPreviousSize(k, big), "grows a lot");
            assertArrayEquals(big, s.get(k));
            assertEquals(70_000, s.removeReturningPreviousSize(k));
            assertNull(s.get(k));
            assertEquals(0, s.size());
            byte[] longKey = new byte[500]; // past the key scratch's first size
            longKey[499] = 9;
            assertTrue(s.putIfAbsent(longKey, new byte[] {5}));
            assertFalse(s.putIfAbsent(longKey, new byte[] {6}));
            assertArrayEquals(new byte[] {5}, s.get(longKey));
            assertNull(s.get(new byte[500]), "a key that differs only in its last byte is another key");
            assertEquals(1, s.removeReturningPreviousSize(longKey));
        }
    }

    @Test
    void queryContextsMapApiAndHeapAgreeOnASeededRandomSequence() {
        long seed = seed("queryContextsMapApiAndHeapAgreeOnASeededRandomSequence");
        Random r = new Random(seed);
        try (KvStore ctx = CONFIG.open(); KvStore api = ChronicleKvStore.openMapApi(CONFIG); KvStore heap = StoreConfig.heap().open()) {
            KvStore[] stores = {ctx, api, heap};
            for (int i = 0; i < 30_000; i++) {
                // Keys of 1 to 100 bytes from a small space (so most calls find their key), values of
                // 0 to 400 bytes (so they grow and shrink across the scratch store's first size).
                int n = r.nextInt(200);
                byte[] key = new byte[1 + n % 100];
                key[0] = (byte) n;
                byte[] value = bytes(r, r.nextInt(10) == 0 ? 400 : 40);
                int op = r.nextInt(10);
                String where = "call " + i + " op " + op + ", seed " + seed;
                Object[] answers = new Object[stores.length];
                for (int j = 0; j < stores.length; j++) {
                    KvStore s = stores[j];
                    answers[j] = switch (op) {
                        case 0 -> s.get(key);
                        case 1 -> s.putIfAbsent(key, value);
                        case 2 -> s.replace(key, value);
                        case 3 -> { s.put(key, value); yield null; }
                        case 4 -> s.remove(key);
                        case 5 -> s.putReturningPreviousSize(key, value);
                        case 6 -> s.replaceReturningPreviousSize(key, value);
                        case 7 -> s.removeReturningPreviousSize(key);
                        case 8 -> size(s.replaceAndGetPrevious(key, value));
                        default -> size(s.putAndGetPrevious(key, value));
                    };
                }
                for (int j = 1; j < stores.length; j++) {
                    if (answers[0] instanceof byte[] a) {
                        assertArrayEquals(a, (byte[]) answers[j], stores[j] + ", " + where);
                    } else {
                        assertEquals(answers[0], answers[j], stores[j] + ", " + where);
                    }
                }
                if (i % 1000 == 0) {
                    assertEquals(heap.digest(), ctx.digest(), where);
                }
            }
            assertEquals(heap.size(), ctx.size(), "seed " + seed);
            assertEquals(heap.size(), api.size(), "seed " + seed);
            assertEquals(heap.digest(), ctx.digest(), "seed " + seed);
            assertEquals(heap.digest(), api.digest(), "seed " + seed);
        }
    }

    @Test
    void serviceGivesIdenticalResultsAndUsageOnBothChroniclePaths() {
        long seed = seed("serviceGivesIdenticalResultsAndUsageOnBothChroniclePaths");
        Workload w = new Workload(seed, 300, 300);
        try (KvStore ctx = CONFIG.open(); KvStore api = ChronicleKvStore.openMapApi(CONFIG)) {
            KvService a = new KvService(ctx, KvLimits.defaults());
            KvService b = new KvService(api, KvLimits.defaults());
            for (int i = 0; i < 10_000; i++) {
                KvCommand cmd = w.command(1, i + 1);
                assertEquals(b.execute(cmd), a.execute(cmd), "command " + i + " " + cmd + ", seed " + seed);
                assertEquals(b.usedBytes(), a.usedBytes(), "command " + i + ", seed " + seed);
            }
            long used = a.usedBytes();
            a.recount();
            assertEquals(a.usedBytes(), used, "the counted bytes equal a recount, seed " + seed);
            assertEquals(api.digest(), ctx.digest(), "seed " + seed);
        }
    }

    @Test
    void threadsOnDisjointKeysKeepTheirOwnScratch() throws Exception {
        long seed = seed("threadsOnDisjointKeysKeepTheirOwnScratch");
        int threads = 4;
        try (KvStore ctx = CONFIG.open(); KvStore heap = StoreConfig.heap().open()) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    done.add(pool.submit(() -> {
                        Random r = new Random(seed + thread);
                        for (int i = 0; i < 5_000; i++) {
                            byte[] key = ("t" + thread + "-" + r.nextInt(50)).getBytes();
                            byte[] value = bytes(r, r.nextInt(5) == 0 ? 600 : 30);
                            int op = r.nextInt(4);
                            String where = "thread " + thread + " call " + i + ", seed " + seed;
                            switch (op) {
                                case 0 -> assertArrayEquals(heap.get(key), ctx.get(key), where);
                                case 1 -> assertEquals(heap.putReturningPreviousSize(key, value),
                                        ctx.putReturningPreviousSize(key, value), where);
                                case 2 -> assertEquals(heap.replaceReturningPreviousSize(key, value),
                                        ctx.replaceReturningPreviousSize(key, value), where);
                                default -> assertEquals(heap.removeReturningPreviousSize(key),
                                        ctx.removeReturningPreviousSize(key), where);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(heap.digest(), ctx.digest(), "seed " + seed);
        }
    }
}
