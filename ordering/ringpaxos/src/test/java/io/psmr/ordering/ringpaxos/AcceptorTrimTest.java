package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** An acceptor trims to the minimum report over the learners it counts: live ones, and not stuck ones when full. */
class AcceptorTrimTest {

    private static final int SILENCE = 20;
    // 3 acceptors, learners 10 and 11, window 8, log capacity 32, report every 5 ticks.
    private static final RingPaxosConfig CONFIG = new RingPaxosConfig(List.of(0, 1, 2), List.of(10, 11), List.of(20),
            8, 32, 64, 16, 4, 2, 10, 8, 20, 4, 16, 5, SILENCE);

    private static void decide(AcceptorNode a, long from, long to) {
        for (long i = from; i <= to; i++) {
            a.step(new Message.Decision(1, 0, i, new Value(new ProposalId(20, i), new byte[] {1}), Ballot.ZERO));
        }
    }

    private static void report(AcceptorNode a, int learner, long upTo) {
        a.step(new Message.Delivered(learner, 0, upTo));
    }

    private static void ticks(AcceptorNode a, int n) {
        for (int i = 0; i < n; i++) {
            a.tick();
        }
        Cores.drain(a);
    }

    @Test
    void aSilentLearnerIsLeftOutAndCountedAgainWhenItReports() {
        AcceptorNode a = new AcceptorNode(CONFIG, 0, new AcceptorStorage(CONFIG.logCapacity()));
        decide(a, 1, 20);
        report(a, 10, 15);
        assertEquals(0, a.storage().trimmedTo(), "learner 11 was never heard from yet: it may be alive at 0");
        assertEquals(Optional.of(new AcceptorNode.TrimBlocker(11, 0, 0, 0, 20, false)), a.trimBlocker());
        report(a, 11, 5);
        assertEquals(5, a.storage().trimmedTo());
        // Learner 11 falls silent; learner 10 goes on reporting.
        for (int t = 0; t < SILENCE + 5; t++) {
            a.tick();
            if (t % 5 == 0) {
                report(a, 10, 15);
            }
        }
        assertEquals(15, a.storage().trimmedTo(), "the silent learner no longer holds the trim point");
        decide(a, 21, 25);
        report(a, 11, 12); // back, behind the trim point: counted again, so nothing more is trimmed
        report(a, 10, 25);
        assertEquals(15, a.storage().trimmedTo());
        assertEquals("11 12", a.trimBlocker().map(b -> b.learner() + " " + b.reported()).orElse("none"));
        report(a, 11, 22);
        assertEquals(22, a.storage().trimmedTo());
    }

    @Test
    void withNoLiveLearnerNothingIsTrimmed() {
        AcceptorNode a = new AcceptorNode(CONFIG, 0, new AcceptorStorage(CONFIG.logCapacity()));
        decide(a, 1, 30);
        ticks(a, SILENCE + 1);
        report(a, 10, 10);
        report(a, 11, 12);
        assertEquals(10, a.storage().trimmedTo());
        ticks(a, SILENCE + 5);
        decide(a, 31, 40);
        ticks(a, 10);
        assertEquals(10, a.storage().trimmedTo());
        assertEquals(Optional.of(new AcceptorNode.TrimBlocker(-1, 10, 0, 10, 40, true)), a.trimBlocker());
    }

    @Test
    void aStuckLearnerIsLeftOutOnlyWhileTheLogIsFull() {
        AcceptorNode a = new AcceptorNode(CONFIG, 0, new AcceptorStorage(CONFIG.logCapacity()));
        decide(a, 1, 20);
        // Learner 10 keeps reporting 5 (alive, stuck); 11 goes on. Not full (20 − 5 ≤ 32 − 8): 10 holds the trim.
        for (int t = 0; t < 3 * SILENCE; t++) {
            a.tick();
            if (t % 5 == 0) {
                report(a, 10, 5);
                report(a, 11, 20);
            }
        }
        assertEquals(5, a.storage().trimmedTo());
        decide(a, 21, 30); // now full: 30 − 5 > 24
        assertEquals("11 20 true", a.trimBlocker().map(b -> b.learner() + " " + b.reported() + " " + b.logFull()).orElse("none"),
                "10 is left out: the holder is 11");
        report(a, 11, 30);
        assertEquals(30, a.storage().trimmedTo(), "the stuck learner no longer holds the trim point");
    }
}
