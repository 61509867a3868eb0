package io.psmr.proxy;

import static io.psmr.proxy.ClientProxyTest.DETECTION;
import static io.psmr.proxy.ClientProxyTest.LIMITS;
import static io.psmr.proxy.ClientProxyTest.b;
import static io.psmr.proxy.ClientProxyTest.get;
import static io.psmr.proxy.ClientProxyTest.proxy;
import static io.psmr.proxy.ClientProxyTest.replicas;
import static io.psmr.proxy.net.Conditions.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.pbft.EmbeddedPbftCluster;
import io.psmr.kvstore.KvBatch;
import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.ReplyChannel;
import io.psmr.ordering.OrderingClient;
import io.psmr.scheduler.ConflictDetection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link ReplyTrust}: FIRST_REPLY stays the default; MATCHING(f) accepts a result only from f+1 matching replies
 * of distinct, known replicas, with forged replies from one replica of four (f = 1), whether fed by hand or
 * rewritten on their way from a real embedded cluster.
 */
class ReplyTrustTest {

    static final ReplyTrust F1 = ReplyTrust.matching(1, 1, 2, 3, 4);

    /** An ordering client that orders nothing: it keeps each proposal for the test, which answers by hand. */
    static final class Recorder implements OrderingClient {
        final LinkedBlockingQueue<byte[]> proposals = new LinkedBlockingQueue<>();

        @Override
        public void start() {
        }

        @Override
        public CompletableFuture<Long> propose(byte[] value) {
            proposals.add(value);
            return CompletableFuture.completedFuture(1L);
        }

        @Override
        public void close() {
        }

        /** The next proposal, waiting for it (bounded). */
        KvBatch next() throws Exception {
            byte[] bytes = proposals.poll(30, TimeUnit.SECONDS);
            assertNotNull(bytes, "no batch proposed within 30 s");
            return KvCodec.decodeBatch(bytes, DETECTION, LIMITS);
        }
    }

    static KvReply reply(int replica, KvBatch batch, int index, KvResult result) {
        return new KvReply(replica, batch.proxyId(), batch.batchId(), index, 7, result);
    }

    /** The lie replica 4 tells: another value for a result with one, another status otherwise. */
    static KvResult forge(KvResult r) {
        if (r.value() != null) {
            byte[] v = r.value().clone();
            v[0] ^= 0x5a;
            return KvResult.ok(v);
        }
        return r.status() == KvStatus.OK ? KvResult.notFound() : KvResult.ok(b("forged"));
    }

    @Test
    void firstReplyIsTheDefaultAndCountsNothingPerReplica() throws Exception {
        assertEquals(ReplyTrust.FIRST_REPLY, proxy().build().replyTrust());
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().build(), r)) {
            CompletableFuture<KvResult> f = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch batch = r.next();
            p.onReply(reply(99, batch, 0, KvResult.ok(b("v"))));
            assertArrayEquals(b("v"), f.getNow(null).value(), "under FIRST_REPLY any replica's first reply wins");
            p.onReply(reply(2, batch, 0, KvResult.notFound()));
            ProxyStats s = p.stats();
            assertEquals(2, s.replies());
            assertEquals(1, s.staleReplies(), "the batch was finished by the first reply");
            assertEquals(0, s.duplicateReplies() + s.mismatchingReplies() + s.unknownReplicaReplies(), s.toString());
        }
    }

    @Test
    void aResultNeedsFPlusOneMatchingRepliesEvenWhenAWrongOneComesFirst() throws Exception {
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).build(), r)) {
            CompletableFuture<KvResult> f = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch batch = r.next();
            KvResult right = KvResult.ok(b("v"));
            p.onReply(reply(4, batch, 0, forge(right)));
            assertFalse(f.isDone(), "one (forged) reply is not f+1");
            p.onReply(reply(1, batch, 0, right));
            assertFalse(f.isDone(), "one correct and one forged reply: no answer has f+1 = 2");
            p.onReply(reply(3, batch, 0, KvResult.ok(b("w"))));
            assertFalse(f.isDone(), "three different answers, one replica left: v could still reach 2");
            p.onReply(reply(2, batch, 0, right));
            assertTrue(f.isDone(), "the second matching reply decides");
            assertArrayEquals(b("v"), get(f).value());
            ProxyStats s = p.stats();
            assertEquals(4, s.replies());
            assertEquals(2, s.mismatchingReplies(), s.toString());
            assertEquals(0, s.outstanding(), "the batch's window slot is free");
        }
    }

    @Test
    void twoRepliesFromOneReplicaCountOnce() throws Exception {
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).build(), r)) {
            CompletableFuture<KvResult> f = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch batch = r.next();
            p.onReply(reply(1, batch, 0, KvResult.ok(b("v"))));
            p.onReply(reply(1, batch, 0, KvResult.ok(b("v"))));
            assertFalse(f.isDone(), "replica 1 twice is one replica, not f+1 = 2");
            // A later, different answer from replica 1 does not replace its first one either.
            p.onReply(reply(1, batch, 0, KvResult.notFound()));
            p.onReply(reply(2, batch, 0, KvResult.notFound()));
            assertFalse(f.isDone(), "NOT_FOUND has only replica 2's vote");
            assertEquals(2, p.stats().duplicateReplies());
            p.onReply(reply(3, batch, 0, KvResult.ok(b("v"))));
            assertArrayEquals(b("v"), f.getNow(null).value());
            assertEquals(1, p.stats().mismatchingReplies(), "replica 2's NOT_FOUND");
        }
    }

    @Test
    void aReplyFromAReplicaOutsideTheSetIsIgnoredAndCounted() throws Exception {
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).build(), r)) {
            CompletableFuture<KvResult> f = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch batch = r.next();
            p.onReply(reply(99, batch, 0, KvResult.ok(b("x"))));
            p.onReply(reply(1, batch, 0, KvResult.ok(b("x"))));
            assertFalse(f.isDone(), "replica 99 is not one of 1 to 4: its vote does not count");
            ProxyStats s = p.stats();
            assertEquals(1, s.unknownReplicaReplies(), s.toString());
            assertEquals(2, s.replies());
            assertEquals(0, s.staleReplies());
            p.onReply(reply(2, batch, 0, KvResult.ok(b("x"))));
            assertArrayEquals(b("x"), f.getNow(null).value());
        }
    }

    @Test
    void whenNoAnswerCanReachFPlusOneTheCommandFailsNamingTheAnswers() throws Exception {
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).build(), r)) {
            CompletableFuture<KvResult> f = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch batch = r.next();
            p.onReply(reply(1, batch, 0, KvResult.ok(b("a"))));
            p.onReply(reply(2, batch, 0, KvResult.ok(b("b"))));
            p.onReply(reply(3, batch, 0, KvResult.notFound()));
            assertFalse(f.isDone(), "replica 4 may still agree with one of them");
            p.onReply(reply(4, batch, 0, KvResult.of(KvStatus.REJECTED, "no")));
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(1, TimeUnit.SECONDS));
            ReplyMismatchException m = assertInstanceOf(ReplyMismatchException.class, e.getCause());
            assertEquals("the replicas disagree on command 0 of batch " + batch.batchId() + " of proxy 1 ("
                    + batch.commands().get(0) + "): no answer can reach f+1 = 2 matching replies of"
                    + " MATCHING(f=1, replicas [1, 2, 3, 4]); answers: OK value 1 bytes 0x61 from replica(s) 1;"
                    + " OK value 1 bytes 0x62 from replica(s) 2; NOT_FOUND from replica(s) 3; REJECTED \"no\" from"
                    + " replica(s) 4. More than f replicas are faulty, or correct ones answered different deliveries"
                    + " of a retried batch; the command may have executed", m.getMessage());
            assertEquals(4, p.stats().mismatchingReplies());
            assertEquals(0, p.stats().outstanding());
        }
    }

    @Test
    void wholeBatchRefusalsFollowTheSameRule() throws Exception {
        Recorder r = new Recorder();
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).build(), r)) {
            CompletableFuture<KvResult> f0 = p.submit(KvCommand.read(10, 1, b("k")));
            KvBatch first = r.next();
            // The first batch is in flight (window 1): these two form the second, a batch of two commands.
            CompletableFuture<KvResult> f1 = p.submit(KvCommand.read(11, 1, b("k")));
            CompletableFuture<KvResult> f2 = p.submit(KvCommand.read(12, 1, b("j")));
            KvResult refused = KvResult.of(KvStatus.REJECTED, "summary misses a key");
            // One Byzantine replica refusing the batch refuses nothing.
            p.onReply(reply(4, first, KvReply.WHOLE_BATCH, refused));
            p.onReply(reply(1, first, 0, KvResult.ok(b("v"))));
            assertFalse(f0.isDone());
            p.onReply(reply(2, first, 0, KvResult.ok(b("v"))));
            assertArrayEquals(b("v"), get(f0).value(), "the forged whole-batch refusal lost");
            KvBatch second = r.next();
            assertEquals(2, second.commands().size());
            // Two replicas refusing it whole: f+1 matching answers for both commands.
            p.onReply(reply(1, second, KvReply.WHOLE_BATCH, refused));
            assertFalse(f1.isDone() || f2.isDone());
            p.onReply(reply(3, second, 1, KvResult.notFound()));
            p.onReply(reply(2, second, KvReply.WHOLE_BATCH, refused));
            assertEquals(refused, get(f1));
            assertEquals(refused, get(f2));
            ProxyStats s = p.stats();
            assertEquals(2, s.mismatchingReplies(), "replica 4's refusal of command 0, replica 3's NOT_FOUND: " + s);
            assertEquals(0, s.outstanding());
        }
    }

    @Test
    void configurationIsValidated() {
        assertEquals("MATCHING needs f of at least 1 (use FIRST_REPLY for crash faults), got 0",
                assertThrows(IllegalArgumentException.class, () -> ReplyTrust.matching(0, 1, 2, 3)).getMessage());
        assertEquals("replica id 2 is listed twice in [1, 2, 2, 3]",
                assertThrows(IllegalArgumentException.class, () -> ReplyTrust.matching(1, 1, 2, 2, 3)).getMessage());
        assertEquals("MATCHING(f=2) needs at least 2f+1 = 5 replicas, so that f+1 correct ones can answer; got 4: [1, 2, 3, 4]",
                assertThrows(IllegalArgumentException.class, () -> ReplyTrust.matching(2, 1, 2, 3, 4)).getMessage());
        assertThrows(NullPointerException.class, () -> proxy().replyTrust(null).build());
        ReplyTrust t = ReplyTrust.matching(1, List.of(4, 2, 3, 1));
        assertEquals(F1, t);
        assertEquals(2, t.quorum());
        assertEquals(0, t.slotOf(1));
        assertEquals(3, t.slotOf(4));
        assertEquals(-1, t.slotOf(99));
        assertEquals(F1, proxy().replyTrust(F1).build().toBuilder().build().replyTrust());
    }

    // ------------------------------------------------------------ a real cluster, replica 4 lying

    /**
     * Sits between the cluster's router and the proxy: replica 4's replies are forged and reach the proxy
     * before any other replica's reply to the same command (those are held until then).
     */
    static final class Liar implements ReplyChannel {
        final ReplyChannel proxy;
        final Map<Long, List<KvReply>> held = new HashMap<>(); // guarded by this
        final Set<Long> lied = new HashSet<>(); // guarded by this
        final AtomicReference<KvResult> firstHonest = new AtomicReference<>();

        Liar(ReplyChannel proxy) {
            this.proxy = proxy;
        }

        /**
         * Called by the replicas' reply threads. Delivers under this monitor: delivering after releasing it
         * let an honest reply that arrived after replica 4's overtake the forgery on its way to the proxy.
         */
        @Override
        public synchronized void onReply(KvReply reply) {
            long key = reply.batchId() * 1_000_000L + reply.index() + 1;
            List<KvReply> deliver = new ArrayList<>();
            if (reply.replicaId() == 4) {
                deliver.add(new KvReply(4, reply.proxyId(), reply.batchId(), reply.index(), reply.instance(),
                        forge(reply.result())));
                lied.add(key);
                List<KvReply> h = held.remove(key);
                if (h != null) {
                    deliver.addAll(h);
                }
            } else if (lied.contains(key)) {
                deliver.add(reply);
            } else {
                held.computeIfAbsent(key, k -> new ArrayList<>()).add(reply);
            }
            if (reply.replicaId() == 1) {
                firstHonest.compareAndSet(null, reply.result());
            }
            for (KvReply d : deliver) {
                proxy.onReply(d);
            }
        }
    }

    @Test
    void withMatchingTheClientNeverAcceptsTheLyingReplicasAnswers() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(4, replicas())) {
            neverBelievesTheLiar(c.broadcast(), c.router(), 6);
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            assertEquals(1, new HashSet<>(c.digests()).size(), "the replicas themselves agree: " + c.digests());
        }
    }

    @Test
    void overPbftTheClientNeverAcceptsTheLyingReplicasAnswersEither() throws Exception {
        // The same lie under the ordering MATCHING is for: 4 PBFT replicas with 2 pillars, a store replica on each.
        try (EmbeddedPbftCluster c = EmbeddedPbftCluster.start(EmbeddedPbftCluster.config(1, 2, LeaderRotation.ROTATING), replicas())) {
            assertEquals(List.of(1, 2, 3, 4), c.replicaIds());
            neverBelievesTheLiar(c.broadcast(), c.router(), 2);
            assertTrue(c.awaitQuiescent(30, TimeUnit.SECONDS));
            assertEquals(1, new HashSet<>(c.digests()).size(), "the replicas themselves agree: " + c.digests());
        }
    }

    /** {@code rounds} of creates and reads by 4 clients of a MATCHING(f=1) proxy while replica 4 lies first. */
    private static void neverBelievesTheLiar(AtomicBroadcast broadcast, LocalReplyRouter router, int rounds) throws Exception {
        try (ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).window(2).build(), broadcast);
             AutoCloseable reg = router.register(1, new Liar(p))) {
            List<KvClient> clients = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                clients.add(p.newClient());
            }
            for (int round = 0; round < rounds; round++) {
                List<CompletableFuture<KvResult>> creates = new ArrayList<>();
                List<CompletableFuture<KvResult>> reads = new ArrayList<>();
                List<CompletableFuture<KvResult>> missing = new ArrayList<>();
                // Clients run concurrently; each waits for its create before reading (a client's pipelined
                // requests made while its session opens reach the proxy in no fixed order: KvClient submits them as
                // dependents of the OPEN_SESSION future, which runs them last-registered first).
                for (int i = 0; i < clients.size(); i++) {
                    creates.add(clients.get(i).create(b("k" + i + "." + round), b("value k" + i + "." + round)));
                }
                for (int i = 0; i < clients.size(); i++) {
                    assertEquals(KvResult.ok(), get(creates.get(i)), "create k" + i + "." + round);
                }
                for (int i = 0; i < clients.size(); i++) {
                    KvClient cl = clients.get(i);
                    String k = "k" + i + "." + round;
                    reads.add(cl.read(b(k)));
                    missing.add(cl.read(b("never " + k)));
                }
                for (int i = 0; i < clients.size(); i++) {
                    String k = "k" + i + "." + round;
                    assertEquals(KvResult.ok(b("value " + k)), get(reads.get(i)), k);
                    assertEquals(KvResult.notFound(), get(missing.get(i)), k);
                }
            }
            ProxyStats s = p.stats();
            assertEquals(4 + 4 * rounds * 3, s.commands(), "4 OPEN_SESSIONs and the requests: " + s);
            assertEquals(s.commands(), s.mismatchingReplies(), "replica 4's forged reply to every command: " + s);
            assertEquals(0, s.duplicateReplies() + s.unknownReplicaReplies() + s.retries(), s.toString());
        }
    }

    @Test
    void withFirstReplyTheSameLieWouldBeBelieved() throws Exception {
        // Shows the interceptor above does lie first: without MATCHING, replica 4's forgery is the answer.
        try (EmbeddedCluster c = EmbeddedCluster.start(4, replicas());
             ClientProxy p = ClientProxy.start(proxy().build(), c.broadcast())) {
            Liar liar = new Liar(p);
            try (AutoCloseable reg = c.router().register(1, liar)) {
                KvResult answer = get(p.submit(KvCommand.openSession(77, 1)));
                // The forgery answered first; replica 1's honest reply may still be on its way.
                await(() -> liar.firstHonest.get() != null, 30, () -> "replica 1's reply");
                KvResult honest = liar.firstHonest.get();
                assertEquals(KvStatus.OK, honest.status());
                assertEquals(forge(honest), answer);
                assertFalse(honest.equals(answer));
            }
        }
    }

    @Test
    void matchingOverARealClusterStillAnswersWholeBatchRefusals() throws Exception {
        try (EmbeddedCluster c = EmbeddedCluster.start(4, replicas());
             ClientProxy p = ClientProxy.start(proxy().replyTrust(F1).detection(ConflictDetection.bitmap(1024)).build(),
                     c.broadcast(), c.router())) {
            KvResult r = get(p.submit(KvCommand.create(1000, 1, b("k"), b("v"))));
            assertEquals(KvStatus.REJECTED, r.status());
            assertTrue(r.detail().contains("bits"), r.detail());
            assertNull(r.value());
        }
    }
}
