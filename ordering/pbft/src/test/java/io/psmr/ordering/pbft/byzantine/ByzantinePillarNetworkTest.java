package io.psmr.ordering.pbft.byzantine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftMessage;
import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.Refusal;
import io.psmr.ordering.agent.BoundedQueue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What {@link ByzantinePillarNetwork} sends for each mode, decoded and verified as a receiver would: envelopes change
 * as the mode says, the MACs of what it rewrites still verify at the receiver (it re-MACs as itself), and only
 * forged-macs sends envelopes that fail.
 */
class ByzantinePillarNetworkTest {

    static final long SEED = Long.getLong("psmr.seed", 20261123L);
    static final int BYZANTINE = 0;
    static final PbftConfig CONFIG = new PbftConfig(1, 2, 16, 64, 200, 6400, 0, 50, LeaderRotation.FIXED, 1 << 16, 10_000);
    /** The replica's tick: 10 ms, so CONFIG's request timeout of 200 ticks is 2 s. */
    static final long TICK_NANOS = 10_000_000L;
    static final PbftKeys KEYS = PbftKeys.forTesting(7, 4, 8);
    /** The receivers' view: every key (verification only uses the receiver's pair key and the public keys). */
    static final Authenticator ALL = new HmacAuthenticator(KEYS);
    /** What the Byzantine replica holds: its own keys only. */
    static final Authenticator OWN = new HmacAuthenticator(KEYS.restrictedTo(BYZANTINE));

    /** Records what reaches the wire, round-tripped through the frame codec. */
    static class Wire implements PillarNetwork {
        final List<PbftEnvelope> sent = new ArrayList<>();

        @Override
        public boolean send(PbftEnvelope envelope) {
            sent.add(EnvelopeCodec.decode(EnvelopeCodec.encode(envelope)));
            return true;
        }

        @Override
        public BoundedQueue<byte[]> frames(int replica, int pillar) {
            throw new UnsupportedOperationException();
        }

        @Override
        public BoundedQueue<byte[]> requests(int replica, int pillar) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void refused(int replica, int pillar, Request request, Refusal reason) {
        }
    }

    static Request request(long client, long number) {
        return Request.sign(client, number, ("put k" + number).getBytes(StandardCharsets.UTF_8), ALL, 4);
    }

    /** The traffic of a leader of pillar 0 for {@code instances} instances, to replicas 1..3, then a CHECKPOINT and a VIEW-CHANGE. */
    static List<PbftEnvelope> traffic(int instances) {
        List<PbftEnvelope> out = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            long seq = 2L * i + 2; // pillar 0 of 2
            Request q = request(i % 8, i + 1);
            for (int to = 1; to < 4; to++) {
                out.add(PbftEnvelope.seal(BYZANTINE, to, 0, q, OWN));
                out.add(PbftEnvelope.seal(BYZANTINE, to, 0, new PrePrepare(0, seq, q.digest(), q), OWN));
                out.add(PbftEnvelope.seal(BYZANTINE, to, 0, new Prepare(0, seq, q.digest(), BYZANTINE), OWN));
                out.add(PbftEnvelope.seal(BYZANTINE, to, 0, new Commit(0, seq, q.digest(), BYZANTINE), OWN));
            }
        }
        for (int to = 1; to < 4; to++) {
            out.add(PbftEnvelope.seal(BYZANTINE, to, 0, Checkpoint.signed(16, new byte[32], BYZANTINE, OWN), OWN));
            out.add(PbftEnvelope.seal(BYZANTINE, to, 0,
                    ViewChange.signed(0, 1, 0, List.of(), List.of(), List.of(), BYZANTINE, OWN), OWN));
        }
        return out;
    }

    /** The slow leader's scheduler driven by hand: time moves only in {@link #advanceTo}, tasks run on the caller. */
    static final class ManualScheduler implements ByzantinePillarNetwork.Scheduler {
        private record Task(long at, long order, Runnable task) {
        }

        private final List<Task> tasks = new ArrayList<>();
        private final List<Long> delays = new ArrayList<>();
        private long now;
        private long order;
        private boolean closed;

        @Override
        public void schedule(Runnable task, long delayNanos) {
            if (closed) {
                throw new java.util.concurrent.RejectedExecutionException("closed");
            }
            delays.add(delayNanos);
            tasks.add(new Task(now + delayNanos, order++, task));
        }

        @Override
        public void close() {
            closed = true;
            tasks.clear();
        }

        /** Moves time to {@code t}, running every task due by then in (due, scheduled) order. */
        void advanceTo(long t) {
            now = t;
            tasks.sort(java.util.Comparator.comparingLong(Task::at).thenComparingLong(Task::order));
            while (!tasks.isEmpty() && tasks.get(0).at() <= now) {
                tasks.remove(0).task().run();
            }
        }

        int pending() {
            return tasks.size();
        }
    }

    static ByzantinePillarNetwork network(PillarNetwork wire, ByzantineMode mode, long seed, ManualScheduler scheduler) {
        return new ByzantinePillarNetwork(wire, BYZANTINE, mode, CONFIG, TICK_NANOS, OWN, seed,
                mode == ByzantineMode.SLOW_LEADER ? scheduler : null);
    }

    /** Sends {@code in} through {@code mode}, then lets time run out (a slow leader's held envelopes go out too). */
    static Wire run(ByzantineMode mode, List<PbftEnvelope> in, long seed) {
        Wire wire = new Wire();
        ManualScheduler scheduler = new ManualScheduler();
        ByzantinePillarNetwork net = network(wire, mode, seed, scheduler);
        for (PbftEnvelope e : in) {
            assertTrue(net.send(e));
        }
        scheduler.advanceTo(Long.MAX_VALUE);
        return wire;
    }

    static boolean verifies(PbftEnvelope e) {
        return e.verify(ALL);
    }

    static <T extends PbftMessage> List<T> of(Class<T> type, List<PbftEnvelope> envelopes) {
        return envelopes.stream().map(PbftEnvelope::message).filter(type::isInstance).map(type::cast).toList();
    }

    @Test
    void modesHaveCliNamesAndUnknownOnesAreRefusedListingThem() {
        assertEquals("silent, equivocating-leader, forged-macs, wrong-digests, replays, lying-view-change, "
                + "wrong-checkpoints, foreign-empties, slow-leader, wrong-replies", ByzantineMode.names());
        assertEquals(ByzantineMode.SLOW_LEADER, ByzantineMode.fromCliName("slow-leader"));
        for (ByzantineMode m : ByzantineMode.values()) {
            assertEquals(m, ByzantineMode.fromCliName(m.cliName()));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByzantineMode.fromCliName("evil"));
        assertEquals("unknown Byzantine mode 'evil'; the modes are silent, equivocating-leader, forged-macs, wrong-digests,"
                + " replays, lying-view-change, wrong-checkpoints, foreign-empties, slow-leader, wrong-replies", e.getMessage());
    }

    @Test
    void silentSendsNothingAndWrongRepliesLeavesEnvelopesAlone() {
        List<PbftEnvelope> in = traffic(10);
        assertEquals(List.of(), run(ByzantineMode.SILENT, in, SEED).sent);
        List<PbftEnvelope> same = run(ByzantineMode.WRONG_REPLIES, in, SEED).sent;
        assertEquals(in.size(), same.size());
        for (int i = 0; i < in.size(); i++) {
            assertEquals(in.get(i).message(), same.get(i).message());
            assertArrayEquals(in.get(i).mac(), same.get(i).mac());
        }
    }

    @Test
    void aDormantNetworkPassesEverythingUnchangedUntilWokenThenActsInItsMode() {
        List<PbftEnvelope> in = traffic(10);
        Wire wire = new Wire();
        ByzantinePillarNetwork net = new ByzantinePillarNetwork(wire, BYZANTINE, ByzantineMode.FORGED_MACS, CONFIG,
                TICK_NANOS, OWN, SEED, true);
        assertFalse(net.awake());
        for (PbftEnvelope e : in) {
            assertTrue(net.send(e));
        }
        assertEquals(in.stream().map(PbftEnvelope::message).toList(), wire.sent.stream().map(PbftEnvelope::message).toList());
        assertTrue(wire.sent.stream().allMatch(ByzantinePillarNetworkTest::verifies), "a dormant replica MACs correctly");
        assertEquals(0, net.changed() + net.withheld() + net.added());

        net.wake();
        net.wake(); // idempotent
        assertTrue(net.awake());
        wire.sent.clear();
        for (PbftEnvelope e : in) {
            net.send(e);
        }
        assertTrue(net.changed() > 0, net.toString());
        assertTrue(wire.sent.stream().anyMatch(e -> !verifies(e)), "awake, it forges MACs: " + wire.sent);
    }

    @Test
    void otherSendersPassUnchanged() {
        PbftEnvelope foreign = PbftEnvelope.seal(2, 1, 0, new Prepare(0, 2, new byte[32], 2), ALL);
        Wire wire = new Wire();
        new ByzantinePillarNetwork(wire, BYZANTINE, ByzantineMode.SILENT, CONFIG, TICK_NANOS, OWN, SEED).send(foreign);
        assertEquals(List.of(foreign.message()), wire.sent.stream().map(PbftEnvelope::message).toList());
    }

    @Test
    void anEquivocatingLeaderPrePreparesDifferentValuesAtDifferentReplicas() {
        List<PbftEnvelope> out = run(ByzantineMode.EQUIVOCATING_LEADER, traffic(12), SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies), "re-MACed as itself");
        int split = 0;
        for (int i = 1; i < 12; i++) {
            long seq = 2L * i + 2;
            Set<String> values = new HashSet<>();
            int receivers = 0;
            for (PbftEnvelope e : out) {
                if (e.message() instanceof PrePrepare pp && pp.seq() == seq) {
                    values.add(Arrays.toString(pp.digest()));
                    receivers++;
                    assertTrue(pp.digestMatches(), "an equivocation is well formed: " + pp);
                }
            }
            assertEquals(2, receivers, "seq " + seq + ": one of the three gets no PRE-PREPARE");
            split += values.size() == 2 ? 1 : 0;
        }
        assertEquals(11, split, "every instance after the first has two values");
        assertEquals(of(Prepare.class, traffic(12)), of(Prepare.class, out), "only PRE-PREPAREs change");
    }

    @Test
    void forgedMacsFailAtTheReceiverAndClientMacsAreGarbage() {
        List<PbftEnvelope> out = run(ByzantineMode.FORGED_MACS, traffic(20), SEED).sent;
        long bad = out.stream().filter(e -> !verifies(e)).count();
        assertTrue(bad > 10, bad + " envelopes with a bad MAC");
        assertTrue(out.stream().anyMatch(e -> e.mac().length == 0), "an empty MAC");
        long badClient = out.stream().filter(ByzantinePillarNetworkTest::verifies).map(PbftEnvelope::message)
                .map(m -> m instanceof Request q ? q : m instanceof PrePrepare pp ? pp.request() : null)
                .filter(q -> q != null && !q.verifiedFor(1, ALL) && !q.verifiedFor(2, ALL) && !q.verifiedFor(3, ALL)).count();
        assertTrue(badClient > 5, badClient + " requests with garbage client MACs");
    }

    @Test
    void wrongDigestsMatchNoRequestButAreMacedAsItself() {
        List<PbftEnvelope> out = run(ByzantineMode.WRONG_DIGESTS, traffic(20), SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies));
        Set<String> real = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            real.add(Arrays.toString(request(i % 8, i + 1).digest()));
        }
        assertTrue(of(Prepare.class, out).stream().anyMatch(p -> !real.contains(Arrays.toString(p.digest()))));
        assertTrue(of(Commit.class, out).stream().anyMatch(c -> !real.contains(Arrays.toString(c.digest()))));
        assertTrue(of(PrePrepare.class, out).stream().anyMatch(pp -> !pp.digestMatches()), "a digest not of its request");
        assertTrue(of(PrePrepare.class, out).stream().anyMatch(pp -> pp.digestMatches() && pp.request() != null
                && !pp.request().verifiedFor(1, ALL) && !pp.request().verifiedFor(2, ALL)), "a changed payload");
    }

    @Test
    void replaysResendOldEnvelopesAndForgeSendersInsideMessages() {
        List<PbftEnvelope> in = traffic(20);
        List<PbftEnvelope> out = run(ByzantineMode.REPLAYS, in, SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies));
        assertTrue(out.size() > in.size() + 50, "replays added: " + (out.size() - in.size()));
        assertTrue(of(Prepare.class, out).stream().anyMatch(p -> p.replica() != BYZANTINE), "a PREPARE claiming another sender");
        assertTrue(of(Commit.class, out).stream().anyMatch(c -> c.replica() != BYZANTINE), "a COMMIT claiming another sender");
    }

    @Test
    void everyViewChangeLies() {
        List<PbftEnvelope> out = run(ByzantineMode.LYING_VIEW_CHANGE, traffic(200), SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies));
        List<ViewChange> vcs = of(ViewChange.class, out);
        assertTrue(vcs.size() > 3, "unprompted VIEW-CHANGEs too: " + vcs.size());
        ViewChange honest = ViewChange.signed(0, 1, 0, List.of(), List.of(), List.of(), BYZANTINE, OWN);
        for (ViewChange vc : vcs) {
            assertFalse(vc.equals(honest), "the honest VIEW-CHANGE was sent");
            assertTrue(!vc.prepared().isEmpty() || !vc.stableProof().isEmpty(), "carries a lie: " + vc);
        }
        assertTrue(vcs.stream().anyMatch(vc -> !vc.signatureValid(0, ALL)), "a made-up own signature");
        assertTrue(vcs.stream().anyMatch(vc -> vc.signatureValid(0, ALL)), "signed lies");
    }

    @Test
    void wrongCheckpointsAreConsistentSignedLiesPlusUnpromptedOnes() {
        List<PbftEnvelope> out = run(ByzantineMode.WRONG_CHECKPOINTS, traffic(40), SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies));
        List<Checkpoint> cps = of(Checkpoint.class, out);
        List<Checkpoint> at16 = cps.stream().filter(c -> c.seq() == 16).toList();
        assertTrue(at16.size() >= 3);
        for (Checkpoint c : at16) {
            if (c.signatureValid(ALL)) {
                assertArrayEquals(Adversary.wrongDigest(16), c.stateDigest(), "the same wrong digest to all");
            }
        }
        assertTrue(cps.stream().anyMatch(c -> c.seq() > CONFIG.watermarkWindow()), "far-future");
        assertTrue(cps.stream().anyMatch(c -> c.seq() % CONFIG.checkpointInterval() != 0), "not at a checkpoint");
        assertTrue(cps.stream().anyMatch(c -> !c.signatureValid(ALL)), "a made-up signature");
    }

    @Test
    void foreignEmptiesAreForInstancesItDoesNotLeadOrOfAnotherPillar() {
        List<PbftEnvelope> in = traffic(40);
        List<PbftEnvelope> out = run(ByzantineMode.FOREIGN_EMPTIES, in, SEED).sent;
        assertTrue(out.stream().allMatch(ByzantinePillarNetworkTest::verifies));
        List<PbftEnvelope> empties = out.stream().filter(e -> e.message() instanceof PrePrepare pp && pp.isEmpty()).toList();
        assertTrue(empties.size() > 5, empties.size() + " EMPTY pre-prepares");
        for (PbftEnvelope e : empties) {
            PrePrepare pp = (PrePrepare) e.message();
            assertTrue(CONFIG.pillarOf(pp.seq()) != e.pillar() || CONFIG.leader(pp.seq(), pp.view()) != BYZANTINE, pp.toString());
        }
        assertTrue(empties.stream().anyMatch(e -> CONFIG.pillarOf(((PrePrepare) e.message()).seq()) != e.pillar()));
    }

    static List<PbftEnvelope> prePrepares(List<PbftEnvelope> envelopes) {
        return envelopes.stream().filter(e -> e.message() instanceof PrePrepare).toList();
    }

    static List<PbftEnvelope> allBut(List<PbftEnvelope> envelopes) {
        return envelopes.stream().filter(e -> !(e.message() instanceof PrePrepare)).toList();
    }

    static void assertSameEnvelopes(List<PbftEnvelope> expected, List<PbftEnvelope> actual, String what) {
        assertEquals(expected.size(), actual.size(), what);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(EnvelopeCodec.encode(expected.get(i)), EnvelopeCodec.encode(actual.get(i)), what + " #" + i);
        }
    }

    @Test
    void aSlowLeaderHoldsEachPrePrepareJustUnderTheTimeoutAndReleasesThemInOrder() {
        long delay = ByzantinePillarNetwork.slowLeaderDelayNanos(CONFIG, TICK_NANOS);
        assertEquals(1_800_000_000L, delay, "0.9 of the 2 s request timeout");
        List<PbftEnvelope> first = traffic(5);
        List<PbftEnvelope> later = traffic(10).subList(60, 120); // instances 5..9 (12 envelopes each)
        Wire wire = new Wire();
        ManualScheduler scheduler = new ManualScheduler();
        ByzantinePillarNetwork net = network(wire, ByzantineMode.SLOW_LEADER, SEED, scheduler);
        for (PbftEnvelope e : first) {
            assertTrue(net.send(e));
        }
        assertSameEnvelopes(allBut(first), wire.sent, "everything but the PRE-PREPAREs goes out at once");
        assertEquals(15, net.delayed());
        scheduler.advanceTo(1_000_000_000L);
        for (PbftEnvelope e : later) {
            assertTrue(net.send(e));
        }
        assertSameEnvelopes(allBut(first), wire.sent.subList(0, allBut(first).size()), "before");
        assertSameEnvelopes(allBut(later), wire.sent.subList(allBut(first).size(), wire.sent.size()), "later, at once");
        assertEquals(30, scheduler.pending());
        assertTrue(scheduler.delays.stream().allMatch(d -> d == delay), "every one held for the delay: " + scheduler.delays);

        int before = wire.sent.size();
        scheduler.advanceTo(delay - 1);
        assertEquals(before, wire.sent.size(), "nothing released before the delay");
        scheduler.advanceTo(delay);
        assertSameEnvelopes(prePrepares(first), wire.sent.subList(before, wire.sent.size()), "the first ones, in order");
        scheduler.advanceTo(1_000_000_000L + delay - 1);
        assertEquals(before + 15, wire.sent.size(), "the later ones are held for their own delay");
        scheduler.advanceTo(1_000_000_000L + delay);
        assertSameEnvelopes(prePrepares(later), wire.sent.subList(before + 15, wire.sent.size()), "the later ones, in order");
        assertTrue(wire.sent.stream().allMatch(ByzantinePillarNetworkTest::verifies), "sent unchanged, MACs and all");
        assertEquals(0, net.changed() + net.withheld() + net.added());
    }

    @Test
    void aSlowLeaderHoldsAtMostLOverNpPerPillarAndSendsTheRestAtOnce() {
        int bound = ByzantinePillarNetwork.slowLeaderBound(CONFIG);
        assertEquals(32, bound, "L / Np = 64 / 2");
        List<PbftEnvelope> in = traffic(20); // 60 PRE-PREPARE envelopes, all of pillar 0
        Wire wire = new Wire();
        ManualScheduler scheduler = new ManualScheduler();
        ByzantinePillarNetwork net = network(wire, ByzantineMode.SLOW_LEADER, SEED, scheduler);
        List<PbftEnvelope> atOnce = new ArrayList<>();
        int heldSoFar = 0;
        for (PbftEnvelope e : in) {
            assertTrue(net.send(e));
            if (!(e.message() instanceof PrePrepare)) {
                atOnce.add(e);
            } else if (heldSoFar < bound) {
                heldSoFar++;
            } else {
                atOnce.add(e);
            }
        }
        assertEquals(bound, net.delayed());
        assertEquals(bound, scheduler.pending());
        assertSameEnvelopes(atOnce, wire.sent, "past the bound, PRE-PREPAREs go out at once");
        // Pillar 1 has a bound of its own.
        PbftEnvelope other = PbftEnvelope.seal(BYZANTINE, 1, 1, PrePrepare.empty(0, 1), OWN);
        assertTrue(net.send(other));
        assertEquals(bound + 1, net.delayed());
        scheduler.advanceTo(Long.MAX_VALUE);
        assertEquals(in.size() + 1, wire.sent.size());
        assertSameEnvelopes(prePrepares(in).subList(0, bound), prePrepares(wire.sent).subList(60 - bound, 60),
                "the held ones, in order, after those sent at once");
    }

    @Test
    void closingASlowLeaderStopsItsTimerAndDropsWhatItHolds() {
        Wire wire = new Wire();
        ManualScheduler scheduler = new ManualScheduler();
        ByzantinePillarNetwork net = network(wire, ByzantineMode.SLOW_LEADER, SEED, scheduler);
        List<PbftEnvelope> in = traffic(3);
        in.forEach(net::send);
        net.close();
        assertTrue(scheduler.closed);
        scheduler.advanceTo(Long.MAX_VALUE);
        assertSameEnvelopes(allBut(in), wire.sent, "held PRE-PREPAREs are dropped");
        net.send(in.get(1)); // a PRE-PREPARE after close goes to the delegate, which drops it when closed itself
        assertEquals(allBut(in).size() + 1, wire.sent.size());
        new ByzantinePillarNetwork(wire, BYZANTINE, ByzantineMode.SLOW_LEADER, CONFIG, TICK_NANOS, OWN, SEED).close();
    }

    /** The real timer: held PRE-PREPAREs go out, in order, on the network's own named daemon thread. */
    @Test
    void aSlowLeaderSendsWhatItHeldOnItsOwnDaemonThread() throws InterruptedException {
        List<PbftEnvelope> in = traffic(4);
        List<PbftEnvelope> held = prePrepares(in);
        java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(held.size());
        List<PbftEnvelope> late = java.util.Collections.synchronizedList(new ArrayList<>());
        Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Wire wire = new Wire() {
            @Override
            public boolean send(PbftEnvelope envelope) {
                if (envelope.message() instanceof PrePrepare) {
                    Thread t = Thread.currentThread();
                    threads.add(t.getName() + (t.isDaemon() ? " (daemon)" : ""));
                    late.add(envelope);
                    released.countDown();
                    return true;
                }
                return super.send(envelope);
            }
        };
        // A 1 µs tick: the delay is 180 µs, so the test waits for the releases, not for a clock.
        try (ByzantinePillarNetwork net = new ByzantinePillarNetwork(wire, BYZANTINE, ByzantineMode.SLOW_LEADER, CONFIG,
                1_000L, OWN, SEED)) {
            for (PbftEnvelope e : in) {
                assertTrue(net.send(e));
            }
            assertSameEnvelopes(allBut(in), wire.sent, "everything else at once, on the caller");
            assertTrue(released.await(30, java.util.concurrent.TimeUnit.SECONDS), "released " + late.size() + " of " + held.size());
            assertEquals(Set.of("psmr-pbft-slow-leader-replica-0 (daemon)"), threads);
            assertSameEnvelopes(held, List.copyOf(late), "in the order held");
            assertEquals(held.size(), net.delayed());
        }
    }

    @Test
    void theSameSeedGivesTheSameLies() {
        for (ByzantineMode m : ByzantineMode.values()) {
            List<PbftEnvelope> a = run(m, traffic(20), SEED).sent;
            List<PbftEnvelope> b = run(m, traffic(20), SEED).sent;
            assertEquals(a.size(), b.size(), m.cliName());
            for (int i = 0; i < a.size(); i++) {
                assertArrayEquals(EnvelopeCodec.encode(a.get(i)), EnvelopeCodec.encode(b.get(i)), m.cliName() + " #" + i);
            }
        }
    }
}
