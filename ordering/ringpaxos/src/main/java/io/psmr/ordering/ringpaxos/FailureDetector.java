package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;

/**
 * A heartbeat failure detector over the acceptors, in ticks. It is unreliable by nature (a slow
 * link looks like a crash), so the protocol uses it only to choose who coordinates and who is in
 * the ring, never for safety.
 */
final class FailureDetector {
    private final int self;
    private final List<Integer> acceptors;
    private final int suspectTicks;
    // By position in acceptors: heard() runs for every message an acceptor receives, so no boxing.
    private final long[] lastHeard;

    FailureDetector(int self, List<Integer> acceptors, int suspectTicks) {
        this.self = self;
        this.acceptors = acceptors;
        this.suspectTicks = suspectTicks;
        this.lastHeard = new long[acceptors.size()];
    }

    /** Records that {@code acceptor} was heard from at tick {@code now}; a node that is no acceptor is ignored. */
    void heard(int acceptor, long now) {
        int i = acceptors.indexOf(acceptor);
        if (i >= 0) {
            lastHeard[i] = now;
        }
    }

    /**
     * Whether {@code acceptor} is believed alive at {@code now}. A node never heard from is given
     * the benefit of the doubt until {@code suspectTicks} have passed since this detector started,
     * so a fresh cluster does not elect everyone at once.
     */
    boolean isLive(int acceptor, long now) {
        int i = acceptors.indexOf(acceptor);
        return acceptor == self || now - (i < 0 ? 0 : lastHeard[i]) <= suspectTicks;
    }

    /** The lowest live acceptor: the one that should coordinate. */
    int lowestLive(long now) {
        for (int a : acceptors) {
            if (isLive(a, now)) {
                return a;
            }
        }
        return self;
    }

    /**
     * The ring for a coordinator: itself, then the next {@code size − 1} acceptors after it in id
     * order (wrapping), live ones first, suspected ones only to make up the size.
     */
    List<Integer> ring(int size, long now) {
        int start = acceptors.indexOf(self);
        List<Integer> ring = new ArrayList<>(size);
        ring.add(self);
        List<Integer> suspected = new ArrayList<>();
        for (int k = 1; k < acceptors.size() && ring.size() < size; k++) {
            int a = acceptors.get((start + k) % acceptors.size());
            if (isLive(a, now)) {
                ring.add(a);
            } else {
                suspected.add(a);
            }
        }
        for (int i = 0; ring.size() < size; i++) {
            ring.add(suspected.get(i));
        }
        return ring;
    }
}
