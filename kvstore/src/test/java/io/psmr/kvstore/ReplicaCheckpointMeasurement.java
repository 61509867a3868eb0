package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.checkpoint.InstalledCheckpoint;
import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.ConflictDetection;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * A measurement, not a test of behaviour (run it with {@code -Dpsmr.checkpoint.measure=true}): a
 * replica holding 10^6 keys (16-byte keys, 64-byte values) takes a checkpoint through the real path
 * (quiesce, session table, copy-on-write handoff, snapshot written beside execution), and a new
 * replica state-transfers it over HTTP and starts from it. Prints the delivery pause, the time until
 * the checkpoint is durable, its size, and the fetch and install times.
 */
@EnabledIfSystemProperty(named = "psmr.checkpoint.measure", matches = "true")
class ReplicaCheckpointMeasurement {

    private static final int KEYS = 1_000_000;
    private static final int PER_COMMAND = 64;
    private static final int COMMANDS_PER_BATCH = 128; // about 0.7 MiB, under the 1 MiB batch limit

    @TempDir
    Path dir;

    @Test
    void checkpointAndStateTransferOfAMillionKeys() throws Exception {
        ConflictDetection detection = ConflictDetection.bitmap(1_024_000);
        StoreCapacity capacity = StoreCapacity.of(KEYS + 1_000, 16 + 64);
        ReplicaConfig config = ReplicaConfig.builder().detection(detection).workers(2).capacity(capacity)
                .store(StoreConfig.defaults().forCapacity(capacity, 16)).build();
        int batches = KEYS / (PER_COMMAND * COMMANDS_PER_BATCH) + 1;
        long interval = batches + 2; // instance 1 opens the session; the first checkpoint follows the last fill batch
        CheckpointStore store = CheckpointStore.open(dir.resolve("r1"), 2);
        AtomicLong durable = new AtomicLong();
        long[] durableAt = new long[1];
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(256).maxValueBytes(4 << 20).build()) {
            Replica replica = Replica.start(config, seq, new LocalReplyRouter(), Checkpointing.every(interval, store,
                    new Checkpointing.Hook() {
                        @Override
                        public byte[] orderingState(long instance) {
                            return new byte[0];
                        }

                        @Override
                        public void checkpointed(long instance) {
                            durableAt[0] = System.nanoTime();
                            durable.set(instance);
                        }
                    }), null);
            seq.start();
            try {
                assertEquals(1, seq.propose(Workload.openSessions(1, detection)).get());
                long session = Workload.session(1, 0);
                int key = 0;
                long requestSeq = 0;
                for (int b = 0; b < batches; b++) {
                    List<KvCommand> commands = new ArrayList<>(COMMANDS_PER_BATCH);
                    for (int c = 0; c < COMMANDS_PER_BATCH && key < KEYS; c++) {
                        int n = Math.min(PER_COMMAND, KEYS - key);
                        byte[][] keys = new byte[n][];
                        byte[][] values = new byte[n][];
                        for (int i = 0; i < n; i++, key++) {
                            keys[i] = String.format("key-%011d", key).getBytes(StandardCharsets.UTF_8);
                            values[i] = new byte[64];
                            values[i][0] = (byte) key;
                        }
                        commands.add(KvCommand.multiPut(session, ++requestSeq, keys, values));
                    }
                    if (!commands.isEmpty()) {
                        seq.propose(Workload.encode(1, b + 1, commands, detection)).get();
                    }
                }
                // Reach the checkpoint instance with one small batch, timing from its delivery. With
                // -Dpsmr.checkpoint.drained=true the fill batches have executed first, so the pause
                // holds no drain of earlier work: only the session table and the handoff.
                if (Boolean.getBoolean("psmr.checkpoint.drained")) {
                    assertTrue(replica.awaitApplied(seq.lastInstance(), 120, TimeUnit.SECONDS));
                }
                long start = 0;
                while (seq.lastInstance() < interval) {
                    start = System.nanoTime();
                    seq.propose(Workload.encode(1, 10_000 + seq.lastInstance(),
                            List.of(KvCommand.read(session, ++requestSeq, "key-00000000001".getBytes(StandardCharsets.UTF_8))),
                            detection)).get();
                }
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
                while (durable.get() < interval && System.nanoTime() < deadline) {
                    Thread.sleep(50); // a measurement: polling the hook, bounded
                }
                assertEquals(interval, durable.get(), "checkpoint durable");
                Replica.CheckpointStats s = replica.checkpointStats();
                Checkpoint cp = store.open(interval);
                long size = Files.size(cp.storeFile()) + Files.size(cp.stateFile());
                System.out.printf("replica checkpoint of %,d keys at instance %d: delivery pause %.2f ms (handoff %d us), "
                                + "durable %.2f s after delivery, %,d bytes on disk%n", replica.store().size(), interval,
                        s.lastPauseNanos() / 1e6, s.lastHandoffNanos() / 1_000, (durableAt[0] - start) / 1e9, size);

                CheckpointStore fresh = CheckpointStore.open(dir.resolve("r2"), 2);
                try (CheckpointServer server = CheckpointServer.start(store, new InetSocketAddress("127.0.0.1", 0), 2);
                     CheckpointFetcher fetcher = new CheckpointFetcher(fresh, Duration.ofSeconds(5), Duration.ofSeconds(60),
                             4L << 30)) {
                    long t0 = System.nanoTime();
                    Checkpoint fetched = fetcher.fetch(List.of(server.address()), 1);
                    long t1 = System.nanoTime();
                    InstalledCheckpoint installed = CheckpointInstaller.install(fetched,
                            config.store().persistedTo(dir.resolve("r2-store.cm")), false);
                    long t2 = System.nanoTime();
                    try (Replica second = Replica.start(config.toBuilder().replicaId(2).build(), seq, new LocalReplyRouter(),
                            null, installed)) {
                        assertTrue(second.awaitApplied(seq.lastInstance(), 60, TimeUnit.SECONDS));
                        assertTrue(replica.awaitApplied(seq.lastInstance(), 60, TimeUnit.SECONDS));
                        assertEquals(replica.digest(), second.digest());
                    }
                    System.out.printf("state transfer: fetch and verify %.2f s, install %.2f s, total %.2f s%n",
                            (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t2 - t0) / 1e9);
                }
            } finally {
                replica.close();
            }
        }
    }
}
