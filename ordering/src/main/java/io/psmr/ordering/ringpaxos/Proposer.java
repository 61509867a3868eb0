package io.psmr.ordering.ringpaxos;

import java.util.TreeMap;

/**
 * A proposer (a client proxy, for psmr): sends values to the coordinator and resends each until a
 * decision for it comes back.
 *
 * <p><b>Window.</b> It gives proposals increasing sequence numbers and sends number {@code s} only
 * once every number up to {@code s − proposerWindow} is acknowledged. Beyond being the proposer's
 * bound on memory, this is what lets learners deduplicate retries in constant space (see
 * {@link ProposalDeduplicator}).
 *
 * <p><b>Where to send.</b> To the coordinator named by the last decision's ballot; after each
 * unanswered retry period, to the next acceptor in turn, which forwards it to the coordinator it
 * believes in.
 */
public final class Proposer implements ProtocolNode {

    private static final class Pending {
        final Value value;
        long sentAt;

        Pending(Value value, long sentAt) {
            this.value = value;
            this.sentAt = sentAt;
        }
    }

    private final int id;
    private final RingPaxosConfig config;
    private final Outbox outbox = new Outbox();
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private long now;
    private long nextSeq = 1;
    private int target;

    /**
     * Creates a proposer.
     *
     * @param config the cluster
     * @param id     this proposer's id, one of {@link RingPaxosConfig#proposers()}
     */
    public Proposer(RingPaxosConfig config, int id) {
        if (!config.proposers().contains(id)) {
            throw new IllegalArgumentException(id + " is not a proposer");
        }
        this.id = id;
        this.config = config;
        this.target = config.acceptors().get(0);
    }

    @Override
    public int id() {
        return id;
    }

    /** Whether {@link #propose} would accept a value now. */
    public boolean canPropose() {
        return pending.isEmpty() || nextSeq <= pending.firstKey() + config.proposerWindow() - 1;
    }

    /** How many proposals are waiting for their decision. */
    public int pendingCount() {
        return pending.size();
    }

    /**
     * Proposes a value. The array is kept, not copied: the caller must not modify it afterwards.
     *
     * @return the proposal's id
     * @throws IllegalStateException if the window is full ({@link #canPropose()} is false)
     */
    public ProposalId propose(byte[] data) {
        if (!canPropose()) {
            throw new IllegalStateException("proposer window full: " + pending.size() + " outstanding");
        }
        Value value = new Value(new ProposalId(id, nextSeq), data);
        pending.put(nextSeq++, new Pending(value, now));
        outbox.send(new Message.Propose(id, target, value, false));
        return value.id();
    }

    @Override
    public void step(Message message) {
        if (message.to() != id || !config.isAcceptor(message.from())) {
            return;
        }
        if (message instanceof Message.Decision d && d.value().id().proposer() == id) {
            if (config.isAcceptor(d.ballot().coordinator())) {
                target = d.ballot().coordinator();
            }
            if (pending.remove(d.value().id().seq()) != null) {
                outbox.acknowledge(d.value().id());
            }
        }
    }

    @Override
    public void tick() {
        now++;
        boolean rotated = false;
        for (Pending p : pending.values()) {
            if (now - p.sentAt >= config.proposerRetryTicks()) {
                if (!rotated) {
                    int i = config.acceptors().indexOf(target);
                    target = config.acceptors().get((i + 1) % config.acceptors().size());
                    rotated = true;
                }
                p.sentAt = now;
                outbox.send(new Message.Propose(id, target, p.value, false));
            }
        }
    }

    @Override
    public Ready ready() {
        return outbox.drain();
    }
}
