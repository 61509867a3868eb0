package io.psmr.bench.chaos;

/**
 * A fault the campaign injects: into one node's process, or, on a cluster started with {@code --links}, into the
 * network between the processes ({@link #network()}), as Jepsen's nemeses name them.
 */
public enum FaultKind {
    /** SIGKILL, as a crash; healed by restarting the node through the cluster's restart path. */
    KILL("kill"),
    /** SIGSTOP for longer than the failure detector's timeout; healed by SIGCONT. */
    PAUSE("pause"),
    /**
     * PBFT only: a restart of a replica Byzantine in a {@link io.psmr.ordering.pbft.byzantine.ByzantineMode} for a
     * while; healed by restarting it correct ({@link io.psmr.kvstore.cluster.ClusterLauncher#restartAs}).
     */
    BYZANTINE("byzantine"),
    /** A random split of the nodes into two halves, every link between them cut both ways; the clients stay with the larger. */
    PARTITION_HALVES("partition-halves"),
    /**
     * The nodes in a ring, each still linked to the nearest ones that make a majority with it, every other link cut:
     * every node sees a majority, and no two the same one.
     */
    PARTITION_MAJORITIES_RING("partition-majorities-ring"),
    /** The node that leads when it strikes (Ring Paxos coordinator, Ratis leader, PBFT primary) cut off from every process. */
    ISOLATE_LEADER("isolate-leader"),
    /** One node stops hearing from another on the links that one dials: A reaches B, B does not reach A. */
    ONE_WAY("one-way"),
    /** Every link delayed, with jitter. */
    SLOW_LINKS("slow-links"),
    /** Connections reset at random, a link at a time, every 200 ms. */
    FLAKY("flaky");

    private final String cliName;

    FaultKind(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in reports. */
    public String cliName() {
        return cliName;
    }

    /** Whether it acts on the links between processes rather than on a process. */
    public boolean network() {
        return ordinal() >= PARTITION_HALVES.ordinal();
    }

    /** The kind named {@code name} on the command line, if any. */
    public static java.util.Optional<FaultKind> fromCliName(String name) {
        for (FaultKind k : values()) {
            if (k.cliName.equals(name)) {
                return java.util.Optional.of(k);
            }
        }
        return java.util.Optional.empty();
    }
}
