package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StateDigest;
import io.psmr.kvstore.StoreConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A one-off measurement, not a test (nothing about speed is asserted): 10^6 keys of 16 bytes with
 * 64-byte values; prints the begin() pause, the checkpoint write time and size, and the
 * fetch+verify+install time over loopback. Runs only with {@code -Dpsmr.checkpoint.measure=true}:
 * <pre>mvn -B -o -pl kvstore -am -Dtest=CheckpointMeasurement -Dpsmr.checkpoint.measure=true -Dsurefire.failIfNoSpecifiedTests=false test</pre>
 */
@EnabledIfSystemProperty(named = "psmr.checkpoint.measure", matches = "true")
class CheckpointMeasurement {

    @TempDir
    Path tmp;

    @Test
    void measure() throws Exception {
        int n = Integer.getInteger("psmr.checkpoint.keys", 1_000_000);
        StoreConfig sizing = StoreConfig.defaults().sized(n, 16, 64);
        Random r = new Random(1);
        try (SnapshottingStore store = new SnapshottingStore(sizing.open(), sizing, 256L << 20)) {
            long t0 = System.nanoTime();
            byte[] v = new byte[64];
            for (int i = 0; i < n; i++) {
                r.nextBytes(v);
                store.put(key(i), v.clone());
            }
            System.out.printf("fill %d keys: %d ms%n", n, ms(System.nanoTime() - t0));
            CheckpointStore source = CheckpointStore.open(tmp.resolve("a"), 2);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            // two writers on disjoint keys while the checkpoint is written, as the scheduler's workers would
            CompletableFuture<?>[] writers = new CompletableFuture<?>[2];
            long tTake = System.nanoTime();
            CompletableFuture<Checkpoint> f = source.take(1000, store, new byte[4096]);
            for (int w = 0; w < 2; w++) {
                int id = w;
                writers[w] = CompletableFuture.runAsync(() -> {
                    Random wr = new Random(id);
                    while (!stop.get()) {
                        store.put(key(id + 2 * wr.nextInt(n / 2)), new byte[64]);
                        writes.incrementAndGet();
                    }
                });
            }
            Checkpoint c = f.get(10, TimeUnit.MINUTES);
            long takeNanos = System.nanoTime() - tTake;
            stop.set(true);
            CompletableFuture.allOf(writers).get();
            long onDisk = Files.size(c.storeFile());
            long allocated = allocatedBytes(c.storeFile());
            System.out.printf("begin() pause: %.1f us%n", store.lastPauseNanos() / 1000.0);
            System.out.printf("checkpoint write (snapshot + state + CRC + fsync + rename): %d ms, %d concurrent writes%n",
                    ms(takeNanos), writes.get());
            System.out.printf("store.cm: %d bytes long, %d bytes allocated on disk; %d entries, digest %s%n",
                    onDisk, allocated, c.manifest().entries(), StateDigest.hex(c.storeDigest()));
            long tQuiet = System.nanoTime();
            Checkpoint quiet = source.take(2000, store, new byte[4096]).get(10, TimeUnit.MINUTES);
            System.out.printf("second checkpoint, no concurrent writes: begin() pause %.1f us, write %d ms%n",
                    store.lastPauseNanos() / 1000.0, ms(System.nanoTime() - tQuiet));
            try (CheckpointServer server = CheckpointServer.start(source, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 2);
                 CheckpointFetcher fetcher = new CheckpointFetcher(CheckpointStore.open(tmp.resolve("b"), 2),
                         Duration.ofSeconds(5), Duration.ofSeconds(30), 8L << 30)) {
                long t1 = System.nanoTime();
                Checkpoint got = fetcher.fetch(List.of(server.address()), 2000);
                long fetched = System.nanoTime() - t1;
                long t2 = System.nanoTime();
                InstalledCheckpoint installed = CheckpointInstaller.install(got, sizing.persistedTo(tmp.resolve("live.cm")), false);
                long install = System.nanoTime() - t2;
                try (KvStore s = installed.store()) {
                    System.out.printf("fetch+verify over loopback: %d ms; install (copy + open + digest): %d ms; total %d ms; %d entries%n",
                            ms(fetched), ms(install), ms(fetched + install), s.size());
                }
            }
        }
    }

    static byte[] key(int i) {
        return ByteBuffer.allocate(16).putLong(0x6b6579L).putLong(i).array();
    }

    /** Bytes allocated on disk (the file may be sparse), from du; -1 where du is missing. */
    static long allocatedBytes(Path file) {
        try {
            Process p = new ProcessBuilder("du", "-k", file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Long.parseLong(out.split("\\s+")[0]) * 1024;
        } catch (Exception e) {
            return -1;
        }
    }

    static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
