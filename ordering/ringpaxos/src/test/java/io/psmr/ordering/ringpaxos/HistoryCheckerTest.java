package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The checker must be able to fail: each property is shown broken on a hand-made history. */
class HistoryCheckerTest {

    private static final Value A = new Value(new ProposalId(20, 1), new byte[] {1});
    private static final Value B = new Value(new ProposalId(20, 2), new byte[] {2});
    private static final Value C = new Value(new ProposalId(21, 1), new byte[] {3});

    private static Map<ProposalId, byte[]> proposed(Value... values) {
        Map<ProposalId, byte[]> m = new LinkedHashMap<>();
        for (Value v : values) {
            m.put(v.id(), v.data());
        }
        return m;
    }

    private static Output.Delivery d(long instance, Value v) {
        return new Output.Delivery(instance, v);
    }

    private static Map<Integer, List<Output.Delivery>> histories(List<Output.Delivery> first, List<Output.Delivery> second) {
        Map<Integer, List<Output.Delivery>> m = new TreeMap<>();
        m.put(10, first);
        m.put(11, second);
        return m;
    }

    private static void assertViolation(String kind, List<String> violations) {
        assertTrue(violations.stream().anyMatch(v -> v.startsWith(kind)), "expected " + kind + " in " + violations);
    }

    @Test
    void acceptsCorrectHistories() {
        var h = histories(List.of(d(1, A), d(3, B), d(4, C)), List.of(d(1, A), d(3, B)));
        assertEquals(List.of(), HistoryChecker.violations(h, proposed(A, B, C), false));
    }

    @Test
    void catchesDivergentInstance() {
        var h = histories(List.of(d(1, A), d(2, B)), List.of(d(1, A), d(2, C)));
        List<String> v = HistoryChecker.violations(h, proposed(A, B, C), false);
        assertViolation("agreement", v);
        assertViolation("total order", v);
    }

    @Test
    void catchesUnproposedAndDuplicateValues() {
        Value forged = new Value(A.id(), new byte[] {9});
        assertViolation("integrity", HistoryChecker.violations(histories(List.of(d(1, forged)), List.of()),
                proposed(A), false));
        assertViolation("integrity", HistoryChecker.violations(histories(List.of(d(1, A), d(2, A)), List.of()),
                proposed(A), false));
    }

    @Test
    void catchesReorderingWithoutConflictingInstances() {
        var h = histories(List.of(d(1, A), d(3, B)), List.of(d(2, B), d(3, B)));
        assertViolation("total order", HistoryChecker.violations(h, proposed(A, B), false));
    }

    @Test
    void catchesLostProposals() {
        var h = histories(List.of(d(1, A)), List.of(d(1, A)));
        assertViolation("liveness", HistoryChecker.violations(h, proposed(A, B), true));
    }

    /**
     * End to end: acceptors that forget their votes on restart (storage not durable) break Paxos,
     * and the simulation plus checker must notice on some seed.
     */
    @Test
    void catchesAmnesiacAcceptors() {
        for (long seed = 1; seed <= 2_000; seed++) {
            Random random = new Random(seed);
            SimulatedCluster c = new SimulatedCluster(RingPaxosSimulationTest.smallConfig(3, 2, 2), random);
            c.amnesia = true;
            c.network.maxDelay(4);
            c.network.lossRate(0.05);
            for (int t = 0; t < 300; t++) {
                c.propose(20);
                c.propose(21);
                if (random.nextDouble() < 0.05 && c.liveAcceptors().size() > 1) {
                    List<Integer> up = new ArrayList<>(c.liveAcceptors());
                    c.crash(up.get(random.nextInt(up.size())));
                }
                if (random.nextDouble() < 0.1 && !c.down().isEmpty()) {
                    c.restart(c.down().first());
                }
                c.tick();
            }
            c.heal();
            c.run(300);
            if (!HistoryChecker.violations(c.delivered, c.proposed, false).isEmpty()) {
                System.out.println("amnesiac acceptors caught at seed " + seed);
                return;
            }
        }
        throw new AssertionError("2,000 seeds of amnesiac acceptors showed no violation: the checker is blind");
    }
}
