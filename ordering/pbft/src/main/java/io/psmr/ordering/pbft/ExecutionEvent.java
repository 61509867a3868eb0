package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;

/** What a {@link PillarAgent} tells the {@link ExecutionAgent} of its replica. */
public sealed interface ExecutionEvent {

    /** The pillar that produced it. */
    int pillar();

    /** An instance committed at the pillar. */
    record Commit(int pillar, Committed committed) implements ExecutionEvent {
    }

    /** A checkpoint became stable at the pillar in charge of it. */
    record Stable(int pillar, StableCheckpoint checkpoint) implements ExecutionEvent {
    }
}
