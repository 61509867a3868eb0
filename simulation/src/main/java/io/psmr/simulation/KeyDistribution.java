package io.psmr.simulation;

/** How the simulator draws the keys of a batch from the key space {@code [0, K)}. */
public enum KeyDistribution {
    /** Every key equally likely: the model of the paper's §VII-D. */
    UNIFORM,
    /**
     * Zipf over ranks {@code 1..K} with exponent θ; rank {@code r} is key {@code r - 1}, so key 0 is
     * the hottest. Hot keys make true conflicts, which the paper's uniform model has almost none of.
     */
    ZIPF
}
