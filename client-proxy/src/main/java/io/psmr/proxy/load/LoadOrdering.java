package io.psmr.proxy.load;

import java.util.Locale;

/** The ordering layer of a {@code ./psmr load} run's embedded cluster ({@code --ordering}). */
public enum LoadOrdering {

    /** psmr's in-process sequencer, replies through the in-process router. */
    LOCAL("local", "local sequencer"),
    /** Apache Ratis peers on loopback, psmr executing each committed entry; replies as Ratis replies. */
    RATIS("ratis", "Apache Ratis on loopback");

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

    /** The ordering named {@code label} (case-insensitive), or null. */
    public static LoadOrdering fromLabel(String label) {
        for (LoadOrdering o : values()) {
            if (o.label.equals(label.toLowerCase(Locale.ROOT))) {
                return o;
            }
        }
        return null;
    }
}
