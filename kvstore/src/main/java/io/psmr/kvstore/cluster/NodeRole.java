package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** What a node of a process cluster is. */
public enum NodeRole {
    /** A Ring Paxos acceptor (one of them coordinates). */
    ACCEPTOR,
    /** A replica: a Ring Paxos learner, the psmr scheduler and the key-value store, and a reply server. */
    REPLICA;

    /** The name in {@code cluster.json}. */
    @JsonValue
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The role named {@code label} in {@code cluster.json}. */
    @JsonCreator
    public static NodeRole fromCliName(String label) {
        for (NodeRole r : values()) {
            if (r.cliName().equals(label)) {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown node role '" + label + "' (acceptor or replica)");
    }
}
