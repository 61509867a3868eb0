package io.psmr.bench.e2e;

import java.util.List;

/** The ordering layer under a {@code psmr bench e2e} run. */
public enum E2eOrdering {
    /** The in-process {@link io.psmr.ordering.LocalSequencer}. */
    LOCAL("local"),
    /**
     * An embedded Ring Paxos cluster on loopback sockets ({@link io.psmr.ordering.ringpaxos.net.LoopbackRingPaxos}):
     * 3 acceptors, the replica's learner and the proxy's proposer in one adapter.
     */
    RINGPAXOS("ringpaxos");

    private final String cliName;

    E2eOrdering(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in results.csv. */
    public String cliName() {
        return cliName;
    }

    /** The orderings {@code --ordering NAME} selects ({@code both}: local, then ringpaxos); null if unknown. */
    public static List<E2eOrdering> parse(String name) {
        return switch (name) {
            case "local" -> List.of(LOCAL);
            case "ringpaxos" -> List.of(RINGPAXOS);
            case "both" -> List.of(LOCAL, RINGPAXOS);
            default -> null;
        };
    }
}
