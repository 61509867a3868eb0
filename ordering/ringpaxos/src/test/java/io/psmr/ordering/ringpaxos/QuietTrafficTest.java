package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An idle cluster sends learners only what is new, and keepalives {@link RingPaxosConfig#quietTicks()} apart; acceptors
 * still heartbeat each other every {@link RingPaxosConfig#heartbeatTicks()} for the failure detector.
 */
class QuietTrafficTest {

    // 3 acceptors, learners 10 and 11, heartbeat every 2 ticks, report every 5, learner silence 300: quiet 50 ticks.
    private static final RingPaxosConfig CONFIG = RingPaxosConfig.of(List.of(0, 1, 2), List.of(10, 11), List.of(20));

    /** A message a core sent, and the tick it sent it at. */
    private record Sent(int tick, Message message) {
    }

    /** Ticks {@code core} at ticks {@code from} to {@code from + n - 1} and returns what it sent. */
    private static List<Sent> tick(RingPaxosCore core, int from, int n) {
        List<Sent> sent = new ArrayList<>();
        for (int t = from; t < from + n; t++) {
            core.tick();
            for (Message m : Cores.drain(core).messages()) {
                sent.add(new Sent(t, m));
            }
        }
        return sent;
    }

    /** The ticks at which a message of {@code kind} went to {@code to}. */
    private static List<Integer> ticksOf(List<Sent> sent, Class<? extends Message> kind, int to) {
        return sent.stream().filter(s -> kind.isInstance(s.message()) && s.message().to() == to).map(Sent::tick).toList();
    }

    @Test
    void quietTicksIsAThirdOfTheLearnerSilenceBoundedByFiftyAndTheReportInterval() {
        assertEquals(50, CONFIG.quietTicks());
        assertEquals(20, CONFIG.withLearnerSilenceTicks(60).quietTicks());
        assertEquals(5, CONFIG.withLearnerSilenceTicks(6).quietTicks());
    }

    @Test
    void anIdleAcceptorHeartbeatsLearnersOnlyWithNewsOrAfterQuietTicks() {
        AcceptorNode a = new AcceptorNode(CONFIG, 1, new AcceptorStorage(CONFIG.logCapacity()));
        List<Sent> sent = tick(a, 1, 200);
        assertEquals(100, ticksOf(sent, Message.Heartbeat.class, 0).size(), "acceptors: every 2 ticks");
        assertEquals(List.of(2, 52, 102, 152), ticksOf(sent, Message.Heartbeat.class, 10), "learner 10: the first, then quiet");
        assertEquals(ticksOf(sent, Message.Heartbeat.class, 10), ticksOf(sent, Message.Heartbeat.class, 11));

        // A decision is news: learners hear of it at the next heartbeat tick, then quiet again.
        a.step(new Message.Decision(0, 1, 1, new Value(new ProposalId(20, 1), new byte[] {1}), Ballot.ZERO));
        Cores.drain(a);
        sent = tick(a, 201, 100);
        assertEquals(List.of(202, 252), ticksOf(sent, Message.Heartbeat.class, 10));
    }

    @Test
    void anIdleLearnerReportsAnUnchangedSafeInstanceAtMostQuietTicksApart() {
        Learner l = new Learner(CONFIG, 10);
        List<Sent> sent = tick(l, 1, 200);
        assertEquals(List.of(5, 55, 105, 155), ticksOf(sent, Message.Delivered.class, 0));
        assertEquals(ticksOf(sent, Message.Delivered.class, 0), ticksOf(sent, Message.Delivered.class, 2));

        // A delivery advances the safe instance: reported at the next report tick.
        l.step(new Message.Decision(0, 10, 1, new Value(new ProposalId(20, 1), new byte[] {1}), Ballot.ZERO));
        Cores.drain(l);
        sent = tick(l, 201, 100);
        assertEquals(List.of(205, 255), ticksOf(sent, Message.Delivered.class, 1));
    }
}
