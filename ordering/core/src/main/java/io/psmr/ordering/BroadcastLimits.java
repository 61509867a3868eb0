package io.psmr.ordering;

/**
 * The bounds every networked {@link AtomicBroadcast} keeps on one replica, whatever its protocol: how many
 * delivered values it retains for subscriptions (also its flow-control window), how many of its own proposals
 * may be in flight, and how many subscriptions it serves.
 *
 * <p>Immutable; any thread.
 *
 * @param retainedInstances   delivered values retained, at least 1
 * @param maxPendingProposals proposals queued or in flight at once, at least 1
 * @param maxLearners         subscriptions at once, at least 1
 */
public record BroadcastLimits(int retainedInstances, int maxPendingProposals, int maxLearners) {

    /** 1,024 values retained, 1,024 proposals in flight, 64 subscriptions. */
    public static final BroadcastLimits DEFAULTS = new BroadcastLimits(1024, 1024, 64);

    /** @throws IllegalArgumentException naming the first bound below 1 */
    public BroadcastLimits {
        atLeastOne("retainedInstances", retainedInstances);
        atLeastOne("maxPendingProposals", maxPendingProposals);
        atLeastOne("maxLearners", maxLearners);
    }

    /** These limits with {@code n} values retained. */
    public BroadcastLimits withRetainedInstances(int n) {
        return new BroadcastLimits(n, maxPendingProposals, maxLearners);
    }

    /** These limits with {@code n} proposals in flight. */
    public BroadcastLimits withMaxPendingProposals(int n) {
        return new BroadcastLimits(retainedInstances, n, maxLearners);
    }

    /** These limits with {@code n} subscriptions. */
    public BroadcastLimits withMaxLearners(int n) {
        return new BroadcastLimits(retainedInstances, maxPendingProposals, n);
    }

    /** A sequencer builder that retains and serves as these limits say, for a broadcast's {@link RelayLog}. */
    public LocalSequencer.Builder relayLogSequencer() {
        return LocalSequencer.builder().retainedInstances(retainedInstances).maxLearners(maxLearners);
    }

    private static void atLeastOne(String name, int n) {
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + n);
        }
    }
}
