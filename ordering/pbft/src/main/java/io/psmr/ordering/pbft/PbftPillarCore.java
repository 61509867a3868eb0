package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftReady.StableCheckpoint;
import java.util.Objects;

/**
 * The {@link PillarCore} of a real PBFT pillar: delegates to a {@link PbftPillar}. Like the pillar, touched only by the
 * thread of the {@link PillarAgent} that owns it.
 */
public final class PbftPillarCore implements PillarCore {

    /** The refusals {@link PbftPillar#propose} can make, in the order it checks them. */
    private static final Refusal[] REQUEST_REFUSALS = {Refusal.REQUEST_TOO_LARGE, Refusal.BAD_REQUEST_AUTH,
            Refusal.DUPLICATE_REQUEST, Refusal.OVERLOADED};

    private final PbftPillar pillar;
    private final long[] counted = new long[REQUEST_REFUSALS.length];
    private Refusal lastRefusal;

    /** Drives {@code pillar}. */
    public PbftPillarCore(PbftPillar pillar) {
        this.pillar = Objects.requireNonNull(pillar, "pillar");
    }

    /** A new pillar {@code pillar} of {@code replica}, in view 0 with no stable checkpoint. */
    public static PbftPillarCore create(PbftConfig config, int replica, int pillar, Authenticator auth) {
        return new PbftPillarCore(new PbftPillar(config, replica, pillar, auth));
    }

    /** The pillar driven (for its observers: view, refusals; only on the owning agent's thread). */
    public PbftPillar core() {
        return pillar;
    }

    @Override
    public int pillar() {
        return pillar.pillar();
    }

    @Override
    public void step(PbftEnvelope envelope) {
        pillar.step(envelope);
    }

    @Override
    public void tick() {
        pillar.tick();
    }

    @Override
    public boolean propose(Request request) {
        // The pillar says only true or false; which counter it raised says why (read from its own counters, so that
        // the pillar itself needs no change).
        for (int i = 0; i < REQUEST_REFUSALS.length; i++) {
            counted[i] = pillar.refusals(REQUEST_REFUSALS[i]);
        }
        if (pillar.propose(request)) {
            lastRefusal = null;
            return true;
        }
        lastRefusal = null;
        for (int i = 0; i < REQUEST_REFUSALS.length; i++) {
            if (pillar.refusals(REQUEST_REFUSALS[i]) != counted[i]) {
                lastRefusal = REQUEST_REFUSALS[i];
                break;
            }
        }
        return false;
    }

    @Override
    public Refusal lastRefusal() {
        return lastRefusal;
    }

    @Override
    public void checkpointDigest(long seq, byte[] digest) {
        pillar.checkpointDigest(seq, digest);
    }

    @Override
    public void stableCheckpoint(StableCheckpoint checkpoint) {
        pillar.stableCheckpoint(checkpoint);
    }

    @Override
    public void clientExecuted(long client, long number) {
        pillar.clientExecuted(client, number);
    }

    @Override
    public void needEmpty(long seq) {
        pillar.needEmpty(seq);
    }

    @Override
    public PbftReady ready() {
        return pillar.ready();
    }

    @Override
    public PillarSnapshot snapshot(long malformed) {
        return new PillarSnapshot(pillar.pillar(), pillar.view(), pillar.lowWatermark(), pillar.refusals(), malformed);
    }
}
