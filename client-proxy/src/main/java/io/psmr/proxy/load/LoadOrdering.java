package io.psmr.proxy.load;

import java.util.Locale;

/**
 * The ordering layer of a {@code ./psmr load} run: of its embedded cluster ({@code --ordering local|ratis}),
 * or Ring Paxos for a cluster of processes ({@code --cluster DIR}).
 */
public enum LoadOrdering {

    /** psmr's in-process sequencer, replies through the in-process router. */
    LOCAL("local", "local sequencer"),
    /** Apache Ratis peers on loopback, psmr executing each committed entry; replies as Ratis replies. */
    RATIS("ratis", "Apache Ratis on loopback"),
    /** Ring Paxos between separate processes ({@code --cluster DIR}); not an {@code --ordering} choice. */
    RINGPAXOS_CLUSTER("ringpaxos", "Ring Paxos"),
    /** Apache Ratis between separate processes ({@code --cluster DIR}); not an {@code --ordering} choice. */
    RATIS_CLUSTER("ratis", "Apache Ratis");

    private final String label;
    private final String description;

    LoadOrdering(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** The name on the command line. */
    public String label() {
        return label;
    }

    /** What the report says. */
    public String description() {
        return description;
    }

    /** Whether the run's replicas are embedded in the load process (every choice of {@code --ordering}). */
    public boolean embedded() {
        return this != RINGPAXOS_CLUSTER && this != RATIS_CLUSTER;
    }

    /** The {@code --ordering} choice named {@code label} (case-insensitive), or null. */
    public static LoadOrdering fromLabel(String label) {
        for (LoadOrdering o : values()) {
            if (o.embedded() && o.label.equals(label.toLowerCase(Locale.ROOT))) {
                return o;
            }
        }
        return null;
    }
}
