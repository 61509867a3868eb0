package io.psmr.proxy;

import static io.psmr.proxy.ClientProxyTest.b;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvDecodeException;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.ReplicaStats;
import io.psmr.kvstore.StoreConfig;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.scheduler.ConflictDetection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Exactly-once through client sessions, end to end: KvClients → proxies (which retry) → sequencer →
 * replicas' session tables. Replies are lost and proposals are ordered twice, so the same requests
 * reach the replicas more than once; each must execute at most once, and a client whose session the
 * replicas forgot must learn so (SESSION_EXPIRED) rather than have a retry executed again.
 */
class SessionExactlyOnceTest {

    static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);
    static final KvLimits LIMITS = KvLimits.defaults().withMaxValueBytes(64).withMaxKeyBytes(32).withMaxKeysPerCommand(4)
            .withMaxBatchBytes(32 * 1024);

    static final int CLIENTS = 10_000;
    static final int PROXIES = 4;
    /** Each client's requests: CREATE, MULTI_PUT of two keys, CREATE — every key and value unique to its request. */
    static final int REQUESTS_PER_CLIENT = 3;
    static final int KEYS_PER_CLIENT = 4;
    /** Fraction of batches whose every reply to the first delivery is lost, forcing the proxy to propose them again. */
    static final double LOST_REPLY_FRACTION = 0.08;
    /** Fraction of proposals the broadcast orders twice. */
    static final double DOUBLED_PROPOSAL_FRACTION = 0.04;

    /** Counts what the broadcast really ordered: commands with a session, and OPEN_SESSIONs. */
    static final class OrderedCounter {
        final LongAdder requests = new LongAdder();
        final LongAdder opens = new LongAdder();
        final Queue<CompletableFuture<?>> counted = new ConcurrentLinkedQueue<>(); // four sender threads add

        void record(KvBatch batch, CompletableFuture<Long> ordered) {
            long opensIn = batch.commands().stream().filter(c -> c.op() == KvOp.OPEN_SESSION).count();
            long requestsIn = batch.commands().size() - opensIn;
            counted.add(ordered.thenAccept(instance -> {
                requests.add(requestsIn);
                opens.add(opensIn);
            }));
        }

        /** Waits for every ordered proposal to be counted; proposals that failed (never ordered) count nothing. */
        void settle() throws InterruptedException {
            for (CompletableFuture<?> f : counted) {
                try {
                    f.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    // not ordered
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("a proposal was neither ordered nor failed within 60 s", e);
                }
            }
        }
    }

    /**
     * Drops every reply to the first delivery of the chosen batches of one proxy, so the proxy times
     * out and proposes them again. The choice depends only on the seed, the proxy and the batch id.
     */
    static final class LossyReplies {
        final ClientProxy proxy;
        final long seed;
        final double fraction;
        final Map<Long, Long> firstInstance = new ConcurrentHashMap<>();
        final LongAdder dropped = new LongAdder();
        final LongAdder droppedBatches = new LongAdder();

        LossyReplies(ClientProxy proxy, long seed, double fraction) {
            this.proxy = proxy;
            this.seed = seed;
            this.fraction = fraction;
        }

        void onReply(KvReply reply) {
            if (chosen(seed, reply.proxyId() * 1_000_003L + reply.batchId(), fraction)) {
                long first = firstInstance.computeIfAbsent(reply.batchId(), id -> {
                    droppedBatches.increment();
                    return reply.instance();
                });
                if (first == reply.instance()) {
                    dropped.increment();
                    return;
                }
            }
            proxy.onReply(reply);
        }
    }

    /** A deterministic coin: whether {@code item} is among the {@code fraction} chosen under {@code seed}. */
    static boolean chosen(long seed, long item, double fraction) {
        long z = seed * 0x9E3779B97F4A7C15L + item;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53 < fraction;
    }

    static ReplicaConfig replicas() {
        // Room for every client's session plus the ones opened by retried or doubled OPEN_SESSIONs,
        // so that no session in use is evicted.
        return ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .maxSessions(4 * CLIENTS).store(StoreConfig.heap()).build();
    }

    static String key(long client, int k) {
        return "k" + client + "." + k;
    }

    static String value(long client, int k, long seed) {
        return "v" + client + "." + k + "." + seed;
    }

    @Test
    void tenThousandRetryingClientsExecuteEveryRequestAtMostOnce() throws Exception {
        long seed = Long.getLong("psmr.seed", 20240611L); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed;
        System.out.println("SessionExactlyOnceTest " + context);
        long started = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(256);
        List<ClientProxy> proxies = new ArrayList<>();
        List<LossyReplies> lossy = new ArrayList<>();
        List<AutoCloseable> registrations = new ArrayList<>();
        OrderedCounter ordered = new OrderedCounter();
        LongAdder doubled = new LongAdder();
        try (EmbeddedCluster c = EmbeddedCluster.start(3, replicas())) {
            AtomicBroadcast doubling = new ClientProxyTest.Interposer(c.broadcast(), v -> {
                KvBatch batch = decode(v);
                CompletableFuture<Long> first = c.broadcast().propose(v);
                ordered.record(batch, first);
                long item = batch.proxyId() * 1_000_003L + batch.batchId();
                // Only batches whose replies are not lost, so that every lost batch needs the proxy's retry.
                if (!chosen(seed, item, LOST_REPLY_FRACTION) && chosen(seed ^ 0x5DEECE66DL, item, DOUBLED_PROPOSAL_FRACTION)) {
                    doubled.increment();
                    ordered.record(batch, c.broadcast().propose(v)); // the same bytes, ordered a second time
                }
                return first;
            });
            for (int i = 1; i <= PROXIES; i++) {
                ProxyConfig cfg = ProxyConfig.builder().proxyId(i).detection(DETECTION).limits(LIMITS).window(4)
                        .retryTimeout(Duration.ofMillis(300)).maxRetries(50).build();
                ClientProxy p = ClientProxy.start(cfg, doubling);
                LossyReplies l = new LossyReplies(p, seed, LOST_REPLY_FRACTION);
                proxies.add(p);
                lossy.add(l);
                registrations.add(c.router().register(i, l::onReply));
            }

            // Each client: its first request waits for its session (on a pool thread); its other two
            // follow at once, so a client's requests are in flight together and may be reordered.
            List<KvClient> clients = new ArrayList<>(CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(proxies.get(i % PROXIES).newClient());
            }
            @SuppressWarnings("unchecked")
            CompletableFuture<KvResult>[][] results = new CompletableFuture[CLIENTS][];
            AtomicInteger answers = new AtomicInteger();
            List<Future<?>> issued = new ArrayList<>(CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                int n = i;
                issued.add(pool.submit(() -> {
                    KvClient cl = clients.get(n);
                    long id = cl.clientId();
                    CompletableFuture<KvResult> r1 = cl.create(b(key(id, 0)), b(value(id, 0, seed)));
                    CompletableFuture<KvResult> r2 = cl.multiPut(new byte[][] {b(key(id, 1)), b(key(id, 2))},
                            new byte[][] {b(value(id, 1, seed)), b(value(id, 2, seed))});
                    CompletableFuture<KvResult> r3 = cl.create(b(key(id, 3)), b(value(id, 3, seed)));
                    results[n] = new CompletableFuture[] {r1, r2, r3};
                    for (CompletableFuture<KvResult> f : results[n]) {
                        f.whenComplete((r, e) -> answers.incrementAndGet());
                    }
                }));
            }
            for (Future<?> f : issued) {
                f.get(60, TimeUnit.SECONDS);
            }
            for (int i = 0; i < CLIENTS; i++) {
                for (int k = 0; k < REQUESTS_PER_CLIENT; k++) {
                    KvResult r;
                    try {
                        r = results[i][k].get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        throw new AssertionError("request " + (k + 1) + " of " + clients.get(i) + " got no answer, " + context, e);
                    }
                    // A CREATE executed a second time would answer EXISTS; a retry answered from the session, OK.
                    assertEquals(KvStatus.OK, r.status(), "request " + (k + 1) + " of " + clients.get(i) + ": " + r + ", " + context);
                }
                assertNotEquals(0, clients.get(i).sessionId(), context);
            }
            long requests = (long) CLIENTS * REQUESTS_PER_CLIENT;
            assertEquals(requests, answers.get(), "every request answered exactly once, " + context);

            assertTrue(c.awaitQuiescent(60, TimeUnit.SECONDS), context);
            ordered.settle();
            long retries = proxies.stream().mapToLong(p -> p.stats().retries()).sum();
            long droppedBatches = lossy.stream().mapToLong(l -> l.droppedBatches.sum()).sum();
            long dropped = lossy.stream().mapToLong(l -> l.dropped.sum()).sum();
            assertTrue(droppedBatches > 0 && retries >= droppedBatches, "every batch that lost its replies was retried: "
                    + droppedBatches + " lost, " + retries + " retries, " + context);
            assertTrue(doubled.sum() > 0, context);
            long orderedRequests = ordered.requests.sum();
            long orderedOpens = ordered.opens.sum();
            assertTrue(orderedRequests > requests, "some requests were ordered more than once, " + context);

            List<Long> digests = c.digests();
            assertEquals(1, digests.stream().distinct().count(), "digests " + digests + ", " + context);
            for (Replica r : c.replicas()) {
                ReplicaStats s = r.stats();
                assertEquals(requests, s.commandsExecuted(), "each request executed exactly once on replica " + r.id()
                        + ": " + s + ", " + context);
                assertEquals(orderedRequests - requests, s.duplicates(), "every other ordered copy is a duplicate on replica "
                        + r.id() + ": " + s + ", " + context);
                assertEquals(0, s.staleRequests(), s + ", " + context);
                assertEquals(0, s.sessionRefusals(), s + ", " + context);
                assertEquals(orderedOpens, s.sessionsOpened(), s + ", " + context);
                assertEquals((long) CLIENTS * KEYS_PER_CLIENT, r.store().size(), context);
                for (KvClient cl : clients) {
                    for (int k = 0; k < KEYS_PER_CLIENT; k++) {
                        byte[] v = r.store().get(b(key(cl.clientId(), k)));
                        if (v == null || !new String(v, java.nio.charset.StandardCharsets.UTF_8)
                                .equals(value(cl.clientId(), k, seed))) {
                            fail("acknowledged write of " + key(cl.clientId(), k) + " is not on replica " + r.id() + ", " + context);
                        }
                    }
                }
            }
            ReplicaStats s = c.replicas().get(0).stats(); // before the reads below, whose batches may be retried too
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // Read back through the proxies too: a sample of keys, one per 50 clients.
            for (int i = 0; i < CLIENTS; i += 50) {
                KvClient cl = clients.get(i);
                int k = i % KEYS_PER_CLIENT;
                KvResult r = cl.blocking().read(b(key(cl.clientId(), k)));
                assertEquals(KvStatus.OK, r.status(), context);
                assertArrayEquals(b(value(cl.clientId(), k, seed)), r.value(), context);
            }
            System.out.printf("SessionExactlyOnceTest: %d clients, %d requests, %d ordered copies (%d duplicates), "
                            + "%d executions per replica; %d OPEN_SESSIONs ordered for %d clients; %d batches lost their "
                            + "replies (%d replies dropped), %d proxy retries, %d proposals doubled; %d ms, %s%n",
                    CLIENTS, requests, orderedRequests, s.duplicates(), requests, orderedOpens, CLIENTS, droppedBatches,
                    dropped, retries, doubled.sum(), ms, context);
        } finally {
            for (AutoCloseable r : registrations) {
                r.close();
            }
            proxies.forEach(ClientProxy::close);
            pool.shutdownNow();
        }
    }

    /**
     * A request executes, its replies are lost, and its session ends (by idleness, or by eviction for
     * newer sessions) before the proxy proposes it again: the retry is answered SESSION_EXPIRED and
     * not executed a second time, and the client's next request opens a new session and succeeds.
     */
    @ParameterizedTest(name = "session ended by {0}")
    @ValueSource(strings = {"timeout", "eviction"})
    void aRetryAfterTheSessionEndedIsAnsweredSessionExpiredAndNeverExecutedTwice(String how) throws Exception {
        boolean byTimeout = how.equals("timeout");
        ReplicaConfig rc = ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap())
                .sessionTimeoutInstances(byTimeout ? 5 : 1_000_000)
                .maxSessions(byTimeout ? 1024 : 2)
                .build();
        try (EmbeddedCluster c = EmbeddedCluster.start(3, rc)) {
            // Proxy 1 carries the victim; its retries of batch 3 (the victim's second request) wait at a gate.
            CompletableFuture<Void> gate = new CompletableFuture<>();
            AtomicInteger gatedRetries = new AtomicInteger();
            AtomicReference<Long> victimBatch = new AtomicReference<>();
            Map<Long, AtomicInteger> attempts = new ConcurrentHashMap<>();
            ClientProxyTest.Interposer gated = new ClientProxyTest.Interposer(c.broadcast(), v -> {
                long batchId = decode(v).batchId();
                Long victim = victimBatch.get();
                if (victim != null && victim == batchId
                        && attempts.computeIfAbsent(batchId, id -> new AtomicInteger()).incrementAndGet() > 1) {
                    gatedRetries.incrementAndGet();
                    return gate.thenCompose(x -> c.broadcast().propose(v));
                }
                return null;
            });
            ProxyConfig cfg1 = ProxyConfig.builder().proxyId(1).detection(DETECTION).limits(LIMITS)
                    .retryTimeout(Duration.ofMillis(200)).maxRetries(1000).build();
            ProxyConfig cfg2 = cfg1.toBuilder().proxyId(2).build();
            ClientProxy p1 = ClientProxy.start(cfg1, gated);
            AtomicInteger dropped = new AtomicInteger();
            AtomicReference<Long> droppedInstance = new AtomicReference<>();
            AutoCloseable reg = c.router().register(1, reply -> {
                Long victim = victimBatch.get();
                if (victim != null && reply.batchId() == victim) {
                    droppedInstance.compareAndSet(null, reply.instance());
                    if (droppedInstance.get() == reply.instance()) {
                        dropped.incrementAndGet();
                        return; // every replica's reply to the first delivery is lost
                    }
                }
                p1.onReply(reply);
            });
            try (ClientProxy p2 = ClientProxy.start(cfg2, c.broadcast(), c.router())) {
                KvClient victim = p1.newClient();
                assertEquals(KvStatus.OK, victim.blocking().create(b("a"), b("1")).status()); // batches 1 (open) and 2
                long firstSession = victim.sessionId();
                assertNotEquals(0, firstSession);
                assertEquals(2, p1.stats().batches());

                victimBatch.set(3L);
                CompletableFuture<KvResult> lost = victim.create(b("b"), b("2"));
                waitFor(() -> dropped.get() == 3, "the three replicas' replies to the first delivery to be dropped");
                waitFor(() -> gatedRetries.get() >= 1, "the proxy to propose the request again");

                // End the session meanwhile: more than 5 instances pass, or two newer sessions evict it.
                int fillers = byTimeout ? 1 : 2;
                int writes = byTimeout ? 8 : 1;
                for (int f = 0; f < fillers; f++) {
                    KvClient other = p2.newClient();
                    for (int w = 0; w < writes; w++) {
                        assertEquals(KvStatus.OK, other.blocking().create(b("f" + f + "." + w), b("x")).status());
                    }
                }
                // The next request is made from a dependent stage, on the replica's thread that delivers
                // SESSION_EXPIRED: it must return without waiting for the new session (which that thread,
                // or its peers, must deliver), so the session is still unopened when it returns.
                java.util.concurrent.atomic.AtomicLong sessionWhenNextReturned = new java.util.concurrent.atomic.AtomicLong(-1);
                CompletableFuture<KvResult> nextFuture = lost.thenCompose(r -> {
                    CompletableFuture<KvResult> f = victim.create(b("c"), b("3"));
                    sessionWhenNextReturned.set(victim.sessionId());
                    return f;
                });
                gate.complete(null);

                KvResult expired = ClientProxyTest.get(lost);
                assertEquals(KvStatus.SESSION_EXPIRED, expired.status(), expired.toString());
                assertTrue(expired.detail().contains("session " + firstSession + " is not open"), expired.detail());
                assertTrue(expired.detail().contains("was not executed now"), expired.detail());
                KvResult next = ClientProxyTest.get(nextFuture);
                // It returned on the delivery thread (a wait for the session there would deadlock, and the future
                // above would time out). Whether the session had opened by the time it returned is a race with the
                // other replicas' delivery threads, so it is not asserted.
                assertTrue(sessionWhenNextReturned.get() >= 0, "the request made on the reply thread returned");
                assertEquals(KvStatus.OK, next.status(), next.toString());
                long secondSession = victim.sessionId();
                assertNotEquals(0, secondSession);
                assertNotEquals(firstSession, secondSession, "the next request opened a new session");

                assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
                long executed = 3 + (long) fillers * writes; // a, b (once), c, and the fillers
                assertEquals(1, c.digests().stream().distinct().count(), c.digests().toString());
                for (Replica r : c.replicas()) {
                    ReplicaStats s = r.stats();
                    assertEquals(executed, s.commandsExecuted(), "b executed once, by its first delivery: " + s);
                    assertEquals(0, s.duplicates(), s.toString());
                    assertEquals(gatedRetries.get(), s.sessionRefusals(), "every retry of b refused: " + s);
                    assertArrayEquals(b("2"), r.store().get(b("b")), "b's first delivery executed");
                    assertArrayEquals(b("3"), r.store().get(b("c")));
                }
            } finally {
                reg.close();
                p1.close();
            }
        }
    }

    static KvBatch decode(byte[] v) {
        try {
            return KvCodec.decodeBatch(v, DETECTION, LIMITS);
        } catch (KvDecodeException e) {
            throw new AssertionError(e);
        }
    }

    static void waitFor(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("timed out after 30 s waiting for " + what);
            }
            Thread.sleep(5); // polling a condition, with a deadline
        }
    }
}
