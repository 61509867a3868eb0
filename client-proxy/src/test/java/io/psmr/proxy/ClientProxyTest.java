package io.psmr.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.OutcomeUnknownException;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.Subscription;
import io.psmr.scheduler.ConflictDetection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The proxy's behaviour on small clusters: limits, batching, retries, bounds, closing. */
class ClientProxyTest {

    static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);
    static final KvLimits LIMITS = KvLimits.defaults().withMaxValueBytes(256).withMaxKeyBytes(32).withMaxKeysPerCommand(4)
            .withMaxBatchBytes(2048);

    static ReplicaConfig replicas() {
        return ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap()).build();
    }

    static ProxyConfig.Builder proxy() {
        return ProxyConfig.builder().detection(DETECTION).limits(LIMITS);
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static KvResult get(CompletableFuture<KvResult> f) throws Exception {
        return f.get(60, TimeUnit.SECONDS);
    }

    /** An AtomicBroadcast that hands proposals to a policy before (maybe) passing them to the real one. */
    static final class Interposer implements AtomicBroadcast {
        final AtomicBroadcast inner;
        final Function<byte[], CompletableFuture<Long>> policy;
        final AtomicInteger proposals = new AtomicInteger();

        Interposer(AtomicBroadcast inner, Function<byte[], CompletableFuture<Long>> policy) {
            this.inner = inner;
            this.policy = policy;
        }

        @Override
        public void start() {
            inner.start();
        }

        @Override
        public CompletableFuture<Long> propose(byte[] value) {
            proposals.incrementAndGet();
            CompletableFuture<Long> f = policy.apply(value);
            return f != null ? f : inner.propose(value);
        }

        @Override
        public Subscription subscribe(long fromInstance, DeliveryListener listener) {
            return inner.subscribe(fromInstance, listener);
        }

        @Override
        public long lastInstance() {
            return inner.lastInstance();
        }

        @Override
        public long firstRetainedInstance() {
            return inner.firstRetainedInstance();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Test
    void commandsOverALimitAreAnsweredTooLargeWithoutProposing() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas());
             ClientProxy p = ClientProxy.start(proxy().build(), c.broadcast(), c.router())) {
            KvClient client = p.newClient();
            KvResult value = client.blocking().create(b("k"), new byte[257]);
            assertEquals(KvStatus.TOO_LARGE, value.status());
            assertTrue(value.detail().contains("256 bytes"), value.detail());
            KvResult key = client.blocking().create(new byte[33], b("v"));
            assertEquals(KvStatus.TOO_LARGE, key.status());
            KvResult pairs = client.blocking().multiPut(new byte[][] {b("a"), b("b"), b("c"), b("d"), b("e")},
                    new byte[][] {b("1"), b("2"), b("3"), b("4"), b("5")});
            assertEquals(KvStatus.TOO_LARGE, pairs.status());
            assertTrue(pairs.detail().contains("4 keys per command"), pairs.detail());
            // Fits every per-command limit, but not in a 2048-byte batch with its summary.
            byte[][] ks = new byte[4][];
            byte[][] vs = new byte[4][];
            for (int i = 0; i < 4; i++) {
                ks[i] = new byte[32];
                ks[i][0] = (byte) i;
                vs[i] = new byte[256];
            }
            assertEquals(KvStatus.OK, client.blocking().multiPut(ks, vs).status(), "a MULTI_PUT of 4 x (32 + 256) bytes fits");
            assertEquals(3, p.stats().tooLarge(), p.stats().toString());
            assertEquals(2, c.broadcast().lastInstance(), "only the client's OPEN_SESSION and the MULTI_PUT that fits were proposed");
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            for (Replica r : c.replicas()) {
                assertEquals(4, r.store().size());
                assertEquals(0, r.stats().commandsTooLarge());
            }
        }
    }

    @Test
    void aCommandThatCannotFitInAnyBatchIsTooLarge() throws Exception {
        KvLimits tight = LIMITS.withMaxBatchBytes(300);
        ReplicaConfig rc = replicas().toBuilder().limits(tight).build();
        try (EmbeddedCluster c = EmbeddedCluster.start(1, rc);
             ClientProxy p = ClientProxy.start(proxy().limits(tight).build(), c.broadcast(), c.router())) {
            KvResult r = p.newClient().blocking().create(b("k"), new byte[256]);
            assertEquals(KvStatus.TOO_LARGE, r.status());
            assertTrue(r.detail().contains("cannot fit in a batch of at most 300 bytes"), r.detail());
            assertEquals(1, c.broadcast().lastInstance(), "only the client's OPEN_SESSION was proposed");
            assertEquals(KvStatus.OK, p.newClient().blocking().create(b("k"), new byte[100]).status());
        }
    }

    @Test
    void batchesRespectTheByteLimitAndEveryCommandExecutes() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas());
             ClientProxy p = ClientProxy.start(proxy().build(), c.broadcast(), c.router())) {
            List<CompletableFuture<KvResult>> fs = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                fs.add(p.newClient().create(b("k" + i), new byte[200]));
            }
            for (CompletableFuture<KvResult> f : fs) {
                assertEquals(KvStatus.OK, get(f).status());
            }
            // 40 commands of 227 bytes (9,080 in all) need at least 5 batches of at most 2,048 bytes.
            assertTrue(p.stats().batches() >= 5, p.stats().toString());
            // Every batch was answered, so every one counts in the proposal latency (its total is some time).
            ProxyStats done = p.stats();
            assertEquals(done.batches(), done.finished(), done.toString());
            assertTrue(done.proposalNanos() > 0, done.toString());
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            for (Replica r : c.replicas()) {
                assertEquals(40, r.store().size());
                assertEquals(0, r.stats().batchesRefused());
            }
            assertEquals(1, c.digests().stream().distinct().count());
        }
    }

    @Test
    void commandsAccumulateWhileABatchIsInFlight() throws Exception {
        CountDownLatch firstProposed = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            AtomicInteger n = new AtomicInteger(-1); // counts once armed
            Interposer gate = new Interposer(c.broadcast(), v -> {
                if (n.get() >= 0 && n.incrementAndGet() == 1) {
                    firstProposed.countDown();
                    return release.thenCompose(x -> c.broadcast().propose(v));
                }
                return null;
            });
            try (ClientProxy p = ClientProxy.start(proxy().build(), gate, c.router())) {
                // A client's first request waits for its session, so open the ten sessions first.
                List<KvClient> clients = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    clients.add(p.newClient());
                    assertEquals(KvStatus.NOT_FOUND, clients.get(i).blocking().read(b("none")).status());
                }
                ProxyStats before = p.stats();
                n.set(0);
                CompletableFuture<KvResult> first = clients.get(0).create(b("first"), b("1"));
                assertTrue(firstProposed.await(30, TimeUnit.SECONDS));
                List<CompletableFuture<KvResult>> rest = new ArrayList<>();
                for (int i = 0; i < 9; i++) {
                    rest.add(clients.get(i + 1).create(b("k" + i), b("v")));
                }
                awaitQueued(p, 9); // each create enqueues from its own client's path: wait until all nine are counted
                assertEquals(9, p.stats().queued(), "window 1: the next batch waits for the first to be answered");
                release.complete(null);
                assertEquals(KvStatus.OK, get(first).status());
                for (CompletableFuture<KvResult> f : rest) {
                    assertEquals(KvStatus.OK, get(f).status());
                }
                ProxyStats s = p.stats();
                assertEquals(2, s.batches() - before.batches(), s.toString());
                assertEquals(10, s.commands() - before.commands(), s.toString());
            }
        }
    }

    /**
     * Drops every replica's reply to the first proposal of batch 2 (batch 1 is the client's
     * OPEN_SESSION), so the proxy times out and proposes it again.
     */
    @Test
    void aBatchWhoseRepliesAreLostIsRetriedAndAppliedOnce() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas())) {
            ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofMillis(200)).build(), c.broadcast());
            Map<Integer, AtomicInteger> seen = new ConcurrentHashMap<>();
            AtomicInteger dropped = new AtomicInteger();
            AutoCloseable reg = c.router().register(p.config().proxyId(), reply -> {
                if (reply.batchId() == 2 && seen.computeIfAbsent(reply.index(), i -> new AtomicInteger()).incrementAndGet() <= 3) {
                    dropped.incrementAndGet();
                    return; // the first three replies of each command (one per replica): the first attempt's
                }
                p.onReply(reply);
            });
            try {
                KvClient client = p.newClient();
                CompletableFuture<KvResult> create = client.create(b("once"), b("v1"));
                // CREATE applied twice would answer EXISTS; applied once and answered from the reply cache, OK.
                assertEquals(KvStatus.OK, get(create).status());
                assertEquals(3, dropped.get());
                assertTrue(p.stats().retries() >= 1, p.stats().toString());
                assertEquals(KvStatus.OK, client.blocking().read(b("once")).status());
                assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
                for (Replica r : c.replicas()) {
                    assertArrayEquals(b("v1"), r.store().get(b("once")));
                    assertEquals(2, r.stats().commandsExecuted(), "the CREATE and the READ, each once: " + r.stats());
                    assertEquals(p.stats().retries(), r.stats().duplicates(), r.stats().toString());
                }
            } finally {
                reg.close();
                p.close();
            }
        }
    }

    @Test
    void aProposalThatIsNeverOrderedIsRetried() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas())) {
            AtomicInteger n = new AtomicInteger();
            Interposer lossy = new Interposer(c.broadcast(), v -> n.incrementAndGet() == 1 ? new CompletableFuture<>() : null);
            try (ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofMillis(200)).build(), lossy, c.router())) {
                assertEquals(KvStatus.OK, p.newClient().blocking().create(b("k"), b("v")).status());
                // The client's OPEN_SESSION is the lost proposal; its retry, then the CREATE.
                assertEquals(3, lossy.proposals.get());
                assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
                for (Replica r : c.replicas()) {
                    assertEquals(0, r.stats().duplicates());
                    assertEquals(1, r.stats().commandsExecuted());
                }
            }
        }
    }

    @Test
    void aProposalWhoseOutcomeIsUnknownIsProposedAgainAndAppliedOnce() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas())) {
            AtomicInteger n = new AtomicInteger();
            // The first attempt is ordered, but the client is told only that the outcome is unknown.
            Interposer cutOff = new Interposer(c.broadcast(), v -> n.incrementAndGet() == 1
                    ? c.broadcast().propose(v).thenCompose(i -> CompletableFuture.<Long>failedFuture(
                            new OutcomeUnknownException("test: cut off after sending")))
                    : null);
            try (ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofMillis(200)).build(), cutOff, c.router())) {
                assertEquals(KvStatus.OK, p.newClient().blocking().create(b("k"), b("v")).status());
                assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
                for (Replica r : c.replicas()) {
                    assertEquals(1, r.stats().commandsExecuted(), "executed once on replica " + r.id());
                }
            }
        }
    }

    /**
     * A batch whose entry replica crashed after taking it (the outcome is unknown, and it was not ordered) is proposed
     * again at once, not after the retry timeout: with an hour's timeout the command still completes.
     */
    @Test
    void aProposalWhoseOutcomeIsUnknownIsProposedAgainWithoutWaitingForTheTimeout() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas())) {
            AtomicInteger n = new AtomicInteger();
            Interposer lost = new Interposer(c.broadcast(), v -> n.incrementAndGet() == 1
                    ? CompletableFuture.failedFuture(new OutcomeUnknownException("test: entry replica gone")) : null);
            try (ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofHours(1)).build(), lost, c.router())) {
                CompletableFuture<KvResult> f = p.newClient().create(b("k"), b("v"));
                assertEquals(KvStatus.OK, f.get(30, TimeUnit.SECONDS).status(), "answered without the hour's timeout");
                assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
                for (Replica r : c.replicas()) {
                    assertEquals(1, r.stats().commandsExecuted(), "executed once on replica " + r.id());
                }
            }
        }
    }

    @Test
    void anOverloadedProposalIsProposedAgain() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            AtomicInteger n = new AtomicInteger();
            Interposer overloaded = new Interposer(c.broadcast(), v -> n.incrementAndGet() == 1
                    ? CompletableFuture.failedFuture(new OverloadedException("test: full")) : null);
            try (ClientProxy p = ClientProxy.start(proxy().build(), overloaded, c.router())) {
                assertEquals(KvStatus.OK, p.newClient().blocking().create(b("k"), b("v")).status());
                assertEquals(1, p.stats().retries());
            }
        }
    }

    @Test
    void aBroadcastThatAlwaysRefusesAsOverloadedFailsTheBatchAfterItsRetries() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            Interposer refusing = new Interposer(c.broadcast(),
                    v -> CompletableFuture.failedFuture(new OverloadedException("test: always full")));
            try (ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofMillis(50)).maxRetries(3).build(),
                    refusing, c.router())) {
                CompletableFuture<KvResult> f = p.newClient().create(b("k"), b("v"));
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyTimeoutException.class, e.getCause());
                assertTrue(e.getCause().getMessage().contains("was refused as overloaded 4 times: test: always full"),
                        e.getCause().getMessage());
                assertEquals(4, refusing.proposals.get(), "proposed once and retried three times, then given up");
                assertEquals(0, p.stats().outstanding(), "the window slot is free again");
            }
        }
    }

    @Test
    void aBatchNeverAnsweredFailsAfterItsRetries() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            Interposer blackHole = new Interposer(c.broadcast(), v -> new CompletableFuture<>());
            try (ClientProxy p = ClientProxy.start(proxy().retryTimeout(Duration.ofMillis(50)).maxRetries(2).build(),
                    blackHole, c.router())) {
                CompletableFuture<KvResult> f = p.newClient().create(b("k"), b("v"));
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyTimeoutException.class, e.getCause());
                assertEquals(3, blackHole.proposals.get(), "proposed once and retried twice");
                assertEquals(1, p.stats().timedOut());
                assertEquals(0, p.stats().outstanding(), "the window slot is free again");
            }
        }
    }

    @Test
    void aSenderThatDiesFailsEveryCommandInsteadOfLosingIt() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            Interposer broken = new Interposer(c.broadcast(), v -> {
                throw new AssertionError("test: the sender dies");
            });
            try (ClientProxy p = ClientProxy.start(proxy().build(), broken, c.router())) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> p.newClient().create(b("k"), b("v")).get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyClosedException.class, e.getCause());
                assertInstanceOf(ProxyClosedException.class, assertThrows(ExecutionException.class,
                        () -> p.newClient().read(b("k")).get(30, TimeUnit.SECONDS)).getCause());
            }
        }
    }

    @Test
    void fullQueuesRejectWithAClearErrorUnderReject() throws Exception {
        CountDownLatch proposed = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean hole = new java.util.concurrent.atomic.AtomicBoolean();
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            Interposer blackHole = new Interposer(c.broadcast(), v -> {
                if (!hole.get()) {
                    return null;
                }
                proposed.countDown();
                return new CompletableFuture<>();
            });
            ProxyConfig cfg = proxy().queueCapacity(2).overflow(OverflowPolicy.REJECT).maxOutstandingPerClient(1)
                    .retryTimeout(Duration.ofMinutes(10)).build();
            ClientProxy p = ClientProxy.start(cfg, blackHole, c.router());
            try {
                // A client's first request waits for its session to open, so open every session
                // while the broadcast still orders; then nothing more is ordered.
                KvClient one = p.newClient();
                KvClient[] others = {p.newClient(), p.newClient(), p.newClient()};
                for (KvClient k : List.of(one, others[0], others[1], others[2])) {
                    assertEquals(KvStatus.NOT_FOUND, k.blocking().read(b("none")).status());
                }
                hole.set(true);
                CompletableFuture<KvResult> inFlight = one.create(b("a"), b("1"));
                assertTrue(proposed.await(30, TimeUnit.SECONDS));
                // The client's own bound: one request outstanding.
                ExecutionException perClient = assertThrows(ExecutionException.class,
                        () -> one.read(b("a")).get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyOverloadedException.class, perClient.getCause());
                assertTrue(perClient.getCause().getMessage().contains("requests unanswered"), perClient.getCause().getMessage());
                // The proxy's queue: the window is taken, so two commands fill the queue and the third is refused.
                CompletableFuture<KvResult> q1 = others[0].create(b("b"), b("1"));
                CompletableFuture<KvResult> q2 = others[1].create(b("c"), b("1"));
                awaitQueued(p, 2);
                ExecutionException full = assertThrows(ExecutionException.class,
                        () -> others[2].create(b("d"), b("1")).get(30, TimeUnit.SECONDS));
                assertInstanceOf(ProxyOverloadedException.class, full.getCause());
                assertTrue(full.getCause().getMessage().contains("queue capacity"), full.getCause().getMessage());
                assertEquals(1, p.stats().rejected());
                p.close();
                for (CompletableFuture<KvResult> f : List.of(inFlight, q1, q2)) {
                    ExecutionException closed = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
                    assertInstanceOf(ProxyClosedException.class, closed.getCause());
                }
                assertInstanceOf(ProxyClosedException.class, assertThrows(ExecutionException.class,
                        () -> p.newClient().read(b("a")).get(30, TimeUnit.SECONDS)).getCause());
            } finally {
                p.close();
            }
        }
    }

    @Test
    void aFullQueueBlocksUnderBlockUntilThereIsRoom() throws Exception {
        CompletableFuture<Void> release = new CompletableFuture<>();
        CountDownLatch proposed = new CountDownLatch(1);
        try (EmbeddedCluster c = EmbeddedCluster.start(1, replicas())) {
            AtomicInteger n = new AtomicInteger();
            Interposer gate = new Interposer(c.broadcast(), v -> {
                if (n.incrementAndGet() == 1) {
                    proposed.countDown();
                    return release.thenCompose(x -> c.broadcast().propose(v));
                }
                return null;
            });
            try (ClientProxy p = ClientProxy.start(proxy().queueCapacity(1).maxBatchCommands(1).build(), gate, c.router())) {
                CompletableFuture<KvResult> a = p.newClient().create(b("a"), b("1"));
                assertTrue(proposed.await(30, TimeUnit.SECONDS));
                CompletableFuture<KvResult> queued = p.newClient().create(b("b"), b("1"));
                CompletableFuture<CompletableFuture<KvResult>> blocked = CompletableFuture.supplyAsync(
                        () -> p.newClient().create(b("c"), b("1")));
                // The third submit cannot return while the queue is full; release the first batch and all complete.
                release.complete(null);
                for (CompletableFuture<KvResult> f : List.of(a, queued, blocked.get(30, TimeUnit.SECONDS))) {
                    assertEquals(KvStatus.OK, get(f).status());
                }
                assertEquals(0, p.stats().rejected());
            }
        }
    }

    @Test
    void wholeBatchRefusalsAnswerEveryCommand() throws Exception {
        // A proxy summarising under other settings than the replicas': every replica refuses the batch as a whole.
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas());
             ClientProxy p = ClientProxy.start(proxy().detection(ConflictDetection.bitmap(1024)).build(), c.broadcast(),
                     c.router())) {
            // A KvClient cannot even open its session: its OPEN_SESSION's batch is refused whole.
            ExecutionException noSession = assertThrows(ExecutionException.class,
                    () -> p.newClient().create(b("k"), b("v")).get(30, TimeUnit.SECONDS));
            assertInstanceOf(KvRequestException.class, noSession.getCause());
            assertTrue(noSession.getCause().getMessage().contains("could not open a session: REJECTED"),
                    noSession.getCause().getMessage());
            // Commands submitted to the proxy directly get the refusal as their answer.
            List<CompletableFuture<KvResult>> fs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                fs.add(p.submit(io.psmr.kvstore.KvCommand.create(1000 + i, 1, b("k" + i), b("v"))));
            }
            for (CompletableFuture<KvResult> f : fs) {
                KvResult r = get(f);
                assertEquals(KvStatus.REJECTED, r.status());
                assertTrue(r.detail().contains("bits"), r.detail());
            }
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            for (Replica r : c.replicas()) {
                assertEquals(0, r.store().size());
                assertTrue(r.isServing());
            }
        }
    }

    @Test
    void theReplicasLimitsStillApplyWhenTheProxyIsLaxer() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas());
             ClientProxy p = ClientProxy.start(proxy().limits(LIMITS.withMaxValueBytes(1000)).build(), c.broadcast(),
                     c.router())) {
            KvClient client = p.newClient();
            CompletableFuture<KvResult> big = client.create(b("big"), new byte[500]);
            CompletableFuture<KvResult> small = client.create(b("small"), new byte[10]);
            assertEquals(KvStatus.TOO_LARGE, get(big).status());
            assertEquals(KvStatus.OK, get(small).status());
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            for (Replica r : c.replicas()) {
                assertEquals(1, r.store().size());
                assertEquals(1, r.stats().commandsTooLarge());
            }
        }
    }

    @Test
    void configurationIsValidated() {
        assertThrows(IllegalArgumentException.class, () -> proxy().window(0).build());
        assertThrows(IllegalArgumentException.class, () -> proxy().maxBatchCommands(0).build());
        assertThrows(IllegalArgumentException.class, () -> proxy().maxBatchCommands(LIMITS.maxCommandsPerBatch() + 1).build());
        assertThrows(IllegalArgumentException.class, () -> proxy().retryTimeout(Duration.ZERO).build());
        assertThrows(IllegalArgumentException.class, () -> proxy().queueCapacity(0).build());
    }

    /** Waits, at most 10 s, until the proxy counts {@code n} queued commands (the test then asserts it). */
    private static void awaitQueued(ClientProxy p, int n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (p.stats().queued() < n && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }
}
