package io.psmr.bench.chaos;

import java.util.Locale;

/** A fault the campaign injects into one node's process. */
public enum FaultKind {
    /** SIGKILL, as a crash; healed by restarting the node through the cluster's restart path. */
    KILL,
    /** SIGSTOP for longer than the failure detector's timeout; healed by SIGCONT. */
    PAUSE,
    /**
     * PBFT only: a restart of a replica Byzantine in a {@link io.psmr.ordering.pbft.byzantine.ByzantineMode} for a
     * while; healed by restarting it correct ({@link io.psmr.kvstore.cluster.ClusterLauncher#restartAs}).
     */
    BYZANTINE;

    /** The name on the command line and in reports. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
