package io.psmr.ordering.protocol.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SimulatedNetworkTest {

    /** A message: from, to, and a number to tell copies apart. */
    private record Msg(int from, int to, int n) {
    }

    private static SimulatedNetwork<Msg> network(long seed) {
        return new SimulatedNetwork<>(new Random(seed), Msg::from, Msg::to);
    }

    private static List<String> run(long seed) {
        SimulatedNetwork<Msg> net = network(seed);
        net.lossRate(0.2);
        net.duplicateRate(0.2);
        net.maxDelay(4);
        List<String> log = new ArrayList<>();
        for (long now = 0; now < 50; now++) {
            for (Msg m : net.due(now)) {
                log.add(now + ":" + m);
            }
            net.transmit(new Msg(0, 1, (int) now), now);
        }
        return log;
    }

    @Test
    void theSameSeedGivesTheSameSchedule() {
        long seed = System.nanoTime();
        assertEquals(run(seed), run(seed), "seed " + seed);
    }

    @Test
    void aPerfectNetworkDeliversEverythingOnceInOrderAfterOneTick() {
        SimulatedNetwork<Msg> net = network(1);
        net.transmit(new Msg(0, 1, 1), 0);
        net.transmit(new Msg(1, 0, 2), 0);
        assertEquals(List.of(), net.due(0));
        assertEquals(List.of(new Msg(0, 1, 1), new Msg(1, 0, 2)), net.due(1));
        assertEquals(2, net.sent());
    }

    @Test
    void delaysStayWithinTheBoundAndReorder() {
        long seed = System.nanoTime();
        SimulatedNetwork<Msg> net = network(seed);
        net.maxDelay(3);
        for (int i = 0; i < 100; i++) {
            net.transmit(new Msg(0, 1, i), 10);
        }
        assertEquals(List.of(), net.due(10), "seed " + seed);
        int seen = 0;
        for (long now = 11; now <= 13; now++) {
            seen += net.due(now).size();
        }
        assertEquals(100, seen, "every message within 3 ticks, seed " + seed);
    }

    @Test
    void crashedNodesNeitherSendNorReceive() {
        SimulatedNetwork<Msg> net = network(1);
        net.transmit(new Msg(0, 1, 1), 0);
        net.crash(1);
        net.transmit(new Msg(1, 0, 2), 0);
        assertEquals(List.of(), net.due(1), "due to a crashed node: lost; from it: never sent");
        net.transmit(new Msg(0, 1, 3), 1);
        assertTrue(net.recover(1));
        net.dropInFlightTo(1);
        assertEquals(List.of(), net.due(2), "dropped in flight");
        assertEquals(3, net.sent());
    }

    @Test
    void lossAndDuplicationFollowTheirRates() {
        long seed = System.nanoTime();
        SimulatedNetwork<Msg> net = network(seed);
        net.lossRate(0.5);
        net.duplicateRate(0.5);
        for (int i = 0; i < 10_000; i++) {
            net.transmit(new Msg(0, 1, i), 0);
        }
        int arrived = net.due(1).size();
        // Each message arrives 0 (p 0.5), 1 (0.25) or 2 (0.25) times: 7,500 expected.
        assertTrue(arrived > 7_000 && arrived < 8_000, "arrived " + arrived + ", seed " + seed + ", " + net.describe());
        net.heal();
        net.transmit(new Msg(0, 1, -1), 1);
        assertEquals(List.of(new Msg(0, 1, -1)), net.due(2));
    }
}
