package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.byzantine.Adversary;
import io.psmr.ordering.pbft.byzantine.ByzantineBehaviour;
import io.psmr.ordering.protocol.sim.SimulatedNetwork;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A {@link SimulatedNetwork} of envelopes in which each of 1 to f replicas follows a {@link ByzantineBehaviour}
 * ({@link #behaviours}): in {@link #transmit}, each Byzantine replica's outgoing envelopes go through its
 * {@link Adversary} (the same transformations a Byzantine replica process uses), which rewrites, drops, adds to or holds
 * them back; held ones go out in {@link #tick} when their tick comes. Each adversary acts alone and as itself: it MACs
 * and signs only as its own replica ({@link ChecksumAuthenticator#signingOnlyFor}), and its decisions use its own
 * seeded random, so a seed and an assignment of behaviours always give the same run. Envelopes between two adversaries
 * travel like any other (each rewrites what it sends).
 *
 * <p>What is simulation-specific is the network's collusion with a {@link ByzantineBehaviour#SPLITTING_LEADER}
 * ({@link #holdBack}): while the network is faulty it holds back one correct replica's PREPARE and COMMIT of a split
 * instance to another, which only a simulated network can do.
 */
class ByzantineNetwork extends SimulatedNetwork<PbftEnvelope> {

    /** How long the colluding network holds back a PREPARE/COMMIT of a split instance: well past a view change. */
    private static final int HOLD_TICKS = 200;

    private record Held(long at, PbftEnvelope envelope) {
    }

    /** The Byzantine replicas by id, in id order. */
    private final SortedMap<Integer, Adversary> adversaries = new TreeMap<>();
    /** Per Byzantine replica, the PRE-PREPAREs a {@link ByzantineBehaviour#SLOW_LEADER} held back so far. */
    private final Map<Integer, Long> delayed = new TreeMap<>();
    private boolean healed;
    /** Envelopes held back, in the order held: released by {@link #tick} in that order. */
    private final List<Held> held = new ArrayList<>();

    /** One Byzantine replica, {@code byzantine}, following {@code behaviour}. */
    ByzantineNetwork(Random random, int byzantine, ByzantineBehaviour behaviour, PbftConfig config, Authenticator auth) {
        this(random, Map.of(byzantine, behaviour), config, auth);
    }

    /**
     * Replicas {@code behaviours.keySet()} (1 to f of them) Byzantine, each following its behaviour. Each
     * adversary's random is drawn from {@code random}, in id order. {@code auth} is the correct replicas' (the
     * adversaries get signers of their own).
     */
    ByzantineNetwork(Random random, Map<Integer, ByzantineBehaviour> behaviours, PbftConfig config, Authenticator auth) {
        super(random, PbftEnvelope::from, PbftEnvelope::to);
        if (behaviours.isEmpty() || behaviours.size() > config.f()) {
            throw new IllegalArgumentException(behaviours.size() + " Byzantine replicas; the model allows 1 to f = " + config.f());
        }
        List<Integer> correct = new ArrayList<>();
        for (int r = 0; r < config.replicaCount(); r++) {
            if (!behaviours.containsKey(r)) {
                correct.add(r);
            }
        }
        new TreeMap<>(behaviours).forEach((id, behaviour) -> {
            if (id < 0 || id >= config.replicaCount()) {
                throw new IllegalArgumentException("no replica " + id + " among " + config.replicaCount());
            }
            adversaries.put(id, new Adversary(behaviour, id, correct, config, ChecksumAuthenticator.signingOnlyFor(id),
                    new Random(random.nextLong())));
        });
    }

    /** Marks the Byzantine replicas in {@code cluster}, so that their progress and commits are not checked. */
    void attach(PbftCluster cluster) {
        cluster.byzantine.addAll(adversaries.keySet());
    }

    /** The Byzantine replicas and what each does. */
    Map<Integer, ByzantineBehaviour> behaviours() {
        Map<Integer, ByzantineBehaviour> m = new TreeMap<>();
        adversaries.forEach((id, a) -> m.put(id, a.behaviour()));
        return m;
    }

    @Override
    public void transmit(PbftEnvelope e, long now) {
        Adversary from = adversaries.get(e.from());
        if (from == null) {
            Adversary to = adversaries.get(e.to());
            if (to != null) {
                to.heard(e);
            }
            if (holdBack(e)) {
                held.add(new Held(now + HOLD_TICKS, e));
                return;
            }
            super.transmit(e, now);
            return;
        }
        Adversary.Outgoing out = from.send(e, now);
        for (PbftEnvelope x : out.now()) {
            super.transmit(x, now);
        }
        for (Adversary.Held h : out.held()) {
            held.add(new Held(h.untilTick(), h.envelope()));
            delayed.merge(e.from(), 1L, Long::sum);
        }
    }

    /** PRE-PREPAREs that replica {@code byzantine}, a {@link ByzantineBehaviour#SLOW_LEADER}, held back so far. */
    long delayed(int byzantine) {
        return delayed.getOrDefault(byzantine, 0L);
    }

    @Override
    public void heal() {
        super.heal();
        healed = true;
    }

    /**
     * The colluding network of a split instance: the PREPARE and COMMIT of the correct replica that gets the Byzantine
     * COMMIT ("X", {@link Adversary#splitRole} 1) to the other pre-prepared one ("Y", role 2) are held back, so Y does not
     * prepare before the view change. Only while the network is faulty.
     */
    private boolean holdBack(PbftEnvelope e) {
        if (healed) {
            return false;
        }
        long v;
        long s;
        if (e.message() instanceof Prepare p) {
            v = p.view();
            s = p.seq();
        } else if (e.message() instanceof Commit c) {
            v = c.view();
            s = c.seq();
        } else {
            return false;
        }
        for (Adversary a : adversaries.values()) {
            if (a.behaviour() == ByzantineBehaviour.SPLITTING_LEADER && a.split(e.pillar(), v, s)
                    && e.from() == a.splitRole(1, v, s) && e.to() == a.splitRole(2, v, s)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void tick(long now) {
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (h.at() <= now) {
                it.remove();
                super.transmit(h.envelope(), now);
            }
        }
    }
}
