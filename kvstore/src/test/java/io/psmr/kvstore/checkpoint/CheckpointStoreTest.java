package io.psmr.kvstore.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.HeapKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointStoreTest {

    static final StoreConfig SIZING = StoreConfig.defaults().sized(5_000, 8, 16);

    @TempDir
    Path root;

    /** Takes a checkpoint of a store with {@code n} entries at {@code instance}. */
    static Checkpoint take(CheckpointStore cs, SnapshottingStore store, long instance, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            store.put(SnapshottingStoreTest.key(i), ByteBuffer.allocate(8).putLong(instance * 1000 + i).array());
        }
        return cs.take(instance, store, ("state@" + instance).getBytes()).get(30, TimeUnit.SECONDS);
    }

    @Test
    void writesListsAndKeepsTheNewestTwo() throws Exception {
        CheckpointStore cs = CheckpointStore.open(root, CheckpointStore.DEFAULT_RETAIN);
        assertEquals(OptionalLong.empty(), cs.latest());
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            Checkpoint c10 = take(cs, store, 10, 100);
            assertEquals(root.resolve("checkpoints/00000000000000000010"), c10.directory());
            assertEquals(StateDigest.of(store), c10.storeDigest());
            assertEquals(100, c10.manifest().entries());
            take(cs, store, 20, 200);
            assertEquals(List.of(10L, 20L), cs.list());
            Checkpoint c30 = take(cs, store, 30, 300);
            assertEquals(List.of(20L, 30L), cs.list()); // 10 deleted once 30 was complete
            assertEquals(OptionalLong.of(30), cs.latest());
            Checkpoint opened = cs.open(30);
            assertEquals(c30.manifest(), opened.manifest());
            assertArrayEquals("state@30".getBytes(), opened.readState());
            try (KvStore s = StoreFiles.open(opened.storeFile())) {
                assertEquals(300, s.size());
                assertEquals(StateDigest.of(store), StateDigest.of(s));
            }
            NoSuchFileException none = assertThrows(NoSuchFileException.class, () -> cs.open(10));
            assertTrue(none.getMessage().contains("no complete checkpoint of instance 10"), none.getMessage());
            // a checkpoint from a completed store file
            Checkpoint c40 = cs.write(40, new byte[] {4}, opened.storeFile());
            assertEquals(c30.storeDigest(), c40.storeDigest());
            assertEquals(List.of(30L, 40L), cs.list());
            IOException dup = assertThrows(IOException.class, () -> cs.write(40, new byte[] {4}, opened.storeFile()));
            assertEquals("a checkpoint of instance 40 exists already at " + cs.directory(40), dup.getMessage());
            assertEquals(List.of(30L, 40L), cs.list());
            assertEquals(2, Files.list(cs.directory()).count()); // the refused one left no temp directory
        }
    }

    @Test
    void aDamagedFileIsRefusedByName() throws Exception {
        CheckpointStore cs = CheckpointStore.open(root, 2);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            Checkpoint c = take(cs, store, 5, 50);
            Path file = c.storeFile();
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.allocate(1);
                ch.read(b, 4096);
                b.put(0, (byte) (b.get(0) ^ 0x5a)).rewind();
                ch.write(b, 4096);
            }
            IOException e = assertThrows(IOException.class, () -> cs.open(5));
            String expected = "checkpoint 5 is damaged: " + file + " has CRC-32C ";
            assertTrue(e.getMessage().startsWith(expected) && e.getMessage().endsWith(
                    ", the manifest says " + CheckpointManifest.crcHex(c.manifest().storeCrc())), e.getMessage());

            Files.write(c.stateFile(), new byte[] {1, 2, 3});
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(100);
            }
            IOException shorter = assertThrows(IOException.class, () -> cs.open(5));
            assertEquals("checkpoint 5 is damaged: " + file + " has 100 bytes, the manifest says " + c.manifest().storeLength(),
                    shorter.getMessage());
        }
    }

    @Test
    void aHalfWrittenCheckpointIsIgnoredAndCleanedUpOnOpen() throws Exception {
        CheckpointStore cs = CheckpointStore.open(root, 2);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            take(cs, store, 7, 10);
        }
        // a crash mid-write leaves a temp directory with some files, and never a numbered one
        Path half = cs.directory().resolve("tmp-00000000000000000009-1234-1");
        Files.createDirectories(half);
        Files.write(half.resolve(CheckpointStore.STORE_FILE), new byte[1000]);
        Path noManifest = cs.directory(8); // not produced by this code, but must not be taken for complete
        Files.createDirectories(noManifest);
        assertEquals(List.of(7L), cs.list());
        assertEquals(OptionalLong.of(7), cs.latest());
        CheckpointStore reopened = CheckpointStore.open(root, 2);
        assertFalse(Files.exists(half));
        assertEquals(List.of(7L), reopened.list());
        reopened.open(7);
    }

    @Test
    void aFailedSnapshotLeavesNothingBehind() throws Exception {
        CheckpointStore cs = CheckpointStore.open(root, 2);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 200)) {
            for (int i = 0; i < 100; i++) {
                store.put(SnapshottingStoreTest.key(i), new byte[8]);
            }
            java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
            store.progressHook = v -> {
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            };
            var f = cs.take(3, store, new byte[0]);
            for (int i = 0; i < 100; i++) {
                store.remove(SnapshottingStoreTest.key(i));
            }
            hold.countDown();
            Exception e = assertThrows(Exception.class, () -> f.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("the snapshot of instance 3 failed: the snapshot of instance 3 was abandoned"),
                    e.getCause().getMessage());
            assertEquals(List.of(), cs.list());
            assertEquals(0, Files.list(cs.directory()).count());
        }
    }

    @Test
    void aCheckpointOfAnotherStoreIsMovedInWholeAndNeverOverAnExistingOne() throws Exception {
        CheckpointStore local = CheckpointStore.open(root.resolve("replica"), 2);
        CheckpointStore staging = CheckpointStore.open(root.resolve("replica").resolve("staging"), 1);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            take(local, store, 10, 10);
            take(local, store, 20, 20);
            Checkpoint fetched = take(staging, store, 30, 30);
            Checkpoint moved = local.moveIn(fetched);
            assertEquals(local.directory(30), moved.directory());
            assertEquals(fetched.manifest(), local.open(30).manifest(), "the files arrive intact");
            assertEquals(List.of(20L, 30L), local.list(), "retention applies");
            assertEquals(List.of(), staging.list());
            assertFalse(Files.exists(fetched.directory()));

            Checkpoint again = take(staging, store, 30, 31);
            java.nio.file.FileAlreadyExistsException dup = assertThrows(java.nio.file.FileAlreadyExistsException.class,
                    () -> local.moveIn(again));
            assertTrue(dup.getMessage().contains("a checkpoint of instance 30 exists already"), dup.getMessage());
            assertEquals(moved.manifest(), local.open(30).manifest(), "the existing checkpoint is untouched");
            assertEquals(List.of(30L), staging.list(), "nothing moved");
        }
    }
}
