package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** {@link DecodeStage} alone, and in front of {@link Replica}. */
class DecodeStageTest {

    private static long seed(String test) {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println(test + " seed=" + seed);
        return seed;
    }

    private static byte[] value(long i) {
        return Long.toString(i).getBytes();
    }

    @Test
    void manyValuesAreHandledInOrderAndDecodedOnTheDeliveringThread() throws Exception {
        long seed = seed("manyValuesAreHandledInOrderAndDecodedOnTheDeliveringThread");
        Random random = new Random(seed);
        List<Long> handled = new ArrayList<>(); // delivery thread only
        List<String> handlerThreads = new CopyOnWriteArrayList<>();
        Thread caller = Thread.currentThread();
        DecodeStage<Long> stage = new DecodeStage<>("test-delivery", 3, 0, (instance, v) -> {
            assertSame(caller, Thread.currentThread(), "decoding runs on the delivering thread");
            return Long.parseLong(new String(v)) * 2;
        }, (instance, decoded) -> {
            assertEquals(instance * 2, decoded);
            handled.add(instance);
            if (handlerThreads.isEmpty()) {
                handlerThreads.add(Thread.currentThread().getName());
            }
            if (instance % 997 == 0) {
                Thread.sleep(1); // let the queue fill now and then
            }
        }).start();
        int n = 20_000;
        for (long i = 1; i <= n; i++) {
            stage.deliver(i, value(i));
            if (random.nextInt(500) == 0) {
                Thread.sleep(1); // and drain now and then
            }
        }
        assertTrue(stage.awaitHandled(n, 30, TimeUnit.SECONDS), "seed " + seed);
        assertTrue(stage.close(10, TimeUnit.SECONDS));
        assertEquals(n, handled.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i + 1, handled.get(i), "seed " + seed);
        }
        assertEquals(List.of("test-delivery"), handlerThreads);
        assertTrue(stage.failure().isEmpty());
    }

    @Test
    void aFullStageBlocksTheDelivererAndCloseHandlesEveryQueuedValue() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Long> handled = new CopyOnWriteArrayList<>();
        DecodeStage<byte[]> stage = new DecodeStage<>("test-delivery", 2, 0, (i, v) -> v, (i, v) -> {
            release.await();
            handled.add(i);
        }).start();
        ExecutorService deliverer = Executors.newSingleThreadExecutor();
        try {
            stage.deliver(1, value(1)); // taken by the handler, which waits
            assertTrue(waitFor(() -> stage.queued() == 0));
            stage.deliver(2, value(2));
            stage.deliver(3, value(3)); // the queue holds 2 and 3: full
            Future<?> blocked = deliverer.submit(() -> {
                stage.deliver(4, value(4));
                return null;
            });
            assertThrows(TimeoutException.class, () -> blocked.get(200, TimeUnit.MILLISECONDS), "a full stage blocks");
            assertEquals(2, stage.queued());
            // Close while values are queued: 4 is not taken (intake stops), 1..3 are handled in order.
            CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> stage.close(10, TimeUnit.SECONDS));
            blocked.get(5, TimeUnit.SECONDS); // the blocked deliverer returns once intake stops
            release.countDown();
            assertTrue(closed.get(10, TimeUnit.SECONDS), "every queued value was handled");
            assertEquals(List.of(1L, 2L, 3L), handled);
            assertEquals(3, stage.lastHandled());
            stage.deliver(5, value(5)); // after close: ignored
            assertFalse(stage.awaitHandled(5, 100, TimeUnit.MILLISECONDS));
            assertTrue(stage.close(1, TimeUnit.SECONDS), "idempotent");
        } finally {
            release.countDown();
            deliverer.shutdownNow();
        }
    }

    @Test
    void aDecoderExceptionFailsTheStageAtItsTurnAndEndsDelivery() throws Exception {
        IllegalStateException boom = new IllegalStateException("decoder defect");
        List<Long> handled = new CopyOnWriteArrayList<>();
        // The handler waits until all five are queued, so that no delivery below meets the failure early.
        CountDownLatch allQueued = new CountDownLatch(1);
        DecodeStage<byte[]> stage = new DecodeStage<>("test-delivery", 8, 0, (i, v) -> {
            if (i == 3) {
                throw boom;
            }
            return v;
        }, (i, v) -> {
            allQueued.await();
            handled.add(i);
        }).start();
        for (long i = 1; i <= 5; i++) {
            stage.deliver(i, value(i)); // 3 does not throw here: its failure waits for its turn
        }
        allQueued.countDown();
        assertFalse(stage.awaitHandled(5, 5, TimeUnit.SECONDS));
        assertEquals(List.of(1L, 2L), handled, "the values before the defect are handled, none after");
        assertSame(boom, stage.failure().orElseThrow());
        assertSame(boom, assertThrows(IllegalStateException.class, () -> stage.deliver(6, value(6))),
                "the next delivery throws the failure, which ends the subscription");
        assertFalse(stage.close(5, TimeUnit.SECONDS));
    }

    @Test
    void aHandlerFailureIsReportedAndCloseDoesNotHang() throws Exception {
        DecodeStage<byte[]> stage = new DecodeStage<>("test-delivery", 1, 10, (i, v) -> v, (i, v) -> {
            throw new java.io.IOException("handler failed at " + i);
        }).start();
        stage.deliver(11, value(11));
        assertFalse(stage.awaitHandled(11, 5, TimeUnit.SECONDS));
        assertEquals(10, stage.lastHandled());
        Exception e = assertThrows(java.io.IOException.class, () -> stage.deliver(12, value(12)));
        assertEquals("handler failed at 11", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new DecodeStage<byte[]>("x", 0, 0, (i, v) -> v, (i, v) -> { }));
        // A failed stage closes at once: with a minute's timeout, a close that waited for it would miss this wait.
        CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> stage.close(60, TimeUnit.SECONDS));
        assertFalse(closed.get(30, TimeUnit.SECONDS), "a failed stage reports that not every value was handled");
    }

    // ------------------------------------------------------------------ in front of a replica

    private static final ConflictDetection DETECTION = ReplicaTest.DETECTION;

    /** A mix of good, malformed and summary-missing values; the instance of each refused one is recorded by the test. */
    private static byte[] mixedValue(Random r, long batch, int client) {
        byte[] k = Workload.key(r.nextInt(20));
        List<KvCommand> cmds = List.of(KvCommand.create(ReplicaTest.sid(client), batch, k, new byte[] {(byte) batch}),
                KvCommand.read(ReplicaTest.sid(client), batch + 1_000_000, k));
        return switch (r.nextInt(6)) {
            case 0 -> { // malformed: a byte flipped (checksum) or cut
                byte[] b = ReplicaTest.encode(1, batch, cmds);
                if (r.nextBoolean()) {
                    b[b.length / 2] ^= 0x5a;
                    yield b;
                }
                yield Arrays.copyOf(b, b.length - 3);
            }
            case 1 -> KvCodec.encodeBatch(1, batch, cmds, // a summary that misses the key
                    SummaryBuilder.summarize(DETECTION, List.of(KvCommand.read(0, 1, Workload.key(999)))));
            case 2 -> new byte[] {1, 2, 3}; // unaddressable
            default -> ReplicaTest.encode(1, batch, cmds);
        };
    }

    @Test
    void refusalsAreIdenticalAndInOrderWhateverTheDecodeBound() throws Exception {
        long seed = seed("refusalsAreIdenticalAndInOrderWhateverTheDecodeBound");
        Random r = new Random(seed);
        int[] bounds = {1, 2, 64};
        try (LocalSequencer seq = LocalSequencer.builder().maxValueBytes(ReplicaTest.LIMITS.maxBatchBytes() * 2).build()) {
            seq.start();
            LocalReplyRouter router = new LocalReplyRouter();
            ReplyCollector replies = new ReplyCollector();
            router.register(1, replies);
            List<Replica> replicas = new ArrayList<>();
            try {
                for (int i = 0; i < bounds.length; i++) {
                    replicas.add(Replica.start(ReplicaTest.config().toBuilder().replicaId(i + 1).decodeAhead(bounds[i])
                            .workers(1 + i % 2).build(), seq, router));
                }
                seq.propose(Workload.openSessions(8, DETECTION)).get();
                List<CompletableFuture<Long>> proposed = new ArrayList<>();
                for (int b = 1; b <= 600; b++) {
                    proposed.add(seq.propose(mixedValue(r, b, 1 + b % 8))); // not awaited: values pile up in the stages
                }
                long last = 0;
                for (CompletableFuture<Long> f : proposed) {
                    last = Math.max(last, f.get(30, TimeUnit.SECONDS));
                }
                for (Replica rep : replicas) {
                    assertTrue(rep.awaitApplied(last, 60, TimeUnit.SECONDS), "replica " + rep.id() + ", seed " + seed);
                    assertTrue(rep.isServing());
                    assertTrue(rep.failure().isEmpty(), () -> rep.failure().get().toString());
                }
                Map<List<Long>, KvResult> first = replies.of(1);
                for (int i = 2; i <= bounds.length; i++) {
                    assertEquals(first, replies.of(i), "replica " + i + " answers differently, seed " + seed);
                }
                assertTrue(replies.repeated.isEmpty(), replies.repeated::toString);
                ReplicaStats s1 = replicas.get(0).stats();
                assertTrue(s1.batchesRefused() > 50, "the workload refuses often: " + s1);
                assertEquals(601, s1.batchesDelivered());
                assertEquals(last, s1.lastInstance());
                for (Replica rep : replicas) {
                    assertEquals(s1, rep.stats(), "replica " + rep.id() + ", seed " + seed);
                    assertEquals(replicas.get(0).digest(), rep.digest(), "replica " + rep.id() + ", seed " + seed);
                }
                // In order: each refusal names the instance its value was proposed at.
                for (int b = 1; b <= 600; b++) {
                    KvResult whole = replies.get(1, 1, b, KvReply.WHOLE_BATCH);
                    if (whole != null) {
                        long instance = proposed.get(b - 1).get();
                        assertTrue(whole.detail().contains(" at instance " + instance + " refused"), whole.detail());
                    }
                }
            } finally {
                replicas.forEach(Replica::close);
            }
        }
    }

    @Test
    void closingAReplicaWithValuesQueuedNeitherHangsNorFails() throws Exception {
        long seed = seed("closingAReplicaWithValuesQueuedNeitherHangsNorFails");
        Random r = new Random(seed);
        try (LocalSequencer seq = LocalSequencer.builder().maxValueBytes(ReplicaTest.LIMITS.maxBatchBytes() * 2).build()) {
            seq.start();
            ReplicaConfig config = ReplicaTest.config().toBuilder().decodeAhead(16).maxPending(1).workers(1).build();
            Replica replica = Replica.start(config, seq, new LocalReplyRouter());
            seq.propose(Workload.openSessions(8, DETECTION)).get();
            List<CompletableFuture<Long>> proposed = new ArrayList<>();
            for (int b = 1; b <= 400; b++) {
                proposed.add(seq.propose(mixedValue(r, b, 1 + b % 8)));
            }
            proposed.get(proposed.size() - 1).get(30, TimeUnit.SECONDS);
            long t0 = System.nanoTime();
            replica.close();
            long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(closeMillis < 20_000, "close took " + closeMillis + " ms");
            assertTrue(replica.failure().isEmpty(), () -> "seed " + seed + ": " + replica.failure().get());
            assertFalse(replica.isServing());
            ReplicaStats s = replica.stats();
            // Every value the delivery thread took was admitted whole: counted delivered, and the last one recorded.
            assertTrue(s.batchesDelivered() >= 1, s.toString());
            assertEquals(s.batchesDelivered(), s.lastInstance(), "instances are gap-free from 1: " + s);
        }
    }

    private static boolean waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }
}
