package io.psmr.bench.chaos;

import java.util.Locale;

/** A fault the campaign injects into one node's process. */
public enum FaultKind {
    /** SIGKILL, as a crash; healed by restarting the node through the cluster's restart path. */
    KILL,
    /** SIGSTOP for longer than the failure detector's timeout; healed by SIGCONT. */
    PAUSE;

    /** The name on the command line and in reports. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
