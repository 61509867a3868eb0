package io.psmr.ordering.pbft;

import io.psmr.ordering.BroadcastLimits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.protocol.Ready;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@link PbftBroadcast} over a {@link LoopbackPbft} cluster of 4 replicas × 2 real PBFT pillars, real HMACs. */
class PbftBroadcastTest {

    /**
     * f=1, 2 pillars, K=16, L=128, rotating leaders; 1 ms ticks so EMPTY instances come quickly. The test orders
     * several windows' worth, so the watermarks must move by shared checkpoints. Without state transfer a replica that
     * falls a whole window behind the others is lost (it fail-stops saying so), so the window leaves room for the
     * slowest replica of a loaded 2-core machine; the request timeout (2 s) avoids view changes caused only by CPU
     * starvation.
     */
    static final PbftConfig CONFIG = new PbftConfig(1, 2, 16, 128, 2_000, 16_000, 2, 20, LeaderRotation.ROTATING,
            1 << 16, 10_000);
    static final PbftReplicaNode.Settings SETTINGS = new PbftReplicaNode.Settings(2, 1_000_000L, 1024, 4096, 1024);

    /** Records what one subscription delivered. */
    static class Recorder implements DeliveryListener {
        final List<String> values = Collections.synchronizedList(new ArrayList<>());
        final List<Long> instances = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void deliver(long instance, byte[] value) {
            instances.add(instance);
            values.add(new String(value, StandardCharsets.UTF_8));
        }
    }

    @Test
    void concurrentProposersEveryReplicaDeliversTheSameGapFreeSequenceEachProposalOnce() throws Exception {
        int perProposer = 120;
        try (LoopbackPbft cluster = LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(256)).build()) {
            int n = CONFIG.replicaCount();
            List<Recorder> recorders = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                Recorder rec = new Recorder();
                recorders.add(rec);
                subs.add(cluster.broadcast(r).subscribe(1, rec));
            }
            // One proposer thread per replica, all at once.
            List<Thread> proposers = new ArrayList<>();
            Map<String, CompletableFuture<Long>> futures = Collections.synchronizedMap(new HashMap<>());
            for (int r = 0; r < n; r++) {
                PbftBroadcast b = cluster.broadcast(r);
                String name = "p" + r;
                Thread t = new Thread(() -> {
                    for (int k = 0; k < perProposer; k++) {
                        String v = name + "-" + k;
                        futures.put(v, b.propose(v.getBytes(StandardCharsets.UTF_8)));
                    }
                }, "proposer-" + r);
                proposers.add(t);
                t.start();
            }
            for (Thread t : proposers) {
                t.join();
            }
            int total = n * perProposer;
            assertEquals(total, futures.size());
            Map<Long, String> byInstance = new HashMap<>();
            for (Map.Entry<String, CompletableFuture<Long>> e : futures.entrySet()) {
                long instance = e.getValue().get(30, TimeUnit.SECONDS);
                String before = byInstance.put(instance, e.getKey());
                assertEquals(null, before, "two proposals completed at instance " + instance);
            }
            for (long i = 1; i <= total; i++) {
                assertTrue(byInstance.containsKey(i), "no proposal completed at instance " + i);
            }
            for (Subscription s : subs) {
                assertTrue(s.awaitDelivered(total, 30, TimeUnit.SECONDS), "a subscription did not reach " + total);
            }
            cluster.failure().ifPresent(f -> {
                throw new AssertionError("a replica failed", f);
            });
            for (int r = 0; r < n; r++) {
                Recorder rec = recorders.get(r);
                List<String> values = new ArrayList<>(rec.values).subList(0, total);
                for (int i = 0; i < total; i++) {
                    assertEquals(i + 1, rec.instances.get(i), "replica " + r + " skipped an instance");
                    assertEquals(byInstance.get((long) i + 1), values.get(i), "replica " + r + " instance " + (i + 1));
                }
            }
            assertEquals(total, cluster.broadcast(0).lastInstance());
        }
    }

    @Test
    void aBlockedSubscriberHoldsBackOnlyItsReplicaWithinTheRetentionBoundThenCatchesUp() throws Exception {
        int total = 60;
        try (LoopbackPbft cluster = LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withRetainedInstances(8)).build()) {
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            Recorder slow = new Recorder() {
                @Override
                public void deliver(long instance, byte[] value) {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    super.deliver(instance, value);
                }
            };
            Recorder fast = new Recorder();
            Subscription slowSub = cluster.broadcast(2).subscribe(1, slow);
            Subscription fastSub = cluster.broadcast(0).subscribe(1, fast);
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int k = 0; k < total; k++) {
                futures.add(cluster.broadcast(0).propose(("v" + k).getBytes(StandardCharsets.UTF_8)));
            }
            for (CompletableFuture<Long> f : futures) {
                f.get(30, TimeUnit.SECONDS); // ordered by the other replicas while replica 2 is held back
            }
            assertTrue(fastSub.awaitDelivered(total, 30, TimeUnit.SECONDS));
            assertEquals(8, cluster.broadcast(2).lastInstance(), "replica 2 retains no more than its window");
            release.countDown();
            assertTrue(slowSub.awaitDelivered(total, 30, TimeUnit.SECONDS), "replica 2 did not catch up");
            assertEquals(fast.values.subList(0, total), slow.values.subList(0, total));
            cluster.failure().ifPresent(f -> {
                throw new AssertionError("a replica failed", f);
            });
        }
    }

    /** A core that takes every request and never orders anything. */
    private static class BlackHole implements PbftCore {
        private final int pillar;

        BlackHole(int pillar) {
            this.pillar = pillar;
        }

        @Override
        public int pillar() {
            return pillar;
        }

        @Override
        public void step(PbftEnvelope envelope) {
        }

        @Override
        public void tick() {
        }

        @Override
        public Optional<Refusal> propose(Request request) {
            return Optional.empty();
        }

        @Override
        public void checkpointDigest(long seq, byte[] digest) {
        }

        @Override
        public void stableCheckpoint(StableCheckpoint checkpoint) {
        }

        @Override
        public void needEmpty(long seq) {
        }

        @Override
        public Ready<PbftEnvelope, Void, PillarOutput> ready() {
            return Ready.empty();
        }

        @Override
        public void advance(Ready<PbftEnvelope, Void, PillarOutput> ready) {
        }
    }

    @Test
    void proposalsBeyondTheBoundFailAsOverloadedAndCloseFailsTheRest() throws Exception {
        LoopbackPbft cluster = LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(3))
                .pillars((config, replica, pillar, auth) -> new BlackHole(pillar)).build();
        PbftBroadcast b = cluster.broadcast(1);
        List<CompletableFuture<Long>> open = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            open.add(b.propose(new byte[] {(byte) i}));
        }
        ExecutionException over = assertThrows(ExecutionException.class, () -> b.propose(new byte[] {9}).get());
        assertInstanceOf(OverloadedException.class, over.getCause());
        assertEquals("replica 1 already has 3 proposals in flight (maxPendingProposals); the value was not ordered",
                over.getCause().getMessage());
        assertEquals(3, b.inFlight());
        cluster.close();
        for (CompletableFuture<Long> f : open) {
            ExecutionException closed = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
            assertInstanceOf(BroadcastClosedException.class, closed.getCause());
            assertEquals("broadcast closed before the value was delivered at replica 1; it may still be ordered by the"
                    + " other replicas", closed.getCause().getMessage());
        }
        ExecutionException after = assertThrows(ExecutionException.class, () -> b.propose(new byte[] {1}).get());
        assertEquals("broadcast is closed; the value was not ordered", after.getCause().getMessage());
        assertEquals("value of 65537 bytes exceeds the maximum request size of 65536 bytes",
                assertThrows(IllegalArgumentException.class, () -> b.propose(new byte[65537])).getMessage());
    }

    /** A core that refuses every request for one reason, as a full pending table would. */
    static final class Refusing extends BlackHole {
        private final Refusal reason;

        Refusing(int pillar, Refusal reason) {
            super(pillar);
            this.reason = reason;
        }

        @Override
        public Optional<Refusal> propose(Request request) {
            return Optional.of(reason);
        }
    }

    @Test
    void aRequestThePillarRefusesFailsAtOnceNamingWhyAndGivesItsPermitBack() throws Exception {
        LoopbackPbft cluster = LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(2))
                .pillars((config, replica, pillar, auth) -> new Refusing(pillar, pillar == 0 ? Refusal.OVERLOADED : Refusal.DUPLICATE_REQUEST))
                .build();
        try {
            PbftBroadcast b = cluster.broadcast(1);
            for (int round = 0; round < 3; round++) { // more proposals than permits: each refusal returns its permit
                ExecutionException over = assertThrows(ExecutionException.class, () -> b.propose(new byte[] {1}).get(5, TimeUnit.SECONDS));
                assertInstanceOf(OverloadedException.class, over.getCause());
                assertEquals("replica 1 pillar 0 refused request " + (round + 1) + " of client 2 (OVERLOADED); the value"
                        + " was not ordered: its pending-request table is full (maxPendingRequests)", over.getCause().getMessage());
                ExecutionException unknown = assertThrows(ExecutionException.class, () -> b.propose(new byte[] {2}).get(5, TimeUnit.SECONDS));
                assertInstanceOf(IllegalStateException.class, unknown.getCause());
                assertEquals("replica 1 pillar 1 refused request " + (round + 1) + " of client 3 (DUPLICATE_REQUEST); the"
                        + " value was not ordered", unknown.getCause().getMessage());
            }
            assertEquals(0, b.inFlight());
        } finally {
            cluster.close();
        }
    }

    @Test
    void aRealPillarRefusingABadlySignedRequestFailsItAtOnceNamingTheRefusal() throws Exception {
        // Replica 2's pillars hold other keys than the cluster's: they refuse its own broadcast's requests (bad MAC).
        Authenticator stranger = new HmacAuthenticator(PbftKeys.forTesting(99, 4, 8));
        LoopbackPbft cluster = LoopbackPbft.builder(CONFIG).settings(SETTINGS)
                .pillars((config, replica, pillar, auth) -> new PbftPillar(config, replica, pillar,
                        replica == 2 ? stranger : auth))
                .build();
        try {
            ExecutionException bad = assertThrows(ExecutionException.class,
                    () -> cluster.broadcast(2).propose(new byte[] {7}).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, bad.getCause());
            assertEquals("replica 2 pillar 0 refused request 1 of client 4 (BAD_REQUEST_AUTH); the value was not ordered",
                    bad.getCause().getMessage());
            assertEquals(0, cluster.broadcast(2).inFlight());
        } finally {
            cluster.close();
        }
    }

    @Test
    void badBuilderBoundsAreRefused() {
        assertEquals("maxPendingProposals (5000) must not exceed the replicas' dedupWindow (4096): exactly-once"
                        + " delivery assumes a client has at most dedupWindow requests outstanding",
                assertThrows(IllegalArgumentException.class,
                        () -> LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(5000)).build()).getMessage());
        assertEquals("maxPendingProposals (3000) times 4 replicas exceeds the pillars' maxPendingRequests (10000): a"
                        + " pillar could refuse forwarded requests as overloaded",
                assertThrows(IllegalArgumentException.class,
                        () -> LoopbackPbft.builder(CONFIG).settings(SETTINGS).limits(BroadcastLimits.DEFAULTS.withMaxPendingProposals(3000)).build()).getMessage());
    }
}
