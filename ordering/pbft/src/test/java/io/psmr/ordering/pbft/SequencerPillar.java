package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.protocol.Outbox;
import io.psmr.ordering.protocol.Ready;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A test-only {@link PbftCore}: not PBFT, a trivial sequencer with the same inputs and outputs, to test the agents,
 * the network and the execution stage without the real pillar core. Replica {@link #LEADER} orders every instance of
 * the pillar: it gives each request (or EMPTY, when the execution stage waits on a number) the pillar's next sequence
 * number within the watermarks, commits it and sends a sealed PRE-PREPARE to every other replica, which commits it on
 * receipt. Checkpoints are real enough: the pillar in charge sends its digest to every replica and reports the
 * checkpoint stable once 2f+1 replicas sent the same digest. No retransmission: the test network must not drop.
 */
final class SequencerPillar implements PbftCore {

    static final int LEADER = 0;

    private final PbftConfig config;
    private final int replica;
    private final int pillar;
    private final Authenticator auth;

    private final ArrayDeque<Request> pending = new ArrayDeque<>();
    private final Set<RequestId> seen = new HashSet<>();
    private final Set<Long> committedSeqs = new HashSet<>();
    private final Map<Long, Map<Integer, Checkpoint>> checkpointVotes = new HashMap<>();
    private final Set<Long> stableSeqs = new HashSet<>();
    private long nextSeq;
    private long stable;
    private long emptyThrough = Long.MIN_VALUE; // the highest number the execution stage asked to fill
    private long ticks;

    private final Outbox<PbftEnvelope, Void, PillarOutput> outbox = new Outbox<>();

    SequencerPillar(PbftConfig config, int replica, int pillar, Authenticator auth) {
        this.config = config;
        this.replica = replica;
        this.pillar = pillar;
        this.auth = auth;
        this.nextSeq = config.firstSeq(pillar);
    }

    @Override
    public int pillar() {
        return pillar;
    }

    @Override
    public void step(PbftEnvelope e) {
        if (!e.verify(auth) || e.to() != replica || e.pillar() != pillar) {
            throw new AssertionError("replica " + replica + " pillar " + pillar + " got a bad envelope " + e);
        }
        if (e.message() instanceof Request r && replica == LEADER) {
            propose(r);
        } else if (e.message() instanceof PrePrepare pp && e.from() == LEADER) {
            commit(pp.seq(), pp.request());
        } else if (e.message() instanceof Checkpoint c) {
            vote(c);
        } else {
            throw new AssertionError("unexpected " + e.message());
        }
    }

    @Override
    public void tick() {
        ticks++;
    }

    long ticks() {
        return ticks;
    }

    @Override
    public Optional<Refusal> propose(Request request) {
        if (!request.verifiedFor(replica, auth)) {
            throw new AssertionError("replica " + replica + ": request " + request + " does not verify");
        }
        if (replica != LEADER) {
            outbox.send(PbftEnvelope.seal(replica, LEADER, pillar, request, auth)); // forward, as PBFT replicas do
        } else if (seen.add(request.id())) {
            pending.add(request);
            assign();
        }
        return Optional.empty();
    }

    @Override
    public void needEmpty(long seq) {
        if (replica == LEADER) {
            emptyThrough = Math.max(emptyThrough, seq);
            assign();
        }
    }

    /** Orders pending requests, then EMPTY up to {@code emptyThrough}, within the watermarks. */
    private void assign() {
        while (nextSeq <= stable + config.watermarkWindow() && (!pending.isEmpty() || nextSeq <= emptyThrough)) {
            Request r = pending.poll();
            long seq = nextSeq;
            nextSeq += config.pillars();
            PrePrepare pp = r == null ? PrePrepare.empty(0, seq) : new PrePrepare(0, seq, r.digest(), r);
            for (int to = 0; to < config.replicaCount(); to++) {
                if (to != replica) {
                    outbox.send(PbftEnvelope.seal(replica, to, pillar, pp, auth));
                }
            }
            commit(seq, r);
        }
    }

    private void commit(long seq, Request r) {
        if (!committedSeqs.add(seq)) {
            throw new AssertionError("seq " + seq + " committed twice");
        }
        outbox.output(new Committed(seq, 0, r, r == null ? PbftDigests.empty() : r.digest()));
    }

    @Override
    public void checkpointDigest(long seq, byte[] digest) {
        if (config.checkpointPillar(seq) != pillar) {
            throw new AssertionError("checkpoint " + seq + " went to pillar " + pillar);
        }
        Checkpoint c = Checkpoint.signed(seq, digest, replica, auth);
        for (int to = 0; to < config.replicaCount(); to++) {
            if (to != replica) {
                outbox.send(PbftEnvelope.seal(replica, to, pillar, c, auth));
            }
        }
        vote(c);
    }

    private void vote(Checkpoint c) {
        long seq = c.seq();
        byte[] digest = c.stateDigest();
        Map<Integer, Checkpoint> votes = checkpointVotes.computeIfAbsent(seq, s -> new HashMap<>());
        votes.put(c.replica(), c);
        long matching = votes.values().stream().filter(d -> Arrays.equals(d.stateDigest(), digest)).count();
        if (matching >= config.quorum() && stableSeqs.add(seq)) {
            List<Checkpoint> proof = new ArrayList<>(votes.values());
            outbox.output(new StableCheckpoint(seq, digest, proof));
            raiseStable(seq);
        }
    }

    @Override
    public void stableCheckpoint(StableCheckpoint checkpoint) {
        raiseStable(checkpoint.seq());
    }

    private void raiseStable(long seq) {
        if (seq > stable) {
            stable = seq;
            checkpointVotes.keySet().removeIf(s -> s < seq);
            assign();
        }
    }

    long stable() {
        return stable;
    }

    @Override
    public Ready<PbftEnvelope, Void, PillarOutput> ready() {
        return outbox.drain();
    }

    @Override
    public void advance(Ready<PbftEnvelope, Void, PillarOutput> ready) {
        outbox.advance(ready);
    }
}
