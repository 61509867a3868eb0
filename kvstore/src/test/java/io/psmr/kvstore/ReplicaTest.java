package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Three replicas over one sequencer: refusals, exactly-once, and agreement. */
public class ReplicaTest {

    static final StoreConfig STORE = StoreConfig.defaults().sized(20_000, 8, 64);
    static final ConflictDetection DETECTION = ConflictDetection.rwBitmap(100_000);
    static final KvLimits LIMITS = KvLimits.defaults().withMaxCommandsPerBatch(100).withMaxBatchBytes(64 * 1024);

    public static ReplicaConfig config() {
        return ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).store(STORE).workers(2).maxPending(64).build();
    }

    static EmbeddedCluster cluster() {
        // The sequencer accepts values larger than a batch may be, so that the replicas' own limit is reached.
        return EmbeddedCluster.start(3, config(), LocalSequencer.builder().maxValueBytes(LIMITS.maxBatchBytes() * 2));
    }

    /** Client {@code c}'s session, opened by the first batch of each test. */
    static long sid(long c) {
        return Workload.session(1, c);
    }

    static byte[] encode(long proxy, long batch, List<KvCommand> commands) {
        return Workload.encode(proxy, batch, commands, DETECTION);
    }

    static void assertRepliesAgree(ReplyCollector replies, int replicas) {
        Map<List<Long>, KvResult> first = replies.of(1);
        for (int r = 2; r <= replicas; r++) {
            assertEquals(first, replies.of(r), "replica " + r + " answers differently from replica 1");
        }
    }

    static void assertDigestsAgree(EmbeddedCluster c) {
        List<Long> d = c.digests();
        assertTrue(d.stream().distinct().count() == 1, "digests differ: " + d);
    }

    @Test
    void malformedBatchesAreRefusedIdenticallyAndEveryReplicaKeepsServing() throws Exception {
        try (EmbeddedCluster c = cluster()) {
            ReplyCollector replies = new ReplyCollector();
            c.router().register(1, replies);
            LocalSequencer seq = c.broadcast();
            assertEquals(1, seq.propose(Workload.openSessions(8, DETECTION)).get()); // clients 0..7
            byte[] k1 = Workload.key(1);
            byte[] k2 = Workload.key(2);
            List<KvCommand> good = List.of(KvCommand.create(sid(1), 1, k1, new byte[] {1}), KvCommand.create(sid(1), 2, k2, new byte[] {2}));
            byte[] goodBytes = encode(1, 1, good);
            seq.propose(goodBytes).get();

            byte[] truncated = Arrays.copyOf(goodBytes, goodBytes.length - 7);
            seq.propose(truncated).get();                                                     // batch 1 again, cut
            byte[] garbled = encode(1, 2, good);
            garbled[garbled.length / 2] ^= 0x5a;
            seq.propose(garbled).get();                                                       // batch 2
            byte[] version = encode(1, 3, good);
            version[0] = 9;
            seq.propose(version).get();                                                       // batch 3
            seq.propose(new byte[] {1, 2, 3}).get();                                          // unaddressable
            List<KvCommand> other = List.of(KvCommand.update(sid(1), 3, Workload.key(77), new byte[] {3}));
            seq.propose(KvCodec.encodeBatch(1, 4, List.of(KvCommand.update(sid(1), 3, k1, new byte[] {3})),
                    SummaryBuilder.summarize(DETECTION, other))).get();                       // batch 4: summary misses k1
            seq.propose(Workload.encode(1, 5, good, ConflictDetection.keysHashed())).get();   // batch 5: other mode
            List<KvCommand> many = new ArrayList<>();
            for (int i = 0; i < LIMITS.maxCommandsPerBatch() + 1; i++) {
                many.add(KvCommand.read(sid(2), i + 1, k1));
            }
            seq.propose(encode(1, 6, many)).get();                                            // batch 6: too many commands
            seq.propose(encode(1, 7, List.of(KvCommand.create(sid(3), 1, Workload.key(3),
                    new byte[LIMITS.maxBatchBytes()])))).get();                               // batch 7: too many bytes
            List<KvCommand> mixed = List.of(KvCommand.update(sid(4), 1, k1, new byte[] {4}),
                    KvCommand.create(sid(4), 2, Workload.key(5), new byte[LIMITS.maxValueBytes() + 1]),
                    KvCommand.read(sid(4), 3, k1));
            seq.propose(encode(1, 8, mixed)).get();                                           // batch 8: one command too large
            List<KvCommand> after = List.of(KvCommand.read(sid(5), 1, k2), KvCommand.delete(sid(5), 2, k2), KvCommand.read(sid(5), 3, k1));
            long last = seq.propose(encode(1, 9, after)).get();                               // batch 9: still served

            assertTrue(c.awaitApplied(last, 30, TimeUnit.SECONDS));
            assertRepliesAgree(replies, 3);
            assertDigestsAgree(c);
            for (Replica r : c.replicas()) {
                assertTrue(r.isServing());
                ReplicaStats s = r.stats();
                assertEquals(12, s.batchesDelivered());
                assertEquals(8, s.batchesRefused());
                assertEquals(1, s.refusalsUnaddressed());
                assertEquals(1, s.commandsTooLarge());
                assertArrayEquals(new byte[] {4}, r.store().get(k1));
                assertEquals(null, r.store().get(k2));
            }
            int w = KvReply.WHOLE_BATCH;
            assertEquals(KvStatus.MALFORMED, replies.get(1, 1, 1, w).status()); // the cut copy of batch 1
            assertTrue(replies.get(1, 1, 1, w).detail().contains("checksum mismatch"), replies.get(1, 1, 1, w).detail());
            assertEquals(KvStatus.MALFORMED, replies.get(2, 1, 2, w).status());
            assertTrue(replies.get(3, 1, 3, w).detail().contains("codec version 9 is not supported"));
            KvResult missing = replies.get(1, 1, 4, w);
            assertEquals(KvStatus.REJECTED, missing.status());
            assertTrue(missing.detail().contains("conflict summary misses a key"), missing.detail());
            assertEquals(KvStatus.REJECTED, replies.get(1, 1, 5, w).status());
            assertEquals(KvStatus.TOO_LARGE, replies.get(1, 1, 6, w).status());
            assertEquals(KvStatus.TOO_LARGE, replies.get(1, 1, 7, w).status());
            assertEquals(KvResult.ok(), replies.get(1, 1, 8, 0));
            assertEquals(KvStatus.TOO_LARGE, replies.get(1, 1, 8, 1).status());
            assertArrayEquals(new byte[] {4}, replies.get(1, 1, 8, 2).value());
            assertArrayEquals(new byte[] {2}, replies.get(1, 1, 9, 0).value());
            assertEquals(KvResult.ok(), replies.get(1, 1, 9, 1));
            assertEquals(KvResult.ok(), replies.get(1, 1, 1, 0));
            // Refused batches are answered once per replica; batch 1 got its commands' replies and one refusal.
            assertEquals(3 * (2 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 3 + 3), replies.count.get());
        }
    }

    @Test
    void aRetriedCommandAppliesOnceAndGetsTheCachedAnswer() throws Exception {
        try (EmbeddedCluster c = cluster()) {
            ReplyCollector replies = new ReplyCollector();
            c.router().register(1, replies);
            LocalSequencer seq = c.broadcast();
            assertEquals(1, seq.propose(Workload.openSessions(8, DETECTION)).get()); // clients 0..7
            byte[] k = Workload.key(1);
            byte[] k2 = Workload.key(2);
            List<KvCommand> first = List.of(KvCommand.create(sid(5), 1, k, new byte[] {1}), KvCommand.read(sid(5), 2, k2));
            seq.propose(encode(1, 1, first)).get();
            seq.propose(encode(1, 2, List.of(KvCommand.update(sid(6), 1, k, new byte[] {2}),
                    KvCommand.create(sid(6), 2, k2, new byte[] {9})))).get();
            // The proxy retries batch 1 as batch 3, and a client repeats a request inside one batch.
            seq.propose(encode(1, 3, first)).get();
            seq.propose(encode(1, 4, List.of(KvCommand.delete(sid(7), 1, k2), KvCommand.delete(sid(7), 1, k2)))).get();
            // Client 5 moves far ahead; its request 2 is then too old to tell.
            seq.propose(encode(1, 5, List.of(KvCommand.read(sid(5), 2 + config().replyCacheWindow(), k)))).get();
            long last = seq.propose(encode(1, 6, List.of(KvCommand.read(sid(5), 2, k2)))).get();

            assertTrue(c.awaitApplied(last, 30, TimeUnit.SECONDS));
            assertRepliesAgree(replies, 3);
            assertDigestsAgree(c);
            assertEquals(KvResult.ok(), replies.get(1, 1, 3, 0), "the retried CREATE answers its first OK, not EXISTS");
            assertEquals(KvResult.notFound(), replies.get(1, 1, 3, 1), "the retried READ answers what it read first");
            assertEquals(KvResult.ok(), replies.get(1, 1, 4, 0));
            assertEquals(KvResult.ok(), replies.get(1, 1, 4, 1), "the repeated DELETE is not executed again (it would be NOT_FOUND)");
            KvResult stale = replies.get(1, 1, 6, 0);
            assertEquals(KvStatus.REJECTED, stale.status());
            assertTrue(stale.detail().contains("older than the reply cache window"), stale.detail());
            for (Replica r : c.replicas()) {
                assertArrayEquals(new byte[] {2}, r.store().get(k), "the retried CREATE did not overwrite the UPDATE");
                assertEquals(null, r.store().get(k2));
                assertEquals(3, r.stats().duplicates());
                assertEquals(1, r.stats().staleRequests());
                assertEquals(6, r.stats().commandsExecuted());
            }
        }
    }

    @Test
    void replicaConfigRefusesBadSettings() {
        assertThrows(IllegalArgumentException.class, () -> ReplicaConfig.builder().workers(0).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicaConfig.builder().maxPending(0).build());
        assertThrows(IllegalArgumentException.class, () -> ReplicaConfig.builder().replyCacheWindow(0).build());
        assertEquals("maxSessions must be at least 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> ReplicaConfig.builder().maxSessions(0).build()).getMessage());
        assertEquals("sessionTimeoutInstances must be at least 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> ReplicaConfig.builder().sessionTimeoutInstances(0).build()).getMessage());
        assertEquals("store capacity maxEntries must be at least 1, got 0", assertThrows(IllegalArgumentException.class,
                () -> new StoreCapacity(0, 10)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReplicaConfig.builder().fromInstance(0).build());
        assertThrows(IllegalArgumentException.class, () -> EmbeddedCluster.start(0, config()));
        try (LocalSequencer seq = LocalSequencer.builder().retainedInstances(2).build()) {
            seq.start();
            for (int i = 0; i < 5; i++) {
                seq.propose(new byte[1]);
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Replica.start(config(), seq, new LocalReplyRouter()));
            assertNotNull(e.getMessage());
        }
    }

    @Test
    void repliesToUnknownProxiesAreDroppedAndCounted() throws Exception {
        LocalReplyRouter router = new LocalReplyRouter();
        router.route(new KvReply(1, 42, 1, 0, 1, KvResult.ok()));
        assertEquals(1, router.dropped());
        ReplyCollector got = new ReplyCollector();
        AutoCloseable registration = router.register(42, got);
        assertThrows(IllegalStateException.class, () -> router.register(42, r -> { }));
        router.route(new KvReply(1, 42, 1, 0, 1, KvResult.ok()));
        assertEquals(1, router.routed());
        registration.close();
        router.route(new KvReply(1, 42, 1, 0, 1, KvResult.ok()));
        assertEquals(2, router.dropped());
        assertEquals(1, got.count.get());
    }
}
