package io.psmr.kvstore.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.HeapKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copy-on-write snapshots: whatever is written while the snapshot runs, the file holds exactly the
 * state at {@code begin()}. Seeded (-Dpsmr.seed=S); the seed is in every assertion message.
 */
class SnapshottingStoreTest {

    static final StoreConfig SIZING = StoreConfig.defaults().sized(40_000, 8, 24);
    static final int KEYS_BEFORE = 6_000;
    static final int KEY_SPACE = 12_000; // writers also insert keys that did not exist at begin
    static final int WRITERS = 4;

    @TempDir
    Path dir;

    static long seed() {
        return Long.getLong("psmr.seed", 20240611L);
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(8).putInt(0x6b657900).putInt(i).array();
    }

    static byte[] value(Random r) {
        byte[] v = new byte[1 + r.nextInt(40)];
        r.nextBytes(v);
        return v;
    }

    /** One random write on key i, through every write method. */
    static void randomWrite(KvStore s, Random r, int i) {
        byte[] k = key(i);
        switch (r.nextInt(5)) {
            case 0, 1 -> s.put(k, value(r));
            case 2 -> s.remove(k);
            case 3 -> s.putIfAbsent(k, value(r));
            default -> s.replace(k, value(r));
        }
    }

    static Map<ByteBuffer, byte[]> copy(KvStore s) {
        Map<ByteBuffer, byte[]> m = new HashMap<>();
        s.forEach((k, v) -> m.put(ByteBuffer.wrap(k.clone()), v.clone()));
        return m;
    }

    static long digest(Map<ByteBuffer, byte[]> m) {
        StateDigest d = new StateDigest();
        m.forEach((k, v) -> d.add(k.array(), v));
        return d.value();
    }

    /**
     * Fills the store, calls begin() at the quiesce point, then writes from {@link #WRITERS} threads on
     * disjoint keys (key i belongs to writer i % WRITERS, as the scheduler would never run two writers
     * of one key at once). The hook holds the snapshot's writer thread before its iteration until
     * every writer has written a first round (so the iteration sees changed values that only the
     * before-images can undo), and, if {@code pauseMidway}, again halfway through the iteration.
     *
     * @return the snapshot's result and the expected state
     */
    SnapshotResult snapshotUnderWrites(SnapshottingStore store, String name, boolean pauseMidway,
                                       Map<ByteBuffer, byte[]> expectedOut) throws Exception {
        long seed = seed();
        Random r = new Random(seed);
        for (int n = 0; n < 3 * KEYS_BEFORE; n++) {
            randomWrite(store, r, r.nextInt(KEYS_BEFORE));
        }
        expectedOut.putAll(copy(store));
        CountDownLatch firstRound = new CountDownLatch(WRITERS);
        CountDownLatch midwayReached = new CountDownLatch(1);
        CountDownLatch secondRound = new CountDownLatch(WRITERS);
        long half = expectedOut.size() / 2;
        store.progressHook = visited -> {
            try {
                if (visited == 0) {
                    assertTrue(firstRound.await(30, TimeUnit.SECONDS), "writers did not finish their first round");
                } else if (pauseMidway && visited == half) {
                    midwayReached.countDown();
                    assertTrue(secondRound.await(30, TimeUnit.SECONDS), "writers did not finish their second round");
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        };
        SnapshottingStore.Snapshot s = store.begin(7, dir.resolve(name));
        assertTrue(s.pauseNanos() > 0);
        List<Thread> writers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int w = 0; w < WRITERS; w++) {
            int id = w;
            Thread t = new Thread(() -> {
                try {
                    Random wr = new Random(seed * 31 + id);
                    for (int round = 0; round < 3; round++) {
                        for (int n = 0; n < 2_000; n++) {
                            randomWrite(store, wr, id + WRITERS * wr.nextInt(KEY_SPACE / WRITERS));
                        }
                        if (round == 0) {
                            firstRound.countDown();
                            if (pauseMidway) {
                                assertTrue(midwayReached.await(30, TimeUnit.SECONDS), "the iteration did not reach midway");
                            }
                        } else if (round == 1) {
                            secondRound.countDown();
                        }
                    }
                } catch (Throwable e) {
                    failure.set(e);
                    firstRound.countDown();
                    secondRound.countDown();
                }
            }, "writer-" + w);
            t.start();
            writers.add(t);
        }
        SnapshotResult result = s.completion().get(60, TimeUnit.SECONDS);
        for (Thread t : writers) {
            t.join(30_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("a writer failed, seed=" + seed, failure.get());
        }
        assertFalse(store.snapshotRunning());
        return result;
    }

    static void assertHolds(Map<ByteBuffer, byte[]> expected, SnapshotResult result, String context) {
        Map<ByteBuffer, byte[]> actual;
        try (KvStore snap = StoreFiles.open(result.file())) {
            actual = copy(snap);
        }
        assertEquals(expected.size(), actual.size(), context + ": entry count");
        assertEquals(expected.size(), result.entries(), context + ": reported entry count");
        for (Map.Entry<ByteBuffer, byte[]> e : expected.entrySet()) {
            assertArrayEquals(e.getValue(), actual.get(e.getKey()), context + ": value of key " + e.getKey());
        }
        assertEquals(StateDigest.hex(digest(expected)), StateDigest.hex(result.digest()), context + ": digest");
    }

    @Test
    void chronicleSnapshotHoldsTheStateAtBegin() throws Exception {
        Map<ByteBuffer, byte[]> expected = new HashMap<>();
        try (SnapshottingStore store = new SnapshottingStore(SIZING.open(), SIZING, 64 << 20)) {
            SnapshotResult result = snapshotUnderWrites(store, "chronicle.cm", false, expected);
            assertTrue(result.imagesApplied() > 0, "writes during the snapshot recorded before-images, seed=" + seed());
            assertHolds(expected, result, "chronicle, seed=" + seed());
            assertNotEquals(digest(expected), store.digest(), "the live store moved on, seed=" + seed());
        }
    }

    @Test
    void heapSnapshotHoldsTheStateAtBeginWithWritesBeforeDuringAndAfterTheIteration() throws Exception {
        Map<ByteBuffer, byte[]> expected = new HashMap<>();
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 64 << 20)) {
            SnapshotResult result = snapshotUnderWrites(store, "heap.cm", true, expected);
            assertHolds(expected, result, "heap, seed=" + seed());
        }
    }

    /** The same workload without before-images yields a wrong snapshot: the test can fail. */
    @Test
    void withoutBeforeImagesTheSnapshotIsWrong() throws Exception {
        Map<ByteBuffer, byte[]> expected = new HashMap<>();
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 64 << 20)) {
            store.recordBeforeImages = false;
            SnapshotResult result = snapshotUnderWrites(store, "broken.cm", true, expected);
            assertEquals(0, result.imagesApplied());
            AssertionError e = assertThrows(AssertionError.class, () -> assertHolds(expected, result, "broken"));
            assertNotNull(e.getMessage());
        }
    }

    @Test
    void oneSnapshotAtATimeAndANewFile() throws Exception {
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            store.put(key(1), new byte[] {1});
            CountDownLatch hold = new CountDownLatch(1);
            store.progressHook = visited -> {
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            };
            SnapshottingStore.Snapshot s = store.begin(10, dir.resolve("a.cm"));
            assertTrue(store.snapshotRunning());
            IllegalStateException busy = assertThrows(IllegalStateException.class, () -> store.begin(11, dir.resolve("b.cm")));
            assertEquals("a snapshot of instance 10 is still being written; cannot begin one at instance 11", busy.getMessage());
            hold.countDown();
            assertEquals(1, s.completion().get(30, TimeUnit.SECONDS).entries());
            store.progressHook = null;
            IllegalArgumentException exists = assertThrows(IllegalArgumentException.class, () -> store.begin(12, dir.resolve("a.cm")));
            assertEquals("the snapshot file " + dir.resolve("a.cm") + " exists already; a snapshot writes a new file", exists.getMessage());
            assertEquals(1, store.begin(12, dir.resolve("c.cm")).completion().get(30, TimeUnit.SECONDS).entries());
        }
    }

    @Test
    void aSnapshotWhoseBeforeImagesExceedTheBoundIsAbandoned() throws Exception {
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 10_000)) {
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), new byte[16]);
            }
            CountDownLatch hold = new CountDownLatch(1);
            store.progressHook = visited -> {
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            };
            Path file = dir.resolve("over.cm");
            SnapshottingStore.Snapshot s = store.begin(5, file);
            for (int i = 0; i < 1000; i++) {
                store.put(key(i), new byte[] {2}); // every write succeeds: a bound never refuses a write
            }
            hold.countDown();
            ExecutionException e = assertThrows(ExecutionException.class, () -> s.completion().get(30, TimeUnit.SECONDS));
            assertEquals("the snapshot of instance 5 was abandoned: its before-images exceeded 10000 bytes", e.getCause().getMessage());
            assertFalse(Files.exists(file));
            assertArrayEquals(new byte[] {2}, store.get(key(999)));
            assertFalse(store.snapshotRunning());
        }
    }

    /** Verifying a file (opening it as a Chronicle Map) must not change its bytes, or its CRC would break. */
    @Test
    void openingASnapshotFileLeavesItsBytesUnchanged() throws Exception {
        try (SnapshottingStore store = new SnapshottingStore(SIZING.open(), SIZING, 1 << 20)) {
            Random r = new Random(seed());
            for (int i = 0; i < 2000; i++) {
                store.put(key(i), value(r));
            }
            SnapshotResult result = store.begin(3, dir.resolve("s.cm")).completion().get(30, TimeUnit.SECONDS);
            long crc = FileChecks.crc32c(result.file());
            long len = Files.size(result.file());
            StoreFiles.Summary summary = StoreFiles.summarize(result.file());
            assertEquals(result.digest(), summary.digest());
            assertEquals(2000, summary.entries());
            assertEquals(len, Files.size(result.file()));
            assertEquals(CheckpointManifest.crcHex(crc), CheckpointManifest.crcHex(FileChecks.crc32c(result.file())));
            System.out.println("snapshot file of 2000 entries: " + len + " bytes");
        }
    }
}
