package io.psmr.ordering.pbft;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * A seeded, single-threaded network of envelopes: it loses, duplicates, delays and (through random
 * delays) reorders them, and drops everything to or from a crashed replica. The same seed gives the
 * same schedule. Byzantine behaviours can hook in by overriding {@link #transmit}.
 */
class PbftNetwork {

    private record InTransit(long at, long order, PbftEnvelope envelope) {
    }

    final Random random;
    double lossRate;
    double duplicateRate;
    int maxDelay = 1;
    long sent;
    final Set<Integer> crashed = new TreeSet<>();
    private long order;
    private final PriorityQueue<InTransit> queue = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));

    PbftNetwork(Random random) {
        this.random = random;
    }

    /** Puts an envelope on the wire at time {@code now}. */
    void transmit(PbftEnvelope e, long now) {
        sent++;
        if (crashed.contains(e.from()) || random.nextDouble() < lossRate) {
            return;
        }
        int copies = random.nextDouble() < duplicateRate ? 2 : 1;
        for (int c = 0; c < copies; c++) {
            queue.add(new InTransit(now + 1 + random.nextInt(maxDelay), order++, e));
        }
    }

    /** Removes and returns every envelope due at {@code now}, except those to crashed replicas. */
    List<PbftEnvelope> due(long now) {
        List<PbftEnvelope> out = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().at <= now) {
            PbftEnvelope e = queue.poll().envelope;
            if (!crashed.contains(e.to())) {
                out.add(e);
            }
        }
        return out;
    }

    /**
     * Loses every envelope still in flight to {@code replica}: what a crashed process had not yet
     * received is gone, even if it comes back before the envelope would have arrived.
     */
    void dropInFlightTo(int replica) {
        queue.removeIf(t -> t.envelope.to() == replica);
    }

    /** Called at the start of every cluster tick; Byzantine networks act on their own here. */
    void tick(long now) {
    }

    /** Stops losing and duplicating. */
    void heal() {
        lossRate = 0;
        duplicateRate = 0;
    }
}
