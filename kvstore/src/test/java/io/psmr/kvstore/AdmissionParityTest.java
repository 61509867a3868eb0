package io.psmr.kvstore;

import io.psmr.kvstore.ratis.EmbeddedRatisCluster;
import io.psmr.kvstore.ratis.RatisReplica;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.LocalSequencer;
import io.psmr.scheduler.SummaryBuilder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same delivered values, in the same order, through a {@link RatisReplica} (one Ratis peer on loopback) and a
 * {@link Replica} (a {@link LocalSequencer}): both runtimes admit through {@link BatchAdmitter}, so they give equal
 * answers and equal {@link ReplicaStats}, refusals and per-command verdicts included. Ratis' log holds its own
 * entries between the values, so the n-th value's instance differs; instances are compared through that mapping.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AdmissionParityTest {

    private static final long PROXY = 1;
    private static final long OPENER = 98; // Workload.openSessions' proxy
    /** A session no OPEN_SESSION batch opened (none runs at instance 1,000,000). */
    private static final long NEVER_OPENED = Workload.session(1_000_000, 7);

    @TempDir
    Path dir;

    @Test
    void replicaAndRatisReplicaAnswerAndCountEveryVerdictAlike() throws Exception {
        ReplicaConfig config = ReplicaTest.config().toBuilder().store(StoreConfig.heap())
                .capacity(new StoreCapacity(2, 10_000)).build();
        ReplyCollector ratisReplies = new ReplyCollector();
        List<byte[]> values = new ArrayList<>();
        long[] ratisIndex;
        ReplicaStats ratisStats;
        try (EmbeddedRatisCluster ratis = EmbeddedRatisCluster.start(1, config, dir, 0)) {
            assertTrue(ratis.awaitLeader(30, TimeUnit.SECONDS) > 0, "a leader is elected");
            ratis.router().register(PROXY, ratisReplies);
            ratis.router().register(OPENER, ratisReplies);
            // Session ids come from the instance, which only Ratis' log knows in advance: open them first.
            values.add(Workload.openSessions(2, ReplicaTest.DETECTION));
            long opened = ratis.broadcast().propose(values.get(0)).get(30, TimeUnit.SECONDS);
            values.addAll(verdicts(Workload.session(opened, 0), Workload.session(opened, 1)));
            ratisIndex = new long[values.size()];
            ratisIndex[0] = opened;
            for (int i = 1; i < values.size(); i++) {
                ratisIndex[i] = ratis.broadcast().propose(values.get(i)).get(30, TimeUnit.SECONDS);
            }
            assertTrue(ratis.awaitQuiescent(30, TimeUnit.SECONDS), "the Ratis replica applied everything");
            ratisStats = ratis.replica(1).stats();
        }
        long first = ratisIndex[0]; // the sessions' ids depend on it: the psmr log starts there too

        ReplyCollector psmrReplies = new ReplyCollector();
        ReplicaStats psmrStats;
        try (EmbeddedCluster psmr = EmbeddedCluster.start(1, config.toBuilder().fromInstance(first).build(), LocalSequencer.builder().firstInstance(first)
                .maxValueBytes(ReplicaTest.LIMITS.maxBatchBytes() * 2))) {
            psmr.router().register(PROXY, psmrReplies);
            psmr.router().register(OPENER, psmrReplies);
            long last = 0;
            for (byte[] v : values) {
                last = psmr.broadcast().propose(v).get(30, TimeUnit.SECONDS);
            }
            assertEquals(first + values.size() - 1, last);
            assertTrue(psmr.awaitApplied(last, 30, TimeUnit.SECONDS), "the replica applied everything");
            psmrStats = psmr.replicas().get(0).stats();
        }

        assertEquals(new ReplicaStats(9, 3, 1, 2, 1, 0, 1, 1, 2, 1, first + 8), psmrStats);
        assertEquals(atInstance(psmrStats, ratisIndex[8]), ratisStats, "the runtimes count differently");
        Map<List<Long>, KvResult> answers = psmrReplies.of(1);
        Map<List<Long>, KvResult> asRatis = new HashMap<>();
        answers.forEach((id, r) -> asRatis.put(id, inRatisLog(r, first, ratisIndex)));
        assertEquals(asRatis, ratisReplies.of(1), "the runtimes answer differently");
        assertEquals(List.of(), psmrReplies.repeated);
        assertEquals(List.of(), ratisReplies.repeated);
        assertEquals(2 + 1 + 1 + 1 + 1 + 1 + 2 + 1, answers.size(), answers.toString());

        int w = KvReply.WHOLE_BATCH;
        assertArrayEquals(java.nio.ByteBuffer.allocate(8).putLong(Workload.session(first, 1)).array(),
                answers.get(ReplyCollector.id(OPENER, 1, 1)).value());
        KvResult malformed = answers.get(ReplyCollector.id(PROXY, 1, w));
        assertEquals(KvStatus.MALFORMED, malformed.status());
        assertTrue(malformed.detail().startsWith("batch 1 of proxy 1 at instance " + (first + 1) + " refused: "),
                malformed.detail());
        KvResult missing = answers.get(ReplyCollector.id(PROXY, 2, w));
        assertEquals(KvStatus.REJECTED, missing.status());
        assertTrue(missing.detail().contains("conflict summary misses a key"), missing.detail());
        assertEquals(KvResult.ok(), answers.get(ReplyCollector.id(PROXY, 1, 0)));
        assertEquals(KvResult.ok(), answers.get(ReplyCollector.id(PROXY, 4, 0)), "the duplicate gets the original's answer");
        assertEquals(KvStatus.TOO_LARGE, answers.get(ReplyCollector.id(PROXY, 5, 0)).status());
        assertEquals(KvResult.ok(), answers.get(ReplyCollector.id(PROXY, 6, 0)));
        assertEquals(KvStatus.FULL, answers.get(ReplyCollector.id(PROXY, 6, 1)).status());
        assertEquals(KvStatus.SESSION_EXPIRED, answers.get(ReplyCollector.id(PROXY, 7, 0)).status());
    }

    private static ReplicaStats atInstance(ReplicaStats s, long lastInstance) {
        return new ReplicaStats(s.batchesDelivered(), s.batchesRefused(), s.refusalsUnaddressed(), s.commandsExecuted(),
                s.duplicates(), s.staleRequests(), s.commandsTooLarge(), s.commandsFull(), s.sessionsOpened(),
                s.sessionRefusals(), lastInstance);
    }

    /** {@code r} with the psmr instance its refusal names replaced by the Ratis index of the same value. */
    private static KvResult inRatisLog(KvResult r, long first, long[] ratisIndex) {
        if (r.detail() == null) {
            return r;
        }
        Matcher m = Pattern.compile(" at instance (\\d+) refused: ").matcher(r.detail());
        if (!m.find()) {
            return r;
        }
        long index = ratisIndex[(int) (Long.parseLong(m.group(1)) - first)];
        return new KvResult(r.status(), r.value(), m.replaceFirst(" at instance " + index + " refused: "));
    }

    /**
     * After the sessions are open: a malformed value, a bitmap missing a key's bit, a write and its duplicate, an
     * oversized command, a write into a full store (2 entries), a sessionless request, and a value nobody can be
     * told about.
     */
    private static List<byte[]> verdicts(long s0, long s1) {
        byte[] k1 = Workload.key(1);
        List<KvCommand> good = List.of(KvCommand.create(s0, 1, k1, new byte[] {1}));
        byte[] goodBytes = ReplicaTest.encode(PROXY, 1, good);
        List<KvCommand> other = List.of(KvCommand.update(s0, 1, Workload.key(77), new byte[] {3}));
        return List.of(
                Arrays.copyOf(goodBytes, goodBytes.length - 7),                                  // batch 1, cut
                KvCodec.encodeBatch(PROXY, 2, good, SummaryBuilder.summarize(ReplicaTest.DETECTION, other)),
                goodBytes,                                                                       // batch 1, whole
                ReplicaTest.encode(PROXY, 4, good),                                              // a retry of it
                ReplicaTest.encode(PROXY, 5, List.of(KvCommand.create(s1, 1, Workload.key(5),
                        new byte[ReplicaTest.LIMITS.maxValueBytes() + 1]))),
                ReplicaTest.encode(PROXY, 6, List.of(KvCommand.create(s1, 2, Workload.key(2), new byte[] {2}),
                        KvCommand.create(s1, 3, Workload.key(3), new byte[] {3}))),              // the third entry
                ReplicaTest.encode(PROXY, 7, List.of(KvCommand.read(NEVER_OPENED, 1, k1))),
                new byte[] {1, 2, 3});                                                           // unaddressable
    }
}
