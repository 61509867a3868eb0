package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;

/** What the {@link ExecutionAgent} tells a {@link PillarAgent} of its replica. */
public sealed interface PillarCommand {

    /** The state digest after checkpoint {@code seq}: agree on it (to the pillar in charge of checkpoint seq). */
    record CheckpointDigest(long seq, byte[] digest) implements PillarCommand {
        /** Copies the digest. */
        public CheckpointDigest {
            digest = digest.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }
    }

    /** Order is blocked on {@code seq} of this pillar: fill it. */
    record NeedEmpty(long seq) implements PillarCommand {
    }

    /** A transferred state says {@code client}'s requests up to {@code number} are executed. */
    record ClientExecuted(long client, long number) implements PillarCommand {
    }

    /** A checkpoint became stable at another pillar. */
    record Stable(StableCheckpoint checkpoint) implements PillarCommand {
    }
}
