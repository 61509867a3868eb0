package io.psmr.ordering.pbft.byzantine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.Authenticator;
import io.psmr.ordering.pbft.DeliverySink;
import io.psmr.ordering.pbft.HmacAuthenticator;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.ordering.pbft.LoopbackNetwork;
import io.psmr.ordering.pbft.PbftConfig;
import io.psmr.ordering.pbft.PbftKeys;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftPillar;
import io.psmr.ordering.pbft.PbftReplicaNode;
import io.psmr.ordering.pbft.PbftCore;
import io.psmr.ordering.pbft.PillarNetwork;
import io.psmr.ordering.pbft.PillarSnapshot;
import io.psmr.ordering.pbft.Refusal;
import io.psmr.ordering.pbft.RequestId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Four {@link PbftReplicaNode}s of two pillars over a {@link LoopbackNetwork} (real HMACs on encoded frames), replica 0
 * made Byzantine by a {@link ByzantinePillarNetwork} holding only its own keys, FIXED leaders so that it leads every
 * instance of view 0: the three correct replicas still deliver one and the same sequence of every submitted request.
 */
class ByzantineLoopbackClusterTest {

    static final long SEED = Long.getLong("psmr.seed", 20261123L);
    static final PbftConfig CONFIG = new PbftConfig(1, 2, 16, 64, 300, 9_600, 0, 20, LeaderRotation.FIXED, 1 << 16, 10_000);
    static final PbftReplicaNode.Settings SETTINGS = new PbftReplicaNode.Settings(1, 1_000_000L, 1024, 4096, 1024);
    static final List<Integer> CORRECT = List.of(1, 2, 3);
    static final int PER_CLIENT = 15;

    /** What one replica delivered, in order. */
    static final class Recorder implements DeliverySink {
        private final List<RequestId> ids = new ArrayList<>();

        @Override
        public synchronized boolean deliver(long instance, Request request) {
            ids.add(request.id());
            return true;
        }

        synchronized List<RequestId> ids() {
            return List.copyOf(ids);
        }
    }

    @Test
    void anEquivocatingLeaderIsVotedOutAndTheCorrectReplicasOrderIdentically() {
        run(ByzantineMode.EQUIVOCATING_LEADER, true);
    }

    /**
     * Every other envelope mode, replica 0 leading view 0: agreement holds (the correct replicas' sequences are prefixes
     * of one another), and at least 2f correct replicas deliver every request. A liar that leads can keep one correct
     * replica out of every quorum (forged client MACs to it only); without state transfer that replica fail-stops at the
     * next stable checkpoint, which is allowed here.
     */
    @ParameterizedTest
    @EnumSource(value = ByzantineMode.class, names = {"SILENT", "FORGED_MACS", "WRONG_DIGESTS", "REPLAYS",
            "LYING_VIEW_CHANGE", "WRONG_CHECKPOINTS", "FOREIGN_EMPTIES", "SLOW_LEADER"})
    void theCorrectReplicasOrderIdenticallyWhateverTheByzantineOneSends(ByzantineMode mode) {
        run(mode, false);
    }

    /** Refusals at correct replicas that show the attack arrived (within {@link ByzantineBehaviour#refusedAs}). */
    static List<Refusal> refusedAs(ByzantineMode mode) {
        return switch (mode) {
            case EQUIVOCATING_LEADER -> List.of(Refusal.CONFLICTING_PRE_PREPARE, Refusal.WRONG_VIEW);
            case FORGED_MACS -> List.of(Refusal.BAD_MAC, Refusal.BAD_REQUEST_AUTH);
            case WRONG_DIGESTS -> List.of(Refusal.DIGEST_MISMATCH, Refusal.EQUIVOCATION, Refusal.BAD_REQUEST_AUTH);
            case REPLAYS -> List.of(Refusal.FORGED_SENDER);
            case LYING_VIEW_CHANGE -> List.of(Refusal.BAD_VIEW_CHANGE, Refusal.BAD_SIGNATURE);
            case WRONG_CHECKPOINTS -> List.of(Refusal.CHECKPOINT_MISMATCH, Refusal.BAD_CHECKPOINT, Refusal.BAD_SIGNATURE);
            case FOREIGN_EMPTIES -> List.of(Refusal.WRONG_LEADER, Refusal.WRONG_PILLAR);
            default -> List.of();
        };
    }

    private static void run(ByzantineMode mode, boolean viewChangeExpected) {
        boolean allFinish = viewChangeExpected;
        String context = mode.cliName() + ", seed " + SEED;
        int n = CONFIG.replicaCount();
        PbftKeys keys = PbftKeys.forTesting(SEED, n, n * CONFIG.pillars());
        LoopbackNetwork network = new LoopbackNetwork(n, CONFIG.pillars(), 4096, 1024);
        List<PbftReplicaNode> nodes = new ArrayList<>();
        List<Recorder> sinks = new ArrayList<>();
        ByzantinePillarNetwork byzantine = null;
        try {
            for (int r = 0; r < n; r++) {
                Authenticator auth = new HmacAuthenticator(keys.restrictedTo(r));
                PillarNetwork net = network;
                if (r == 0) {
                    byzantine = new ByzantinePillarNetwork(network, 0, mode, CONFIG, SETTINGS.tickNanos(), auth, SEED);
                    net = byzantine;
                }
                List<PbftCore> cores = new ArrayList<>();
                for (int p = 0; p < CONFIG.pillars(); p++) {
                    cores.add(new PbftPillar(CONFIG, r, p, auth));
                }
                Recorder sink = new Recorder();
                sinks.add(sink);
                nodes.add(new PbftReplicaNode(r, CONFIG, cores, net, sink, SETTINGS, System::nanoTime));
            }
            nodes.forEach(PbftReplicaNode::start);
            Authenticator clients = new HmacAuthenticator(keys);
            int submitted = 0;
            for (int number = 1; number <= PER_CLIENT; number++) {
                for (int r : CORRECT) {
                    for (int p = 0; p < CONFIG.pillars(); p++) {
                        Request q = Request.sign(r * CONFIG.pillars() + p, number,
                                ("op " + r + "/" + p + "/" + number).getBytes(StandardCharsets.UTF_8), clients, n);
                        assertTrue(network.submit(r, p, q), "request inbox full");
                        submitted++;
                    }
                }
            }
            // Wait until enough correct replicas delivered every request: all of them where all must finish, else 2f.
            // The third may stay behind: a liar can keep one correct replica out of every quorum, and without state
            // transfer it fail-stops only at the next stable checkpoint, which needs more requests than this test sends.
            // Once a correct replica has fail-stopped, the liar and it are f + 1 = 2 faults of 4: PBFT no longer promises
            // progress (CI once saw the two others stall at 80 and 87 of 90 for 30 s), only agreement, checked below.
            int need = allFinish ? CORRECT.size() : CORRECT.size() - 1;
            long deadline = System.nanoTime() + 30_000_000_000L;
            List<Integer> complete = new ArrayList<>();
            while (true) {
                complete.clear();
                boolean correctOneStopped = false;
                for (int r : CORRECT) {
                    if (sinks.get(r).ids().size() >= submitted && nodes.get(r).failure().isEmpty()) {
                        complete.add(r);
                    }
                    correctOneStopped |= nodes.get(r).failure().isPresent();
                }
                if (complete.size() >= need || (correctOneStopped && !allFinish)) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    StringBuilder progress = new StringBuilder();
                    for (int r : CORRECT) {
                        progress.append("replica ").append(r).append(" delivered ").append(sinks.get(r).ids().size())
                                .append(" of ").append(submitted).append(nodes.get(r).failure().map(f -> " and failed: " + f)
                                        .orElse("")).append(", ").append(nodes.get(r).pillars()).append("; ");
                    }
                    throw new AssertionError("fewer than " + need + " correct replicas delivered every request within 30 s: "
                            + progress + byzantine + ", " + context);
                }
                LockSupport.parkNanos(5_000_000L);
            }
            for (int r : CORRECT) {
                int replica = r;
                nodes.get(r).failure().ifPresent(f -> {
                    // Without state transfer, a correct replica the liar kept out of a quorum fail-stops once the others'
                    // checkpoint is stable: allowed (it stops, it does not diverge), except where all must finish.
                    assertTrue(!allFinish && String.valueOf(f.getMessage()).contains("state transfer is needed"),
                            "replica " + replica + " failed: " + f + ", " + context);
                    System.out.println("ByzantineLoopbackClusterTest: " + context + ": replica " + replica
                            + " fell behind and fail-stopped: " + f.getMessage());
                });
            }
            // The longest sequence is the reference: every correct replica's must be a prefix of it, each request once.
            // Snapshots taken once: replicas that are still running may deliver more meanwhile.
            java.util.Map<Integer, List<RequestId>> delivered = new java.util.TreeMap<>();
            List<RequestId> reference = List.of();
            for (int r : CORRECT) {
                delivered.put(r, sinks.get(r).ids());
                if (delivered.get(r).size() > reference.size()) {
                    reference = delivered.get(r);
                }
            }
            assertEquals(reference.size(), new HashSet<>(reference).size(), "each request once, " + context);
            if (!complete.isEmpty()) {
                assertEquals(submitted, reference.size(), "a complete replica delivered every request, " + context);
            }
            for (int r : CORRECT) {
                List<RequestId> got = delivered.get(r);
                assertEquals(reference.subList(0, got.size()), got, "replica " + r + " delivered another sequence, " + context);
            }
            if (viewChangeExpected) {
                long refused = 0;
                for (int r : CORRECT) {
                    for (PillarSnapshot s : nodes.get(r).pillars()) {
                        assertTrue(s.view() >= 1, "replica " + r + " pillar " + s.pillar() + " left view 0: " + s + ", " + context);
                        refused += s.refusals().getOrDefault(Refusal.CONFLICTING_PRE_PREPARE, 0L);
                    }
                }
                System.out.println("ByzantineLoopbackClusterTest: " + byzantine + ", conflicting pre-prepares refused " + refused);
            }
            assertTrue(byzantine.changed() + byzantine.withheld() + byzantine.added() + byzantine.delayed() > 0,
                    "the adversary acted, " + context);
            java.util.Map<Refusal, Long> refusals = new java.util.TreeMap<>();
            for (int r : CORRECT) {
                for (PillarSnapshot s : nodes.get(r).pillars()) {
                    s.refusals().forEach((k, v) -> refusals.merge(k, v, Long::sum));
                }
            }
            System.out.println("ByzantineLoopbackClusterTest: " + context + ": " + byzantine + ", refusals at correct replicas "
                    + refusals);
            List<Refusal> expected = refusedAs(mode);
            assertTrue(expected.isEmpty() || expected.stream().anyMatch(k -> refusals.getOrDefault(k, 0L) > 0),
                    "the attack reached the correct replicas and was refused as one of " + expected + ": " + refusals + ", " + context);
        } finally {
            nodes.forEach(PbftReplicaNode::close);
            if (byzantine != null) {
                byzantine.close();
            }
        }
    }
}
