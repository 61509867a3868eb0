package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointInstaller;
import io.psmr.kvstore.checkpoint.CheckpointServer;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.ConflictDetection;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints of a replica over the local sequencer: taken every K instances while the load runs,
 * and a replica that was closed comes back from its own latest checkpoint, or from one fetched from a
 * live replica, replays the rest of the log, and reaches the others' digest.
 */
class ReplicaCheckpointTest {

    private static final ConflictDetection DETECTION = ConflictDetection.bitmap(8_192);
    private static final long INTERVAL = 16;

    @TempDir
    Path dir;

    private ReplicaConfig config(int id) {
        // A small capacity, so that the store is full most of the run: a resumed replica must refuse
        // exactly the writes the others refuse (the capacity guard's state travels in the checkpoint).
        return ReplicaConfig.builder().replicaId(id).detection(DETECTION).workers(2).maxPending(32)
                .capacity(new StoreCapacity(60, 1_000_000)).store(StoreConfig.defaults().sized(5_000, 8, 48)).build();
    }

    @Test
    void aClosedReplicaComesBackFromItsOwnCheckpointOrOneFetchedFromAPeer() throws Exception {
        long seed = Long.getLong("psmr.seed", 7L);
        LocalReplyRouter router = new LocalReplyRouter();
        List<CheckpointStore> stores = new ArrayList<>();
        List<AtomicLong> reported = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            stores.add(CheckpointStore.open(dir.resolve("r" + id), 2));
            reported.add(new AtomicLong());
        }
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(4_096).maxValueBytes(1 << 20).build()) {
            List<Replica> replicas = new ArrayList<>();
            for (int id = 1; id <= 3; id++) {
                replicas.add(Replica.start(config(id), seq, router, Checkpointing.every(INTERVAL, stores.get(id - 1),
                        hook(reported.get(id - 1))), null));
            }
            seq.start();
            try {
                assertEquals(1, seq.propose(Workload.openSessions(8, DETECTION)).get());
                Workload w = new Workload(seed, 500, 40);
                long[] nextSeq = new long[8];
                Random random = new Random(seed);
                propose(seq, w, random, nextSeq, 1, 100, reported);
                assertTrue(replicas.get(2).awaitApplied(seq.lastInstance(), 30, TimeUnit.SECONDS));
                assertEquals(96, reported.get(2).get(), "a checkpoint every 16 instances, none skipped");
                replicas.get(2).close();
                long stoppedAt = replicas.get(2).stats().lastInstance();

                propose(seq, w, random, nextSeq, 101, 200, reported.subList(0, 2));
                // Back from its own latest checkpoint, replaying the instances the sequencer retained.
                Checkpoint own = stores.get(2).open(stores.get(2).latest().orElseThrow());
                assertEquals(96, own.instance(), "stopped at " + stoppedAt);
                Replica back = Replica.start(config(3), seq, router, Checkpointing.every(INTERVAL, stores.get(2),
                        hook(reported.get(2))), CheckpointInstaller.install(own, config(3).store(), false));
                replicas.set(2, back);
                propose(seq, w, random, nextSeq, 201, 260, reported.subList(0, 2)); // replica 3 replays a burst: it may skip some
                assertDigestsEqual(seq, replicas, "after replica 3 resumed from its own checkpoint " + own.instance());

                // A fourth replica with nothing of its own: state transfer from replica 1's checkpoint server.
                assertEquals(256, reported.get(0).get());
                CheckpointStore fresh = CheckpointStore.open(dir.resolve("r4"), 2);
                try (CheckpointServer server = CheckpointServer.start(stores.get(0), new InetSocketAddress("127.0.0.1", 0), 2);
                     CheckpointFetcher fetcher = new CheckpointFetcher(fresh, Duration.ofSeconds(5), Duration.ofSeconds(10),
                             64L << 20)) {
                    Checkpoint fetched = fetcher.fetch(List.of(server.address()), 200);
                    assertEquals(256, fetched.instance(), "the newest checkpoint of replica 1");
                    replicas.add(Replica.start(config(4), seq, router, null,
                            CheckpointInstaller.install(fetched, config(4).store(), false)));
                }
                propose(seq, w, random, nextSeq, 261, 300, reported.subList(0, 2));
                assertDigestsEqual(seq, replicas, "after replica 4 joined by state transfer");
                for (Replica r : replicas) {
                    assertTrue(r.isServing(), "replica " + r.id() + ": " + r.failure());
                }
                assertTrue(replicas.get(0).stats().commandsFull() > 100, "the store must be full much of the run: "
                        + replicas.get(0).stats());
                Replica.CheckpointStats s = replicas.get(0).checkpointStats();
                assertTrue(s.lastCheckpoint() >= 256 && s.maxPauseNanos() >= 0, s.toString());
                System.out.println("checkpoint pause of replica 1: last " + s.lastPauseNanos() / 1_000 + " us, max "
                        + s.maxPauseNanos() / 1_000 + " us, handoff " + s.lastHandoffNanos() / 1_000 + " us, skipped "
                        + s.skipped());
            } finally {
                replicas.forEach(Replica::close);
            }
        }
    }

    private static Checkpointing.Hook hook(AtomicLong reported) {
        return new Checkpointing.Hook() {
            @Override
            public byte[] orderingState(long instance) {
                return new byte[] {(byte) instance};
            }

            @Override
            public void checkpointed(long instance) {
                reported.accumulateAndGet(instance, Math::max);
            }
        };
    }

    /**
     * Proposes batches {@code firstBatch..lastBatch}; whenever one lands on a checkpoint instance, waits
     * until the live replicas ({@code reported}) made that checkpoint durable, so that none is skipped
     * for the previous one still being written and the test knows which checkpoints exist.
     */
    private static void propose(LocalSequencer seq, Workload w, Random random, long[] nextSeq, long firstBatch,
                                long lastBatch, List<AtomicLong> reported) throws Exception {
        for (long b = firstBatch; b <= lastBatch; b++) {
            int n = 1 + random.nextInt(8);
            List<KvCommand> commands = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int client = random.nextInt(nextSeq.length);
                commands.add(w.command(Workload.session(1, client), ++nextSeq[client]));
            }
            long instance = seq.propose(Workload.encode(1, b, commands, DETECTION)).get();
            if (instance % INTERVAL == 0) {
                await("checkpoints of instance " + instance, () -> reported.stream().allMatch(r -> r.get() >= instance));
            }
        }
    }

    private static void assertDigestsEqual(LocalSequencer seq, List<Replica> replicas, String when) throws Exception {
        long last = seq.lastInstance();
        List<Long> digests = new ArrayList<>();
        for (Replica r : replicas) {
            assertTrue(r.awaitApplied(last, 30, TimeUnit.SECONDS), "replica " + r.id() + " " + when);
            digests.add(r.digest());
        }
        assertEquals(1, digests.stream().distinct().count(), "digests differ " + when + ": " + digests);
    }

    private static void await(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                StringBuilder dump = new StringBuilder();
                Thread.getAllStackTraces().forEach((t, st) -> {
                    if (t.getName().startsWith("psmr")) {
                        dump.append('\n').append(t.getName()).append(' ').append(t.getState());
                        for (StackTraceElement e : st) {
                            dump.append("\n    ").append(e);
                        }
                    }
                });
                throw new AssertionError("timed out waiting for " + what + dump);
            }
            Thread.sleep(10); // polling a condition, bounded by the deadline above
        }
    }
}
