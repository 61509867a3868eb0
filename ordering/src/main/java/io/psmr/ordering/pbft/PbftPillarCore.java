package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftReady.StableCheckpoint;
import java.util.Objects;

/**
 * The {@link PillarCore} of a real PBFT pillar: delegates to a {@link PbftPillar}. Like the pillar, touched only by the
 * thread of the {@link PillarAgent} that owns it.
 */
public final class PbftPillarCore implements PillarCore {

    private final PbftPillar pillar;

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
        return pillar.propose(request);
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
    public void needEmpty(long seq) {
        pillar.needEmpty(seq);
    }

    @Override
    public PbftReady ready() {
        return pillar.ready();
    }
}
