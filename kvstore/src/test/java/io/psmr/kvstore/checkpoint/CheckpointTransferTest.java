package io.psmr.kvstore.checkpoint;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.psmr.kvstore.HeapKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Checkpoints over loopback, between real {@link CheckpointServer}s and a {@link CheckpointFetcher}. */
class CheckpointTransferTest {

    static final StoreConfig SIZING = StoreConfig.defaults().sized(5_000, 8, 16);
    static final InetSocketAddress LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @TempDir
    Path tmp;

    private final java.util.List<AutoCloseable> closing = new java.util.ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    <T extends AutoCloseable> T closeLater(T c) {
        closing.add(0, c);
        return c;
    }

    /** A replica's checkpoint store under {@code tmp/name} with checkpoints at {@code instances}. */
    CheckpointStore replica(String name, long... instances) throws Exception {
        CheckpointStore cs = CheckpointStore.open(tmp.resolve(name), 2);
        try (SnapshottingStore store = new SnapshottingStore(new HeapKvStore(), SIZING, 1 << 20)) {
            Random r = new Random(Long.getLong("psmr.seed", 99L));
            for (long instance : instances) {
                for (int i = 0; i < 500; i++) {
                    store.put(SnapshottingStoreTest.key(r.nextInt(2000)), SnapshottingStoreTest.value(r));
                }
                cs.take(instance, store, ("state of " + name + "@" + instance).getBytes(StandardCharsets.UTF_8))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        return cs;
    }

    CheckpointServer serve(CheckpointStore cs) throws IOException {
        return closeLater(CheckpointServer.start(cs, LOOPBACK, 2));
    }

    CheckpointFetcher fetcher(CheckpointStore local) {
        return closeLater(new CheckpointFetcher(local, Duration.ofSeconds(2), Duration.ofMillis(800), 64 << 20));
    }

    static String name(InetSocketAddress a) {
        return "peer " + a.getHostString() + ":" + a.getPort();
    }

    static InetSocketAddress unusedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
        }
    }

    @Test
    void roundTripEqualsTheSourceAndInstalls() throws Exception {
        CheckpointStore source = replica("a", 100, 200);
        Checkpoint expected = source.open(200);
        InetSocketAddress peer = serve(source).address();
        CheckpointStore local = CheckpointStore.open(tmp.resolve("b"), 2);
        Checkpoint got = fetcher(local).fetch(List.of(peer), 150);
        assertEquals(200, got.instance());
        assertEquals(expected.manifest(), got.manifest());
        assertEquals(expected.storeDigest(), local.open(200).storeDigest());
        assertEquals(List.of(200L), local.list());
        // fetching again finds it locally
        assertEquals(expected.manifest(), fetcher(local).fetch(List.of(peer), 150).manifest());

        Path storePath = tmp.resolve("replica-b.cm");
        InstalledCheckpoint installed = CheckpointInstaller.install(got, SIZING.persistedTo(storePath), false);
        try (KvStore s = installed.store()) {
            assertEquals(200, installed.instance());
            assertEquals(StateDigest.hex(expected.storeDigest()), StateDigest.hex(StateDigest.of(s)));
            assertArrayEquals("state of a@200".getBytes(StandardCharsets.UTF_8), installed.state());
            s.put(new byte[] {1}, new byte[] {2}); // the live copy is writable and the checkpoint is untouched
        }
        local.open(200);
        IOException refuse = assertThrows(IOException.class, () -> CheckpointInstaller.install(got, SIZING.persistedTo(storePath), false));
        assertEquals("refusing to replace the existing store file " + storePath.toAbsolutePath() + " with checkpoint 200 without replaceExisting",
                refuse.getMessage());
        try (KvStore s = CheckpointInstaller.install(got, SIZING.persistedTo(storePath), true).store()) {
            assertEquals(expected.storeDigest(), StateDigest.of(s));
        }
        try (KvStore s = CheckpointInstaller.install(got, StoreConfig.heap(), false).store()) {
            assertEquals(expected.storeDigest(), StateDigest.of(s));
        }
    }

    @Test
    void peersWithoutARecentEnoughCheckpointOrUnreachableAreSkippedAndNamed() throws Exception {
        InetSocketAddress dead = unusedPort();
        InetSocketAddress old = serve(replica("old", 50)).address();
        InetSocketAddress empty = serve(CheckpointStore.open(tmp.resolve("empty"), 2)).address();
        InetSocketAddress good = serve(replica("good", 120)).address();
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        CheckpointFetcher f = fetcher(local);
        assertEquals(120, f.fetch(List.of(dead, old, empty, good), 100).instance());

        CheckpointFetchException e = assertThrows(CheckpointFetchException.class, () -> f.fetch(List.of(dead, old), 100));
        assertEquals(2, e.reasons().size());
        assertTrue(e.reasons().get(0).startsWith(name(dead) + ": ConnectException"), e.reasons().get(0));
        assertEquals(name(old) + " has no checkpoint at or after instance 100", e.reasons().get(1));
        assertTrue(e.getMessage().startsWith("no checkpoint at or after instance 100 could be fetched: " + name(dead)), e.getMessage());
    }

    @Test
    void aCorruptedStreamIsRefusedNamingThePeerAndTheFile() throws Exception {
        CheckpointStore bad = replica("bad", 300);
        Path file = bad.directory(300).resolve(CheckpointStore.STORE_FILE);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, 5000);
            b.put(0, (byte) (b.get(0) ^ 1)).rewind();
            ch.write(b, 5000);
        }
        InetSocketAddress peer = serve(bad).address();
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        CheckpointFetchException e = assertThrows(CheckpointFetchException.class, () -> fetcher(local).fetch(List.of(peer), 0));
        String reason = e.reasons().get(0);
        assertTrue(reason.startsWith(name(peer) + ", checkpoint 300: store.cm has CRC-32C "), reason);
        assertTrue(reason.endsWith(", the manifest says " + CheckpointManifest.crcHex(
                CheckpointManifest.parse(Files.readAllBytes(bad.directory(300).resolve(CheckpointStore.MANIFEST_FILE)), "x").storeCrc())), reason);
        assertEquals(List.of(), local.list());
        assertEquals(0, Files.list(local.directory()).count()); // the partial transfer is gone
    }

    @Test
    void aStoreWhoseDigestDiffersFromTheDeclaredOneIsRefused() throws Exception {
        CheckpointStore liar = replica("liar", 400);
        Path manifestFile = liar.directory(400).resolve(CheckpointStore.MANIFEST_FILE);
        CheckpointManifest m = CheckpointManifest.parse(Files.readAllBytes(manifestFile), "x");
        long wrong = m.storeDigest() ^ 0xff;
        Files.write(manifestFile, new CheckpointManifest(m.instance(), wrong, m.entries(), m.storeLength(), m.storeCrc(),
                m.stateLength(), m.stateCrc()).toBytes());
        InetSocketAddress peer = serve(liar).address();
        InetSocketAddress good = serve(replica("good", 400)).address();
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        CheckpointFetcher f = fetcher(local);
        CheckpointFetchException e = assertThrows(CheckpointFetchException.class, () -> f.fetch(List.of(peer), 400));
        assertEquals(name(peer) + ", checkpoint 400: the received store's digest is " + StateDigest.hex(m.storeDigest())
                + " (" + m.entries() + " entries) but the peer declared " + StateDigest.hex(wrong) + " (" + m.entries() + " entries)",
                e.reasons().get(0));
        assertEquals(List.of(), local.list());
        assertEquals(400, f.fetch(List.of(peer, good), 400).instance()); // the next peer is tried
    }

    @Test
    void aStalledOrOversizedTransferIsAbandoned() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HttpServer stalling = HttpServer.create(LOOPBACK, 4);
        stalling.createContext(CheckpointServer.PATH, ex -> {
            ex.getResponseHeaders().set(CheckpointServer.INSTANCE_HEADER, "500");
            ex.getResponseHeaders().set(CheckpointServer.DIGEST_HEADER, "0000000000000001");
            ex.sendResponseHeaders(200, 0);
            ex.getResponseBody().write(new byte[] {'P', 'K'});
            ex.getResponseBody().flush();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            ex.close();
        });
        stalling.start();
        closeLater(() -> {
            release.countDown();
            stalling.stop(0);
        });
        InetSocketAddress peer = stalling.getAddress();
        CheckpointStore local = CheckpointStore.open(tmp.resolve("local"), 2);
        CheckpointFetchException e = assertThrows(CheckpointFetchException.class, () -> fetcher(local).fetch(List.of(peer), 0));
        assertEquals(name(peer) + ", checkpoint 500: no data for 800 ms", e.reasons().get(0));

        InetSocketAddress big = serve(replica("big", 600)).address();
        CheckpointFetcher small = closeLater(new CheckpointFetcher(local, Duration.ofSeconds(2), Duration.ofSeconds(2), 10_000));
        CheckpointFetchException tooBig = assertThrows(CheckpointFetchException.class, () -> small.fetch(List.of(big), 0));
        assertEquals(name(big) + ", checkpoint 600: the body exceeds the limit of 10000 bytes", tooBig.reasons().get(0));
        assertEquals(0, Files.list(local.directory()).count());
    }
}
