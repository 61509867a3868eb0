package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.Outbox;
import io.psmr.ordering.protocol.Ready;
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
 * <p><b>Restart and {@code firstSeq}.</b> Learners deduplicate per proposer id with a window of
 * sequence numbers ({@link ProposalDeduplicator}), and the proposer's state (its next number, its
 * pending proposals) is volatile. A proposer process that restarts with the same id must therefore
 * start <em>above</em> every sequence number any earlier incarnation used ({@code firstSeq}, kept by
 * the host, for example in a counter file): a number it reused could be dropped by every learner as
 * a duplicate while its decision is still acknowledged here, so an acknowledged value would never
 * be delivered. A gap between incarnations costs nothing. What the dead incarnation left undecided
 * may still be decided later (a coordinator may hold it in its queue, an acceptor may have voted
 * for it): a learner then delivers it once if it is within the window of that proposer's highest
 * delivered number, or drops it as a duplicate otherwise. Both are safe: nobody was told it was
 * ordered, and every learner decides the same way because it sees the same decisions in the same
 * order.
 *
 * <p><b>Where to send.</b> To the coordinator named by the last decision's ballot; after each
 * unanswered retry period, to the next acceptor in turn, which forwards it to the coordinator it
 * believes in.
 */
public final class Proposer implements RingPaxosCore {

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
    private final Outbox<Message, StorageChange, Output> outbox = new Outbox<>();
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    private long now;
    private long nextSeq;
    private int target;

    /**
     * Creates a proposer whose first sequence number is 1: a proposer id's first incarnation.
     *
     * @param config the cluster
     * @param id     this proposer's id, one of {@link RingPaxosConfig#proposers()}
     */
    public Proposer(RingPaxosConfig config, int id) {
        this(config, id, 1);
    }

    /**
     * Creates a proposer.
     *
     * @param config   the cluster
     * @param id       this proposer's id, one of {@link RingPaxosConfig#proposers()}
     * @param firstSeq the first sequence number, at least 1; after a restart, above every number an
     *                 earlier incarnation of this id used (see the class comment)
     */
    public Proposer(RingPaxosConfig config, int id, long firstSeq) {
        if (!config.proposers().contains(id)) {
            throw new IllegalArgumentException(id + " is not a proposer");
        }
        if (firstSeq < 1) {
            throw new IllegalArgumentException("firstSeq must be at least 1, got " + firstSeq);
        }
        this.id = id;
        this.config = config;
        this.nextSeq = firstSeq;
        this.target = config.acceptors().get(0);
    }

    /** The sequence number the next proposal gets (a restarted incarnation must start above it). */
    public long nextSeq() {
        return nextSeq;
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
                outbox.output(new Output.Acknowledged(d.value().id()));
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
    public Ready<Message, StorageChange, Output> ready() {
        return outbox.drain();
    }

    @Override
    public void advance(Ready<Message, StorageChange, Output> ready) {
        outbox.advance(ready);
    }
}
