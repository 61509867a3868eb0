package io.psmr.ordering.ringpaxos;

import java.util.TreeMap;

/**
 * A learner (a replica, for psmr): delivers decided values in instance order, without gaps, each
 * proposal once, and never a no-op.
 *
 * <p>It buffers decisions that arrive ahead of its next instance, at most
 * {@link RingPaxosConfig#learnerBuffer()} of them (later ones are dropped and fetched again). When
 * it knows of a later decided instance (from a decision or an acceptor's heartbeat) but lacks its
 * next one for {@link RingPaxosConfig#fetchTicks()}, it asks acceptors in turn for the missing
 * decisions. Every {@link RingPaxosConfig#reportTicks()} it reports its safe instance to every
 * acceptor, which lets them trim their logs.
 */
public final class Learner implements ProtocolNode {

    private final int id;
    private final RingPaxosConfig config;
    private final Outbox outbox = new Outbox();
    private final TreeMap<Long, Value> buffer = new TreeMap<>();
    private final ProposalDeduplicator dedup;

    private long now;
    private long next = 1;
    private long highestKnown;
    private long lastFetch = Long.MIN_VALUE / 2;
    private int fetchTarget;

    /**
     * Creates a learner that delivers from instance 1.
     *
     * @param config the cluster
     * @param id     this learner's id, one of {@link RingPaxosConfig#learners()}
     */
    public Learner(RingPaxosConfig config, int id) {
        if (!config.isLearner(id)) {
            throw new IllegalArgumentException(id + " is not a learner");
        }
        this.id = id;
        this.config = config;
        this.dedup = new ProposalDeduplicator(config.proposerWindow());
        this.fetchTarget = config.learners().indexOf(id) % config.acceptors().size();
    }

    @Override
    public int id() {
        return id;
    }

    /** The next instance to deliver: everything before it is delivered (or skipped as no-op or duplicate). */
    public long nextInstance() {
        return next;
    }

    @Override
    public void step(Message message) {
        if (message.to() != id || !config.isAcceptor(message.from())) {
            return;
        }
        if (message instanceof Message.Decision d) {
            highestKnown = Math.max(highestKnown, d.instance());
            if (d.instance() >= next && d.instance() < next + config.learnerBuffer()) {
                buffer.putIfAbsent(d.instance(), d.value());
                deliverInOrder();
            }
        } else if (message instanceof Message.Heartbeat h) {
            highestKnown = Math.max(highestKnown, h.highestDecided());
        }
    }

    @Override
    public void tick() {
        now++;
        if (next <= highestKnown && !buffer.containsKey(next) && now - lastFetch >= config.fetchTicks()) {
            lastFetch = now;
            // Rotate: the acceptor asked last time may have crashed or may not know the decision.
            int acceptor = config.acceptors().get(fetchTarget);
            fetchTarget = (fetchTarget + 1) % config.acceptors().size();
            long last = Math.min(highestKnown, next + config.fetchBatch() - 1);
            outbox.send(new Message.Fetch(id, acceptor, next, last));
        }
        if (now % config.reportTicks() == 0) {
            for (int a : config.acceptors()) {
                outbox.send(new Message.Delivered(id, a, next - 1));
            }
        }
    }

    @Override
    public Ready ready() {
        return outbox.drain();
    }

    private void deliverInOrder() {
        Value v;
        while ((v = buffer.remove(next)) != null) {
            if (!v.isNoop() && dedup.firstDelivery(v.id())) {
                outbox.deliver(next, v);
            }
            next++;
        }
    }
}
