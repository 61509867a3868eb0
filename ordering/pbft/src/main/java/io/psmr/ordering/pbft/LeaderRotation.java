package io.psmr.ordering.pbft;

/** How the leader of a consensus instance is chosen (COP §4.3.2). */
public enum LeaderRotation {
    /** Block-wise rotation: the leader of instance {@code c} in view {@code v} is {@code (c / Np + v) mod n}. */
    ROTATING,
    /** Classic PBFT: one primary per view, {@code v mod n}, leads every instance. */
    FIXED
}
