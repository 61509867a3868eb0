package io.psmr.ordering.pbft.byzantine;

import static io.psmr.ordering.pbft.byzantine.ByzantinePillarNetworkTest.BYZANTINE;
import static io.psmr.ordering.pbft.byzantine.ByzantinePillarNetworkTest.CONFIG;
import static io.psmr.ordering.pbft.byzantine.ByzantinePillarNetworkTest.OWN;
import static io.psmr.ordering.pbft.byzantine.ByzantinePillarNetworkTest.SEED;
import static io.psmr.ordering.pbft.byzantine.ByzantinePillarNetworkTest.traffic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.psmr.ordering.pbft.EnvelopeCodec;
import io.psmr.ordering.pbft.PbftEnvelope;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Adversary} on its own, as both of its drivers use it: the ticks it is given decide when held envelopes are due,
 * it claims no other sender, and the same seed and inputs give the same output.
 */
class AdversaryTest {

    static Adversary adversary(ByzantineBehaviour behaviour, long seed) {
        return new Adversary(behaviour, BYZANTINE, CONFIG, OWN, new Random(seed));
    }

    /** Every envelope that goes on the wire for {@code in}, sent at tick {@code tick}, in order (held ones last). */
    static List<PbftEnvelope> wire(Adversary a, List<PbftEnvelope> in, long tick) {
        List<PbftEnvelope> out = new ArrayList<>();
        for (PbftEnvelope e : in) {
            Adversary.Outgoing o = a.send(e, tick);
            out.addAll(o.now());
            o.held().forEach(h -> out.add(h.envelope()));
        }
        return out;
    }

    @Test
    void aSlowLeaderHoldsEachPrePrepareUntilTheGivenTickPlusTheDelayAndPassesTheRest() {
        Adversary a = adversary(ByzantineBehaviour.SLOW_LEADER, SEED);
        assertEquals(180, Adversary.slowLeaderDelayTicks(CONFIG), "0.9 of 200 ticks");
        for (PbftEnvelope e : traffic(3)) {
            Adversary.Outgoing o = a.send(e, 1_000);
            if (e.message() instanceof PrePrepare) {
                assertEquals(List.of(), o.now());
                assertEquals(List.of(new Adversary.Held(e, 1_180)), o.held());
            } else {
                assertEquals(List.of(e), o.now());
                assertEquals(List.of(), o.held());
            }
            assertFalse(o.changed() || o.withheld() || o.added() > 0);
        }
    }

    @Test
    void everyBehaviourSendsAsItselfOnly() {
        for (ByzantineBehaviour b : ByzantineBehaviour.values()) {
            for (PbftEnvelope e : wire(adversary(b, SEED), traffic(40), 0)) {
                assertEquals(BYZANTINE, e.from(), b + ": " + e);
            }
        }
    }

    @Test
    void theSameSeedAndInputsGiveTheSameOutput() {
        for (ByzantineBehaviour b : ByzantineBehaviour.values()) {
            List<PbftEnvelope> x = wire(adversary(b, SEED), traffic(20), 5);
            List<PbftEnvelope> y = wire(adversary(b, SEED), traffic(20), 5);
            assertEquals(x.size(), y.size(), b.name());
            for (int i = 0; i < x.size(); i++) {
                assertArrayEquals(EnvelopeCodec.encode(x.get(i)), EnvelopeCodec.encode(y.get(i)), b + " #" + i);
            }
        }
    }

    @Test
    void anAdversaryIsNeverAmongTheReplicasItTakesForCorrect() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Adversary(
                ByzantineBehaviour.SILENT, 0, List.of(0, 1, 2), CONFIG, OWN, new Random(1)));
        assertEquals("correct replicas [0, 1, 2] must be some others than 0", e.getMessage());
    }
}
