package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.protocol.sim.SimulatedNetwork;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Unit tests of one pillar and of small reliable clusters. */
class PbftPillarTest {

    private static final PbftConfig ONE_PILLAR = new PbftConfig(1, 1, 4, 8, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64);
    private static final PbftKeys KEYS = PbftKeys.forTesting(7, 4, 4);
    private static final Authenticator HMAC = new HmacAuthenticator(KEYS);

    private static PbftCluster reliable(PbftConfig config) {
        SimulatedNetwork<PbftEnvelope> net = PbftCluster.network(new Random(1));
        return new PbftCluster(config, HMAC, net);
    }

    private static Request request(long client, long number) {
        return Request.sign(client, number, new byte[] {(byte) client, (byte) number}, HMAC, 4);
    }

    private static void runUntil(PbftCluster c, int limit, java.util.function.BooleanSupplier done) {
        for (int t = 0; t < limit && !done.getAsBoolean(); t++) {
            c.tick();
        }
        assertTrue(done.getAsBoolean(), "not done after " + limit + " ticks");
    }

    @Test
    void normalCaseOrdersRequestsInOneViewWithHmac() {
        PbftCluster c = reliable(ONE_PILLAR);
        for (int i = 1; i <= 3; i++) {
            assertTrue(c.submit(request(0, i), 2)); // at a backup: forwarded to the primary
        }
        runUntil(c, 50, c::allDone);
        for (PbftCluster.Replica r : c.replicas) {
            assertEquals(3, r.executedUpTo);
            assertEquals(0, r.pillars[0].view());
            assertEquals(java.util.Map.of(), r.pillars[0].refusals());
        }
        assertEquals(List.of(1L, 2L, 3L), List.of(c.orderedAt.get(new RequestId(0, 1)), c.orderedAt.get(new RequestId(0, 2)),
                c.orderedAt.get(new RequestId(0, 3))));
        // An already ordered request number is refused, not ordered again.
        assertFalse(c.submit(request(0, 2), 1));
        assertEquals(1, c.replicas[1].pillars[0].refusals(Refusal.DUPLICATE_REQUEST));
    }

    @Test
    void checkpointsCollectGarbageAndBoundTheWindow() {
        PbftCluster c = reliable(ONE_PILLAR);
        for (int i = 1; i <= 30; i++) {
            c.submit(request(i % 4, i), 0);
        }
        runUntil(c, 500, c::allDone);
        for (int t = 0; t < 5; t++) {
            c.tick(); // the last CHECKPOINT messages arrive
        }
        for (PbftCluster.Replica r : c.replicas) {
            PbftPillar p = r.pillars[0];
            assertEquals(28, p.lowWatermark(), "replica " + r.id);
            assertTrue(p.logSize() <= 2, "log holds " + p.logSize());
        }
        // A pre-prepare beyond h + L is refused.
        PbftPillar backup = c.replicas[1].pillars[0];
        Request r = request(1, 99);
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 28 + 9, r.digest(), r), HMAC));
        assertEquals(1, backup.refusals(Refusal.OUTSIDE_WATERMARKS));
    }

    @Test
    void aCheckpointNeedsTwoFPlusOneMatchingDigests() {
        PbftPillar p = new PbftPillar(ONE_PILLAR, 0, 0, HMAC);
        byte[] good = new byte[] {1};
        byte[] bad = new byte[] {2};
        p.checkpointDigest(4, good);
        p.step(PbftEnvelope.seal(1, 0, 0, Checkpoint.signed(4, bad, 1, HMAC), HMAC));
        p.step(PbftEnvelope.seal(2, 0, 0, Checkpoint.signed(4, bad, 2, HMAC), HMAC));
        assertEquals(0, p.lowWatermark(), "two matching votes are not enough");
        p.step(PbftEnvelope.seal(3, 0, 0, Checkpoint.signed(4, good, 3, HMAC), HMAC));
        assertEquals(0, p.lowWatermark());
        p.step(PbftEnvelope.seal(2, 0, 0, Checkpoint.signed(4, good, 2, HMAC), HMAC)); // replica 2 equivocates
        assertEquals(1, p.refusals(Refusal.EQUIVOCATION));
        assertEquals(0, p.lowWatermark());
        // A stable-checkpoint announcement without 2f+1 matching votes is refused.
        p.stableCheckpoint(new PillarOutput.StableCheckpoint(4, good, List.of(Checkpoint.signed(4, good, 0, HMAC), Checkpoint.signed(4, good, 3, HMAC))));
        assertEquals(1, p.refusals(Refusal.BAD_CHECKPOINT));
        assertEquals(0, p.lowWatermark());
        // Nor one of 2f+1 whose third CHECKPOINT's signature is made up (formerly accepted: a forged proof).
        Checkpoint forged = new Checkpoint(4, good, 1, Checkpoint.signed(4, good, 3, HMAC).signature());
        p.stableCheckpoint(new PillarOutput.StableCheckpoint(4, good, List.of(Checkpoint.signed(4, good, 0, HMAC),
                forged, Checkpoint.signed(4, good, 3, HMAC))));
        assertEquals(2, p.refusals(Refusal.BAD_CHECKPOINT));
        assertEquals(0, p.lowWatermark());
        // A vote whose signature does not verify is refused and not counted.
        p.step(PbftEnvelope.seal(1, 0, 0, forged, HMAC));
        assertEquals(1, p.refusals(Refusal.BAD_SIGNATURE));
        assertEquals(0, p.lowWatermark());
        p.step(PbftEnvelope.seal(1, 0, 0, Checkpoint.signed(5, good, 1, HMAC), HMAC));
        assertEquals(3, p.refusals(Refusal.BAD_CHECKPOINT), "5 is not a multiple of K");
        // A holder restricted to replica 0's private key cannot sign as replica 1.
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Checkpoint.signed(4, good, 1, new HmacAuthenticator(KEYS.restrictedTo(0))));
        assertEquals("no signing key for replica 1 (this holder may sign as [0])", e.getMessage());
        // ... but verifies everyone's signatures.
        assertTrue(Checkpoint.signed(4, good, 1, HMAC).signatureValid(new HmacAuthenticator(KEYS.restrictedTo(0))));
    }

    @Test
    void byzantineNormalCaseInputsAreRefused() {
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 1, 0, HMAC);
        Request r = request(1, 1);
        PbftEnvelope forged = PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, r.digest(), r), HMAC);
        backup.step(new PbftEnvelope(0, 1, 0, forged.message(), new byte[32]));
        assertEquals(1, backup.refusals(Refusal.BAD_MAC));
        // From a non-leader, while nothing is pre-prepared here: perhaps an early relay, dropped unrefused.
        backup.step(PbftEnvelope.seal(2, 1, 0, new PrePrepare(0, 1, r.digest(), r), HMAC));
        assertEquals(java.util.Map.of(Refusal.BAD_MAC, 1L), backup.refusals());
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, new byte[32], r), HMAC));
        assertEquals(1, backup.refusals(Refusal.DIGEST_MISMATCH));
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(3, 1, r.digest(), r), HMAC));
        assertEquals(1, backup.refusals(Refusal.WRONG_VIEW));
        Request unsigned = new Request(1, 2, new byte[] {9}, List.of(new byte[32], new byte[32], new byte[32], new byte[32]));
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, unsigned.digest(), unsigned), HMAC));
        assertEquals(1, backup.refusals(Refusal.BAD_REQUEST_AUTH));
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, r.digest(), r), HMAC));
        Request other = request(2, 1);
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, other.digest(), other), HMAC));
        assertEquals(1, backup.refusals(Refusal.CONFLICTING_PRE_PREPARE));
        // From a non-leader, another value than the one pre-prepared here, prepared by no non-leader.
        backup.step(PbftEnvelope.seal(2, 1, 0, new PrePrepare(0, 1, other.digest(), other), HMAC));
        assertEquals(1, backup.refusals(Refusal.WRONG_LEADER));
        backup.step(PbftEnvelope.seal(2, 1, 0, new Prepare(0, 1, r.digest(), 3), HMAC));
        assertEquals(1, backup.refusals(Refusal.FORGED_SENDER));
        // With two pillars, an EMPTY pre-prepare for the other pillar's number is refused.
        PbftConfig two = new PbftConfig(1, 2, 4, 8, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64);
        PbftPillar p1 = new PbftPillar(two, 1, 1, HMAC);
        p1.step(PbftEnvelope.seal(0, 1, 1, PrePrepare.empty(0, 2), HMAC));
        assertEquals(1, p1.refusals(Refusal.WRONG_PILLAR));
        assertTrue(drain(p1).messages().isEmpty(), "a refused pre-prepare is not answered");
    }

    @Test
    void aSilentPrimaryIsReplacedByAViewChange() {
        PbftCluster c = reliable(ONE_PILLAR);
        c.crash(0); // the primary of view 0
        c.submit(request(1, 1), 1);
        c.submit(request(2, 1), 2);
        runUntil(c, 400, c::allDone);
        for (PbftCluster.Replica r : c.live()) {
            assertEquals(1, r.pillars[0].view(), "replica " + r.id);
            assertFalse(r.pillars[0].isChangingView());
        }
    }

    /**
     * A view change doubles the timeouts at once; a clean view brings them down one step per
     * {@link PbftPillar#TIMEOUT_DECAY_TICKS}, not at its first commits, so that a machine too loaded for the base
     * timeout does not change views over and over. Each replica also says why it left the view.
     */
    @Test
    void aViewChangeRaisesTheTimeoutsWhichComeDownSlowlyInACleanView() {
        PbftCluster c = reliable(ONE_PILLAR);
        c.crash(0); // the primary of view 0
        c.submit(request(1, 1), 1);
        runUntil(c, 400, c::allDone);
        for (PbftCluster.Replica r : c.live()) {
            PbftPillar p = r.pillars[0];
            assertEquals(1, p.view(), "replica " + r.id);
            assertEquals(1, p.timeoutLevel(), "replica " + r.id);
            assertTrue(p.leftBecause().isPresent(), "replica " + r.id + " says why it left view 0");
        }
        long viewInstalled = c.now;
        long number = 2;
        while (c.now < viewInstalled + PbftPillar.TIMEOUT_DECAY_TICKS - 100) { // commits, but not for long enough
            c.submit(request(1, number++), 1);
            runUntil(c, 400, c::allDone);
        }
        for (PbftCluster.Replica r : c.live()) {
            assertEquals(1, r.pillars[0].timeoutLevel(), "replica " + r.id + " before the decay period");
        }
        while (c.now < viewInstalled + PbftPillar.TIMEOUT_DECAY_TICKS + 100) {
            c.submit(request(1, number++), 1);
            runUntil(c, 400, c::allDone);
        }
        for (PbftCluster.Replica r : c.live()) {
            assertEquals(1, r.pillars[0].view(), "replica " + r.id);
            assertEquals(0, r.pillars[0].timeoutLevel(), "replica " + r.id + " after a clean decay period");
        }
        assertEquals(List.of(), c.violations);
    }

    /**
     * The propose timeout counts against a leader only once a leader pre-prepared a fresh instance in the view: before
     * that, every leader may still be installing the view (checking its NEW-VIEW's signed VIEW-CHANGEs), so a silent
     * first leader is left at the request timeout (40 ticks here, against a propose timeout of 4). Replica 1 leads
     * instance 1 of view 0 and is crashed: the others leave view 0 on the request timeout. Replica 2 leads instance 2
     * and is crashed: replica 1 pre-prepared instance 1 first, so they leave it on the propose timeout, as slow.
     */
    @Test
    void theProposeTimeoutCountsOnlyOnceALeaderProposedInTheView() {
        PbftConfig config = new PbftConfig(1, 1, 4, 8, 40, 320, 2, 10, LeaderRotation.ROTATING, 64, 64)
                .withLeaderSelection(LeaderSelection.BLACKLIST, 4, 64);
        assertEquals(1, config.leader(1, 0));
        assertEquals(2, config.leader(2, 0));
        for (int crashed = 1; crashed <= 2; crashed++) {
            PbftCluster c = reliable(config);
            c.crash(crashed);
            c.submit(request(1, 1), 3);
            c.submit(request(1, 2), 3);
            // Why each live replica left view 0, taken as it leaves (later views may fail in turn: view 1's
            // primary is replica 1).
            Map<Integer, ViewChangeCause> leftViewZero = new TreeMap<>();
            runUntil(c, 2000, () -> {
                for (PbftCluster.Replica r : c.live()) {
                    r.pillars[0].leftBecause().ifPresent(cause -> leftViewZero.putIfAbsent(r.id, cause));
                }
                return leftViewZero.size() == c.live().size();
            });
            ViewChangeCause own = crashed == 1 ? ViewChangeCause.REQUEST_TIMEOUT : ViewChangeCause.SLOW_LEADER;
            assertEquals(3, leftViewZero.size(), "every live replica left view 0: " + leftViewZero);
            assertTrue(leftViewZero.values().stream().allMatch(cause -> cause == own
                    || cause == ViewChangeCause.OTHERS_COMPLAINED) && leftViewZero.containsValue(own),
                    "with replica " + crashed + " crashed, view 0 is left on " + own + ": " + leftViewZero);
            runUntil(c, 4000, c::allDone);
            assertTrue(c.allDone(), "both requests ordered after the view change");
            assertEquals(List.of(), c.violations);
        }
    }

    @Test
    void rotatingLeadersSurviveACrashedReplicaWithTwoPillars() {
        PbftConfig config = new PbftConfig(1, 2, 4, 8, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64);
        PbftCluster c = reliable(config);
        c.crash(3);
        for (int i = 1; i <= 12; i++) {
            c.submit(request(i % 4, i), i % 3);
        }
        runUntil(c, 3000, c::allDone);
        assertEquals(List.of(), c.violations);
    }

    /**
     * Blacklisting: with replica 3 crashed, each pillar changes views once, excludes 3 (all four VIEW-CHANGEs'
     * suspect), and orders the rest without it; rotating over all replicas keeps changing views at 3's turns.
     */
    @Test
    void aCrashedLeaderCostsOneViewChangePerPillarUnderBlacklisting() {
        PbftConfig all = new PbftConfig(1, 2, 16, 64, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64)
                .withLeaderSelection(LeaderSelection.ALL_REPLICAS, 4, 64);
        PbftConfig blacklist = all.withLeaderSelection(LeaderSelection.BLACKLIST, 4, 64);
        assertEquals(List.of(1L, 1L), viewsAfterACrash(blacklist));
        List<Long> rotating = viewsAfterACrash(all);
        assertTrue(rotating.get(0) >= 3 && rotating.get(1) >= 3, "views without blacklisting: " + rotating);
    }

    /**
     * A readmitted leader that fails again costs one view change, not two: the next view's primary is chosen past
     * those the current view's agreed policy keeps out, so replica 2, crashed, never becomes the target primary.
     */
    @Test
    void aViewChangeSkipsAPrimaryThePolicyKeepsOut() {
        PbftConfig config = new PbftConfig(1, 1, 16, 64, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64)
                .withLeaderSelection(LeaderSelection.BLACKLIST, 4, 8);
        PbftCluster c = reliable(config);
        c.crash(2);
        java.util.Set<Long> targets = new java.util.TreeSet<>();
        for (int number = 1; number <= 12; number++) {
            for (int client = 0; client < 4; client++) {
                c.submit(request(client, number), client % 2);
            }
            for (int t = 0; t < 20_000 && !c.allDone(); t++) {
                c.tick();
                for (int r : new int[] {0, 1, 3}) {
                    targets.add(c.replicas[r].pillars[0].viewChangeTarget());
                }
            }
            assertTrue(c.allDone(), "requests of number " + number + " not done; view targets " + targets);
        }
        assertEquals(List.of(), c.violations);
        assertTrue(c.replicas[0].pillars[0].view() >= 3, "replica 2 was readmitted and failed again: " + targets);
        for (long v : targets) {
            assertTrue(config.primary(v) != 2, "view " + v + " (primary 2, kept out) was a target: " + targets);
        }
    }

    /**
     * Replica 0 comes back while the others are in view 1, whose primary then crashed: nobody can send it view 1's
     * NEW-VIEW. The others are seen in view 1, so its view-change timer runs; its VIEW-CHANGE for view 2 is the
     * complaint that brings them along, and the four order again.
     */
    @Test
    void aReplicaJoiningAViewWhosePrimaryCrashedMovesOnWithTheOthers() {
        PbftConfig config = new PbftConfig(1, 1, 16, 64, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64)
                .withLeaderSelection(LeaderSelection.ALL_REPLICAS, 4, 64);
        PbftCluster c = reliable(config);
        orderWithReplica0CrashedIntoView1(c);
        c.crash(1);
        c.recover(0);
        for (int client = 0; client < 3; client++) {
            c.submit(request(client, 2), new int[] {0, 2, 3}[client]);
        }
        runUntil(c, 20_000, c::allDone);
        assertEquals(List.of(), c.violations);
        for (int r : new int[] {0, 2, 3}) {
            assertEquals(2, c.replicas[r].pillars[0].view(), "replica " + r);
        }
    }

    /**
     * Replica 0 comes back while the others work in view 1, joins it and asks for its NEW-VIEW; the NEW-VIEWs to it
     * are lost for 30 ticks, longer than its view-change timeout (20). It asks once more instead of going on alone to
     * view 2, which the others, with nothing to complain of, would never join: it enters view 1 and executes.
     */
    @Test
    void aReplicaThatMissedTheNewViewOfAViewTheOthersWorkInAsksOnceMoreInsteadOfGoingOnAlone() {
        PbftCluster c = reliable(ONE_PILLAR);
        orderWithReplica0CrashedIntoView1(c);
        long back = c.now;
        c.network.loseIf(e -> e.to() == 0 && e.message() instanceof PbftMessage.NewView && c.now < back + 30);
        c.recover(0);
        for (int client = 0; client < 3; client++) {
            c.submit(request(client, 2), 1 + client); // the others order; replica 0 sees them work in view 1
        }
        PbftPillar rejoining = c.replicas[0].pillars[0];
        runUntil(c, 2_000, () -> c.allDone() && rejoining.view() == 1 && !rejoining.isChangingView());
        assertEquals(List.of(), c.violations);
        for (int r = 1; r < 4; r++) {
            assertEquals(1, c.replicas[r].pillars[0].view(), "replica " + r);
        }
    }

    /** Crashes replica 0 (the primary of view 0) and orders one request of clients 0..2: the others go to view 1. */
    private static void orderWithReplica0CrashedIntoView1(PbftCluster c) {
        c.crash(0);
        for (int client = 0; client < 3; client++) {
            c.submit(request(client, 1), 1 + client);
        }
        runUntil(c, 5_000, c::allDone);
        for (int r = 1; r <= 3; r++) {
            assertEquals(1, c.replicas[r].pillars[0].view(), "replica " + r);
        }
    }

    /** Orders 40 requests with replica 3 crashed; returns replica 0's view per pillar (every live replica agrees). */
    private static List<Long> viewsAfterACrash(PbftConfig config) {
        PbftCluster c = reliable(config);
        c.crash(3);
        for (int number = 1; number <= 10; number++) { // each client's numbers in order: one request each at a time
            for (int client = 0; client < 4; client++) {
                c.submit(request(client, number), client % 3);
            }
            runUntil(c, 20_000, c::allDone);
        }
        assertEquals(List.of(), c.violations);
        for (int r = 0; r < 3; r++) {
            for (int p = 0; p < 2; p++) {
                assertEquals(c.replicas[0].pillars[p].view(), c.replicas[r].pillars[p].view(), "replica " + r + " pillar " + p);
                if (config.leaderSelection() == LeaderSelection.BLACKLIST) {
                    assertTrue(c.replicas[r].pillars[p].leaders().excluded(3, 40, config),
                            "replica 3 excluded at replica " + r + " pillar " + p + ": " + c.replicas[r].pillars[p].leaders());
                }
            }
        }
        return List.of(c.replicas[0].pillars[0].view(), c.replicas[0].pillars[1].view());
    }

    private static ViewChange viewChange(long newView, List<PrePrepare> prepared, List<PrePrepared> prePrepared, int replica) {
        return ViewChange.signed(0, newView, 0, List.of(), prepared, prePrepared, replica, HMAC);
    }

    /** Every choice of a NEW-VIEW must be allowed by rule A or B against its signed VIEW-CHANGEs. */
    @Test
    void newViewIsVerifiedAgainstItsViewChanges() {
        Request r = request(1, 1);
        PrePrepare pp = new PrePrepare(0, 1, r.digest(), r);
        PrePrepared q = new PrePrepared(1, 0, r.digest());
        List<ViewChange> vcs = List.of(
                viewChange(1, List.of(pp), List.of(q), 1),
                viewChange(1, List.of(), List.of(q), 2),
                viewChange(1, List.of(), List.of(), 3));
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 2, 0, HMAC);
        // EMPTY where a VIEW-CHANGE reports the request prepared and f+1 pre-prepared it: neither A nor B allows it.
        backup.step(PbftEnvelope.seal(1, 2, 0, new NewView(1, vcs, List.of(PrePrepare.empty(1, 1)), 1), HMAC));
        assertEquals(1, backup.refusals(Refusal.BAD_NEW_VIEW));
        assertEquals(0, backup.view());
        // From a replica that is not the primary of view 1: refused.
        backup.step(PbftEnvelope.seal(3, 2, 0, new NewView(1, vcs, List.of(new PrePrepare(1, 1, r.digest(), r)), 3), HMAC));
        assertEquals(2, backup.refusals(Refusal.BAD_NEW_VIEW));
        // Only two view changes: refused.
        backup.step(PbftEnvelope.seal(1, 2, 0, new NewView(1, vcs.subList(0, 2), List.of(new PrePrepare(1, 1, r.digest(), r)), 1), HMAC));
        assertEquals(3, backup.refusals(Refusal.BAD_NEW_VIEW));
        // One VIEW-CHANGE altered after signing (its P entry dropped): refused.
        ViewChange altered = new ViewChange(1, 0, List.of(), List.of(), List.of(q), 1, vcs.get(0).signature());
        backup.step(PbftEnvelope.seal(1, 2, 0, new NewView(1, List.of(altered, vcs.get(1), vcs.get(2)), List.of(), 1), HMAC));
        assertEquals(4, backup.refusals(Refusal.BAD_NEW_VIEW));
        // A P entry whose digest is not its request's makes a VIEW-CHANGE invalid.
        backup.step(PbftEnvelope.seal(3, 2, 0, viewChange(1, List.of(new PrePrepare(0, 1, new byte[32], r)), List.of(), 3), HMAC));
        assertEquals(1, backup.refusals(Refusal.BAD_VIEW_CHANGE));
        // The allowed NEW-VIEW is accepted: the backup enters view 1 and prepares the re-proposed request.
        backup.step(PbftEnvelope.seal(1, 2, 0, new NewView(1, vcs, List.of(new PrePrepare(1, 1, r.digest(), r)), 1), HMAC));
        assertEquals(1, backup.view());
        List<PbftEnvelope> out = drain(backup).messages();
        assertTrue(out.stream().anyMatch(e -> e.message() instanceof Prepare p && p.view() == 1 && p.seq() == 1));
        // And a commit for it from the old view is refused.
        backup.step(PbftEnvelope.seal(3, 2, 0, new Commit(0, 1, r.digest(), 3), HMAC));
        assertEquals(1, backup.refusals(Refusal.WRONG_VIEW));
    }

    /**
     * A replica can lie only about itself: replica 3 claims it prepared another request at seq 1 in view 4,
     * after r committed there in view 0. The primary of view 5 cannot decide with {1, 2, 3} (rule A needs
     * f+1 Q entries for the lie, and the lie's P entry blocks A1 for r), waits, and with replica 0's
     * VIEW-CHANGE re-proposes r; a NEW-VIEW that adopts the lie is refused.
     */
    @Test
    void aFalsePreparedClaimCannotReplaceACommittedValue() {
        Request r = request(1, 1);
        Request x = request(2, 1);
        PbftPillar primary = new PbftPillar(ONE_PILLAR, 1, 0, HMAC);
        primary.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, r.digest(), r), HMAC));
        primary.step(PbftEnvelope.seal(2, 1, 0, new Prepare(0, 1, r.digest(), 2), HMAC));
        primary.step(PbftEnvelope.seal(3, 1, 0, new Prepare(0, 1, r.digest(), 3), HMAC));
        primary.step(PbftEnvelope.seal(0, 1, 0, new Commit(0, 1, r.digest(), 0), HMAC));
        primary.step(PbftEnvelope.seal(2, 1, 0, new Commit(0, 1, r.digest(), 2), HMAC));
        assertEquals(1, drain(primary).outputs().stream().filter(o -> o instanceof PillarOutput.Committed).count(), "r committed at seq 1 in view 0");
        PrePrepare lie = new PrePrepare(4, 1, x.digest(), x);
        ViewChange liar = viewChange(5, List.of(lie), List.of(new PrePrepared(1, 4, x.digest())), 3);
        ViewChange honest2 = viewChange(5, List.of(new PrePrepare(0, 1, r.digest(), r)), List.of(new PrePrepared(1, 0, r.digest())), 2);
        primary.step(PbftEnvelope.seal(3, 1, 0, liar, HMAC));
        primary.step(PbftEnvelope.seal(2, 1, 0, honest2, HMAC));
        assertTrue(primary.isChangingView(), "f+1 replicas want view 5: it joins");
        assertTrue(drain(primary).messages().stream().noneMatch(e -> e.message() instanceof NewView), "undecidable with {1, 2, 3}");
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 2, 0, HMAC);
        ViewChange own1 = viewChange(5, List.of(new PrePrepare(0, 1, r.digest(), r)), List.of(new PrePrepared(1, 0, r.digest())), 1);
        backup.step(PbftEnvelope.seal(1, 2, 0, new NewView(5, List.of(own1, honest2, liar), List.of(new PrePrepare(5, 1, x.digest(), x)), 1), HMAC));
        assertEquals(1, backup.refusals(Refusal.BAD_NEW_VIEW), "a NEW-VIEW adopting the lie is refused");
        ViewChange honest0 = viewChange(5, List.of(new PrePrepare(0, 1, r.digest(), r)), List.of(new PrePrepared(1, 0, r.digest())), 0);
        primary.step(PbftEnvelope.seal(0, 1, 0, honest0, HMAC));
        NewView nv = drain(primary).messages().stream().map(PbftEnvelope::message).filter(m -> m instanceof NewView)
                .map(m -> (NewView) m).findFirst().orElseThrow(() -> new AssertionError("no NEW-VIEW with all four"));
        assertEquals(4, nv.viewChanges().size());
        assertEquals(List.of(new PrePrepare(5, 1, r.digest(), r)), nv.prePrepares());
        backup.step(PbftEnvelope.seal(1, 2, 0, nv, HMAC));
        assertEquals(5, backup.view());
        assertEquals(1, backup.refusals(Refusal.BAD_NEW_VIEW));
    }

    @Test
    void codecRoundTripsEveryMessage() {
        Request r = request(1, 1);
        PrePrepare pp = new PrePrepare(0, 1, r.digest(), r);
        List<Checkpoint> proof = List.of(Checkpoint.signed(4, new byte[] {1}, 0, HMAC), Checkpoint.signed(4, new byte[] {1}, 1, HMAC),
                Checkpoint.signed(4, new byte[] {1}, 2, HMAC));
        ViewChange vc = ViewChange.signed(0, 2, 4, proof, List.of(pp, PrePrepare.empty(1, 5)),
                List.of(new PrePrepared(1, 0, r.digest()), new PrePrepared(5, 1, PbftDigests.empty())), 3, HMAC);
        List<PbftMessage> all = List.of(r, pp, PrePrepare.empty(3, 5), new Prepare(1, 2, r.digest(), 3), new Commit(1, 2, r.digest(), 0),
                proof.get(0), vc, new NewView(2, List.of(vc), List.of(pp), 2), new PbftMessage.Complaint(3, 1));
        for (PbftMessage m : all) {
            byte[] bytes = PbftCodec.encode(m);
            PbftMessage back = PbftCodec.decode(bytes);
            assertArrayEquals(bytes, PbftCodec.encode(back), m.toString());
        }
        ViewChange back = (ViewChange) PbftCodec.decode(PbftCodec.encode(vc));
        assertEquals(vc, back);
        assertTrue(back.signatureValid(0, HMAC), "the signature survives the round trip");
        assertFalse(back.signatureValid(1, HMAC), "and binds the pillar");
        assertTrue(((Checkpoint) PbftCodec.decode(PbftCodec.encode(proof.get(0)))).signatureValid(HMAC));
        assertNull(((PrePrepare) PbftCodec.decode(PbftCodec.encode(PrePrepare.empty(3, 5)))).request());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PbftCodec.decode(new byte[] {42}));
        assertEquals("malformed PBFT message: unknown type tag 42", e.getMessage());
        byte[] truncated = java.util.Arrays.copyOf(PbftCodec.encode(pp), 10);
        assertEquals("malformed PBFT message: truncated", assertThrows(IllegalArgumentException.class, () -> PbftCodec.decode(truncated)).getMessage());
        byte[] vcBytes = PbftCodec.encode(vc);
        byte[] unsigned = java.util.Arrays.copyOf(vcBytes, vcBytes.length - 64 - 4);
        assertEquals("malformed PBFT message: truncated", assertThrows(IllegalArgumentException.class, () -> PbftCodec.decode(unsigned)).getMessage());
        byte[] trailing = java.util.Arrays.copyOf(vcBytes, vcBytes.length + 1);
        assertEquals("malformed PBFT message: 1 trailing bytes", assertThrows(IllegalArgumentException.class, () -> PbftCodec.decode(trailing)).getMessage());
    }

    /** Keys derived from one seed are the same every time, Ed25519 included. */
    @Test
    void testingKeysAreDeterministic() {
        PbftKeys again = PbftKeys.forTesting(7, 4, 4);
        for (int r = 0; r < 4; r++) {
            assertArrayEquals(KEYS.publicKey(r).getEncoded(), again.publicKey(r).getEncoded(), "replica " + r);
        }
        byte[] sig = Checkpoint.signed(4, new byte[] {1}, 2, new HmacAuthenticator(again)).signature();
        assertArrayEquals(Checkpoint.signed(4, new byte[] {1}, 2, HMAC).signature(), sig, "Ed25519 is deterministic");
        assertFalse(java.util.Arrays.equals(KEYS.publicKey(0).getEncoded(), PbftKeys.forTesting(8, 4, 4).publicKey(0).getEncoded()));
    }

    @Test
    void configRefusesBadValuesByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PbftConfig(1, 2, 8, 4, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64));
        assertEquals("watermarkWindow (4) must be at least checkpointInterval (8)", e.getMessage());
        PbftConfig d = PbftConfig.defaults();
        assertEquals(4, d.replicaCount());
        assertEquals(2, d.firstSeq(0));
        assertEquals(1, d.firstSeq(1));
        assertEquals(0, d.pillarOf(4));
        // Rotating leaders: instances 2,3 (block 1) led by replica 1 in view 0, by replica 2 in view 1.
        assertEquals(1, d.leader(2, 0));
        assertEquals(1, d.leader(3, 0));
        assertEquals(2, d.leader(3, 1));
    }

    @Test
    void stateTransferredRequestsNoLongerTimeOut() {
        Request r = request(1, 5);
        PbftPillar forgetful = new PbftPillar(ONE_PILLAR, 1, 0, HMAC);
        PbftPillar told = new PbftPillar(ONE_PILLAR, 1, 0, HMAC);
        assertEquals(Optional.empty(), forgetful.propose(r));
        assertEquals(Optional.empty(), told.propose(r));
        // The execution stage learned by state transfer that client 1 executed up to number 5.
        told.clientExecuted(1, 5);
        assertEquals(0, told.pendingRequests());
        for (int t = 0; t < ONE_PILLAR.requestTimeoutTicks(); t++) {
            forgetful.tick();
            told.tick();
        }
        assertTrue(drain(forgetful).messages().stream().anyMatch(e -> e.message() instanceof PbftMessage.Complaint c
                && c.newView() == 1), "a request nobody will order again times out: it complains");
        assertFalse(forgetful.isChangingView(), "a complaint alone does not leave the view");
        assertTrue(drain(told).messages().stream().noneMatch(e -> e.message() instanceof PbftMessage.Complaint));
        assertEquals(Optional.of(Refusal.DUPLICATE_REQUEST), told.propose(r));
        assertEquals(1, told.refusals(Refusal.DUPLICATE_REQUEST));
    }

    /**
     * Gap 3 closed: a replica whose timer expires alone only complains and stays in view 0, so the
     * normal case (and its retransmissions) lets it catch up; f+1 complaints make others complain
     * too and 2f+1 change the view.
     */
    @Test
    void aReplicaThatTimesOutAloneComplainsStaysAndCatchesUp() {
        boolean[] isolated = {true};
        SimulatedNetwork<PbftEnvelope> net = new SimulatedNetwork<>(new Random(1), PbftEnvelope::from, PbftEnvelope::to) {
            @Override
            public void transmit(PbftEnvelope e, long now) {
                if (!(isolated[0] && e.from() == 3)) {
                    super.transmit(e, now);
                }
            }
        };
        PbftCluster c = new PbftCluster(ONE_PILLAR, HMAC, net);
        c.submit(request(0, 1), 3); // the others never hear of it: replica 3 times out alone
        for (int t = 0; t < ONE_PILLAR.requestTimeoutTicks() + 5; t++) {
            c.tick();
        }
        PbftPillar alone = c.replicas[3].pillars[0];
        assertFalse(alone.isChangingView(), "it complained but stays in view 0");
        assertEquals(0, alone.view());
        isolated[0] = false;
        c.submit(request(0, 1), 0);
        c.submit(request(1, 1), 0);
        runUntil(c, 300, () -> c.replicas[3].executedUpTo == 2 && c.replicas[0].executedUpTo == 2);
        assertEquals(0, c.replicas[0].pillars[0].view(), "one complaint does not change the view");
        assertEquals(c.replicas[0].executionLog, c.replicas[3].executionLog);
        // One complaint changes nothing; f+1 make a replica complain too, which with its own makes 2f+1:
        // it leaves view 0.
        PbftPillar p = new PbftPillar(ONE_PILLAR, 2, 0, HMAC);
        p.step(PbftEnvelope.seal(0, 2, 0, new PbftMessage.Complaint(1, 0), HMAC));
        assertTrue(drain(p).messages().isEmpty());
        assertFalse(p.isChangingView());
        p.step(PbftEnvelope.seal(1, 2, 0, new PbftMessage.Complaint(1, 1), HMAC));
        List<PbftMessage> sent = drain(p).messages().stream().map(PbftEnvelope::message).toList();
        assertTrue(sent.stream().anyMatch(m -> m instanceof PbftMessage.Complaint k && k.replica() == 2 && k.newView() == 1));
        assertTrue(sent.stream().anyMatch(m -> m instanceof ViewChange v && v.newView() == 1));
        assertTrue(p.isChangingView());
        p.step(PbftEnvelope.seal(3, 2, 0, new PbftMessage.Complaint(1, 0), HMAC));
        assertEquals(1, p.refusals(Refusal.FORGED_SENDER));
    }

    @Test
    void aReplicaAloneInAViewChangeLearnsDecisionsFromCommits() {
        boolean[] isolated = {true};
        SimulatedNetwork<PbftEnvelope> net = new SimulatedNetwork<>(new Random(1), PbftEnvelope::from, PbftEnvelope::to) {
            @Override
            public void transmit(PbftEnvelope e, long now) {
                if (!(isolated[0] && e.from() == 3)) {
                    super.transmit(e, now);
                }
            }
        };
        PbftCluster c = new PbftCluster(ONE_PILLAR, HMAC, net);
        // Replica 3 gets a request the others never hear of (its messages are lost): it times out alone,
        // and (as if delayed complaints of 0 and 1 from an older episode arrived) sees 2f+1 complaints.
        c.submit(request(0, 1), 3);
        PbftPillar three = c.replicas[3].pillars[0];
        three.step(PbftEnvelope.seal(0, 3, 0, new PbftMessage.Complaint(1, 0), HMAC));
        three.step(PbftEnvelope.seal(1, 3, 0, new PbftMessage.Complaint(1, 1), HMAC));
        runUntil(c, 100, three::isChangingView);
        isolated[0] = false;
        // The client retransmits to replica 0; the other three order it and more in view 0.
        c.submit(request(0, 1), 0);
        c.submit(request(1, 1), 0);
        runUntil(c, 200, () -> c.replicas[0].executedUpTo == 2 && c.replicas[1].executedUpTo == 2 && c.replicas[2].executedUpTo == 2);
        runUntil(c, 200, () -> c.replicas[3].executedUpTo == 2);
        PbftPillar alone = c.replicas[3].pillars[0];
        assertTrue(alone.isChangingView(), "still waiting for view 1, which nobody else wants");
        assertEquals(0, c.replicas[0].pillars[0].view());
        assertEquals(List.of(new RequestId(0, 1), new RequestId(1, 1)), c.replicas[3].executionLog);
        assertEquals(c.replicas[0].executionLog, c.replicas[3].executionLog);
        assertTrue(c.violations.isEmpty(), c.violations.toString());
    }

    /**
     * Gap 3 closed: a faulty primary that garbage-collected (here: stays silent to replica 3, request
     * and PRE-PREPAREs included) leaves replica 3 without the pre-prepares the others prepared. It takes
     * seq 2 from 2f non-leader PREPAREs and the request it holds; seq 1 (whose request it never saw)
     * from the same PREPAREs and the pre-prepare a correct replica relays once it complains. No view
     * change; a relay without that backing is refused.
     */
    @Test
    void aLaggingReplicaTakesPrePreparesFromPreparesAndARelay() {
        SimulatedNetwork<PbftEnvelope> net = new SimulatedNetwork<>(new Random(1), PbftEnvelope::from, PbftEnvelope::to) {
            @Override
            public void transmit(PbftEnvelope e, long now) {
                if (!(e.from() == 0 && e.to() == 3)) {
                    super.transmit(e, now);
                }
            }
        };
        PbftCluster c = new PbftCluster(ONE_PILLAR, HMAC, net);
        Request first = request(0, 1);
        Request second = request(1, 1);
        c.submit(first, 0); // replica 3 never hears of it: the primary's forward to it is lost too
        runUntil(c, 50, () -> c.replicas[1].executedUpTo == 1 && c.replicas[2].executedUpTo == 1);
        c.submit(second, 3);
        runUntil(c, 50, () -> c.replicas[1].executedUpTo == 2 && c.replicas[2].executedUpTo == 2);
        PbftPillar lagging = c.replicas[3].pillars[0];
        runUntil(c, 400, () -> c.replicas[3].executedUpTo == 2);
        assertEquals(List.of(first.id(), second.id()), c.replicas[3].executionLog);
        for (PbftCluster.Replica r : c.replicas) {
            assertEquals(0, r.pillars[0].view(), "replica " + r.id + " changed views");
            assertFalse(r.pillars[0].isChangingView());
        }
        assertTrue(c.violations.isEmpty(), c.violations.toString());
        assertEquals(java.util.Map.of(), lagging.refusals());
        // A relay counts only with 2f PREPAREs from non-leaders behind its digest, and its body.
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 2, 0, HMAC);
        Request other = request(2, 1);
        backup.step(PbftEnvelope.seal(3, 2, 0, new PrePrepare(0, 1, first.digest(), other), HMAC));
        assertEquals(1, backup.refusals(Refusal.WRONG_LEADER), "a body that does not match its digest");
        backup.step(PbftEnvelope.seal(1, 2, 0, new Prepare(0, 1, first.digest(), 1), HMAC));
        backup.step(PbftEnvelope.seal(0, 2, 0, new Prepare(0, 1, first.digest(), 0), HMAC));
        backup.step(PbftEnvelope.seal(3, 2, 0, new PrePrepare(0, 1, first.digest(), first), HMAC));
        assertTrue(drain(backup).messages().isEmpty(), "one non-leader PREPARE (the leader's does not count)");
        assertEquals(1, backup.refusals(Refusal.WRONG_LEADER), "an early relay a correct replica could send: not refused");
        backup.step(PbftEnvelope.seal(3, 2, 0, new Prepare(0, 1, first.digest(), 3), HMAC));
        assertTrue(drain(backup).messages().isEmpty(), "2f PREPAREs but no body yet");
        backup.step(PbftEnvelope.seal(1, 2, 0, new PrePrepare(0, 1, first.digest(), first), HMAC));
        List<PbftMessage> sent = drain(backup).messages().stream().map(PbftEnvelope::message).toList();
        assertTrue(sent.contains(new Prepare(0, 1, first.digest(), 2)), sent.toString());
        assertTrue(sent.contains(new Commit(0, 1, first.digest(), 2)), "prepared at once: " + sent);
        backup.step(PbftEnvelope.seal(3, 2, 0, new PrePrepare(0, 1, other.digest(), other), HMAC));
        assertEquals(2, backup.refusals(Refusal.WRONG_LEADER), "another value, prepared by no non-leader");
        backup.step(PbftEnvelope.seal(3, 2, 0, new PrePrepare(0, 1, first.digest(), first), HMAC));
        assertEquals(2, backup.refusals(Refusal.WRONG_LEADER), "a relay no longer needed: dropped, not refused");
        assertEquals(java.util.Map.of(Refusal.WRONG_LEADER, 2L), backup.refusals());
    }

    /** A replica that misses only the last pre-prepare of a quiet system, and waits for nothing, gets it relayed. */
    @Test
    void aReplicaMissingOnlyAQuietTailGetsARelay() {
        SimulatedNetwork<PbftEnvelope> net = new SimulatedNetwork<>(new Random(1), PbftEnvelope::from, PbftEnvelope::to) {
            @Override
            public void transmit(PbftEnvelope e, long now) {
                if (!(e.from() == 0 && e.to() == 3)) { // the request's forward too: replica 3 waits for nothing
                    super.transmit(e, now);
                }
            }
        };
        PbftCluster c = new PbftCluster(ONE_PILLAR, HMAC, net);
        Request only = request(0, 1);
        c.submit(only, 0);
        runUntil(c, 50, () -> c.replicas[1].executedUpTo == 1 && c.replicas[2].executedUpTo == 1);
        runUntil(c, 200, () -> c.replicas[3].executedUpTo == 1);
        assertEquals(List.of(only.id()), c.replicas[3].executionLog);
        assertEquals(0, c.replicas[3].pillars[0].view());
        assertFalse(c.replicas[3].pillars[0].isComplaining(), "it caught up without complaining");
        assertTrue(c.violations.isEmpty(), c.violations.toString());
    }

    /**
     * f ≥ 2 needs it: a replica that pre-prepared another value from an equivocating leader learns the value the
     * others committed in this view from 2f+1 matching COMMITs, with the body it holds as a pending request.
     */
    @Test
    void aReplicaHoldingAnotherPrePrepareLearnsTheDecisionFromCommitsInTheView() {
        Request mine = request(1, 1);
        Request decided = request(2, 1);
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 3, 0, HMAC);
        backup.step(PbftEnvelope.seal(2, 3, 0, decided, HMAC)); // forwarded to it: pending here
        backup.step(PbftEnvelope.seal(0, 3, 0, new PrePrepare(0, 1, mine.digest(), mine), HMAC));
        drain(backup);
        for (int r = 0; r < 3; r++) {
            backup.step(PbftEnvelope.seal(r, 3, 0, new Commit(0, 1, decided.digest(), r), HMAC));
        }
        List<PillarOutput> out = drain(backup).outputs();
        assertEquals(1, out.size(), out.toString());
        PillarOutput.Committed committed = (PillarOutput.Committed) out.get(0);
        assertEquals(1, committed.seq());
        assertEquals(decided, committed.request());
        assertEquals(0, backup.pendingRequests(), "the decided request is no longer pending");
        // Two COMMITs are not a decision.
        PbftPillar other = new PbftPillar(ONE_PILLAR, 3, 0, HMAC);
        other.step(PbftEnvelope.seal(2, 3, 0, decided, HMAC));
        other.step(PbftEnvelope.seal(0, 3, 0, new PrePrepare(0, 1, mine.digest(), mine), HMAC));
        other.step(PbftEnvelope.seal(1, 3, 0, new Commit(0, 1, decided.digest(), 1), HMAC));
        other.step(PbftEnvelope.seal(2, 3, 0, new Commit(0, 1, decided.digest(), 2), HMAC));
        assertTrue(drain(other).outputs().isEmpty());
    }

    /** A pillar restarted without its log leads none of the instances it may have led before; the others move on. */
    @Test
    void aRecoveringLeaderLeadsNoneOfTheInstancesItMayHaveForgotten() {
        PbftPillar primary = new PbftPillar(ONE_PILLAR, 0, 0, HMAC);
        primary.recovering(4);
        assertEquals(4, primary.recoveringUpTo());
        primary.propose(request(1, 1));
        List<PbftMessage> sent = drain(primary).messages().stream().map(PbftEnvelope::message).toList();
        assertTrue(sent.stream().noneMatch(m -> m instanceof PrePrepare), sent.toString());
        PbftPillar fresh = new PbftPillar(ONE_PILLAR, 0, 0, HMAC);
        fresh.propose(request(1, 1));
        assertTrue(drain(fresh).messages().stream().anyMatch(e -> e.message() instanceof PrePrepare));
        // In a cluster, the others route around it: a view change, and every request is ordered.
        PbftCluster c = reliable(ONE_PILLAR);
        c.replicas[0].pillars[0].recovering(ONE_PILLAR.watermarkWindow());
        for (int i = 1; i <= 3; i++) {
            c.submit(request(i, 1), i);
        }
        runUntil(c, 2000, c::allDone);
        assertTrue(c.replicas[1].pillars[0].view() >= 1);
        assertTrue(c.violations.isEmpty(), c.violations.toString());
    }

    /**
     * Two replicas caught up by state transfer at once, more than f: abstaining in every view, each of their turns
     * costs a view change and leader selection can keep only one of them out; told the views their stale
     * incarnations entered, they lead again from the first view above those, and the requests are ordered.
     */
    @Test
    void twoRecoveringReplicasLeadAgainAfterTheFirstViewAboveTheirStaleOnes() {
        PbftConfig rotating = new PbftConfig(1, 1, 4, 8, 20, 160, 2, 10, LeaderRotation.ROTATING, 64, 64);
        PbftCluster told = reliable(rotating);
        PbftCluster untold = reliable(rotating);
        long upTo = 1000; // a stale incarnation's window lies far above what this short run orders
        for (int r = 2; r <= 3; r++) {
            told.replicas[r].pillars[0].recovering(upTo, 0);
            untold.replicas[r].pillars[0].recovering(upTo);
        }
        assertTrue(told.replicas[2].pillars[0].abstains(1));
        assertEquals(0, told.replicas[2].pillars[0].highestViewEntered());
        assertEquals(Long.MAX_VALUE, untold.replicas[2].pillars[0].highestViewEntered());
        int requests = 24;
        for (int i = 1; i <= requests; i++) {
            told.submit(request(1 + i % 3, (i + 2) / 3), 1 + i % 3);
            untold.submit(request(1 + i % 3, (i + 2) / 3), 1 + i % 3);
        }
        int ticks = 1500;
        runUntil(told, ticks, told::allDone);
        long views = told.replicas[0].pillars[0].view();
        assertTrue(views <= 2, "view changes to order " + requests + " requests: " + views);
        assertFalse(told.replicas[2].pillars[0].abstains(told.replicas[2].pillars[0].lowWatermark() + 1),
                "replica 2 still abstains in view " + told.replicas[2].pillars[0].view());
        assertTrue(told.violations.isEmpty(), told.violations.toString());
        for (int t = 0; t < ticks; t++) {
            untold.tick();
        }
        long untoldViews = untold.replicas[0].pillars[0].view();
        assertTrue(untoldViews >= 6 && untoldViews > 4 * Math.max(1, views), "abstaining in every view, two recovering"
                + " replicas should cost a view change at their turns: views " + untoldViews + ", told: " + views);
        assertTrue(untold.violations.isEmpty(), untold.violations.toString());
    }

    /**
     * n = 7 with two leaders crashed and a short backoff, so that both are readmitted and fail again over and over:
     * each such view change removes a leader already suspected before, which says nothing about the machine's
     * timing, so the timeouts stay where the first suspicions left them instead of doubling to their cap, and
     * the view changes after a readmission stay short.
     */
    @Test
    void aLeaderSuspectedAgainDoesNotRaiseTheTimeouts() {
        Authenticator hmac7 = new HmacAuthenticator(PbftKeys.forTesting(7, 7, 4));
        PbftConfig config = new PbftConfig(2, 1, 16, 64, 20, 640, 2, 10, LeaderRotation.ROTATING, 64, 64)
                .withLeaderSelection(LeaderSelection.BLACKLIST, 4, 8);
        PbftCluster c = new PbftCluster(config, hmac7, PbftCluster.network(new Random(1)));
        c.crash(2);
        c.crash(5);
        int maxLevel = 0;
        int readmittedAndSuspected = 0;
        for (int number = 1; number <= 30; number++) {
            for (int client = 0; client < 4; client++) {
                c.submit(Request.sign(client, number, new byte[] {(byte) client, (byte) number}, hmac7, 7), new int[] {0, 1, 3}[client % 3]);
            }
            for (int t = 0; t < 20_000 && !c.allDone(); t++) {
                c.tick();
                maxLevel = Math.max(maxLevel, c.replicas[0].pillars[0].timeoutLevel());
            }
            assertTrue(c.allDone(), "requests of number " + number + " not done");
        }
        PbftPillar p = c.replicas[0].pillars[0];
        assertTrue(p.view() >= 6, "the crashed leaders were readmitted and suspected again: view " + p.view());
        assertTrue(maxLevel <= 2, "timeouts doubled " + maxLevel + " times, view " + p.view());
        assertEquals(List.of(), c.violations);
    }

    @Test
    void aSuccessorJoinsTheViewItsPredecessorSawTheOthersInAtItsFirstTick() {
        Request r = request(1, 1);
        PbftPillar stale = new PbftPillar(ONE_PILLAR, 3, 0, HMAC);
        stale.step(PbftEnvelope.seal(1, 3, 0, new Prepare(2, 1, r.digest(), 1), HMAC));
        stale.step(PbftEnvelope.seal(2, 3, 0, new Prepare(3, 1, r.digest(), 2), HMAC));
        assertEquals(2, stale.viewChangeTarget(), "f+1 seen above view 0: the smaller of their views");
        assertArrayEquals(new long[] {-1, 2, 3, -1}, stale.viewsSeen());

        PbftPillar successor = new PbftPillar(ONE_PILLAR, 3, 0, HMAC);
        successor.resumeViewsSeen(stale.viewsSeen());
        assertFalse(successor.isChangingView(), "acts at its first tick, not before");
        assertTrue(drain(successor).messages().isEmpty());
        successor.tick();
        assertTrue(successor.isChangingView());
        assertEquals(2, successor.viewChangeTarget());
        List<PbftEnvelope> sent = drain(successor).messages();
        assertEquals(List.of(0, 1, 2), sent.stream().filter(e -> e.message() instanceof ViewChange v && v.newView() == 2)
                .map(PbftEnvelope::to).sorted().toList(), "a VIEW-CHANGE for view 2 to every other replica: " + sent);

        // One replica seen above view 0 is not f+1: the successor stays, as a message of it alone would leave it.
        PbftPillar alone = new PbftPillar(ONE_PILLAR, 3, 0, HMAC);
        alone.resumeViewsSeen(new long[] {-1, 5, -1, -1});
        alone.tick();
        assertFalse(alone.isChangingView());
        assertEquals(0, alone.view());
        // A seen view from another replica later completes f+1, as before.
        alone.step(PbftEnvelope.seal(0, 3, 0, new Prepare(4, 1, r.digest(), 0), HMAC));
        assertEquals(4, alone.viewChangeTarget());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PbftPillar(ONE_PILLAR, 3, 0, HMAC).resumeViewsSeen(new long[] {1, 1}));
        assertEquals("views seen of 2 replicas; the cluster has 4", e.getMessage());
    }

    @Test
    void aCommittedInstanceIsResentInRoundsOneTwoFourEightAndFourRoundsToAReplicaThatJustComplained() {
        PbftPillar backup = new PbftPillar(ONE_PILLAR, 1, 0, HMAC);
        Request r = request(1, 1);
        backup.step(PbftEnvelope.seal(0, 1, 0, new PrePrepare(0, 1, r.digest(), r), HMAC));
        for (int from : new int[] {2, 3}) {
            backup.step(PbftEnvelope.seal(from, 1, 0, new Prepare(0, 1, r.digest(), from), HMAC));
        }
        for (int from : new int[] {0, 2, 3}) {
            backup.step(PbftEnvelope.seal(from, 1, 0, new Commit(0, 1, r.digest(), from), HMAC));
        }
        assertTrue(drain(backup).outputs().stream().anyMatch(o -> o instanceof PillarOutput.Committed));
        List<String> rounds = new java.util.ArrayList<>();
        for (int round = 1; round <= 16; round++) {
            if (round == 9 || round == 13) { // replica 3 complains against view 0 (alone: no view change), then resends it
                backup.step(PbftEnvelope.seal(3, 1, 0, new PbftMessage.Complaint(1, 3), HMAC));
                drain(backup);
            }
            for (int t = 0; t < ONE_PILLAR.retransmitTicks(); t++) {
                backup.tick();
            }
            rounds.add(round + ":" + drain(backup).messages().stream()
                    .filter(e -> e.message() instanceof Prepare || e.message() instanceof Commit)
                    .map(e -> e.message().getClass().getSimpleName().charAt(0) + "" + e.to()).sorted().toList());
        }
        List<String> everyone = List.of("C0", "C2", "C3", "P0", "P2", "P3");
        assertEquals(List.of("1:" + everyone, "2:" + everyone, "3:[]", "4:" + everyone, "5:[]", "6:[]", "7:[]",
                "8:" + everyone, "9:[C3, P3]", "10:[C3, P3]", "11:[C3, P3]", "12:[C3, P3]",
                "13:[]", "14:[]", "15:[]", "16:" + everyone), rounds, "a resent complaint does not extend the catch-up");
        assertFalse(backup.isChangingView());
    }

    /** The pillar's Ready, advanced at once (the test sends nothing). */
    private static Ready<PbftEnvelope, Void, PillarOutput> drain(PbftPillar p) {
        Ready<PbftEnvelope, Void, PillarOutput> ready = p.ready();
        p.advance(ready);
        return ready;
    }
}
