package io.psmr.ordering;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The ordering layers psmr runs under, with one name each, the same in every command
 * ({@code --ordering}), in cluster.json and in results files.
 *
 * <p>Immutable; any thread.
 */
public enum OrderingProtocol {

    /** psmr's in-process sequencer ({@link LocalSequencer}): one JVM, no faults tolerated. */
    LOCAL("local", "local sequencer"),
    /** Ring Paxos (crash faults): acceptors in a ring, learners and proposers beside them. */
    RING_PAXOS("ringpaxos", "Ring Paxos"),
    /** Apache Ratis (Raft, crash faults), psmr executing each committed entry. */
    RATIS("ratis", "Apache Ratis"),
    /**
     * PBFT with COP pillars (Byzantine faults, {@code 3f + 1} replicas), in one JVM over an in-process network
     * ({@code io.psmr.ordering.pbft.LoopbackPbft}); clients accept a result only from {@code f + 1} matching replies.
     */
    PBFT("pbft", "PBFT (COP pillars)"),
    /**
     * MLBFT, the multi-leader baseline (Abid's thesis): the keys split into partitions, each ordered by its own PBFT
     * instance and run by its own worker, the instances never merged into one order; in one JVM
     * ({@code io.psmr.kvstore.mlbft}). Clients accept a result only from {@code f + 1} matching replies.
     */
    MLBFT("mlbft", "MLBFT (one PBFT instance per partition)");

    private final String cliName;
    private final String description;

    OrderingProtocol(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /** The name on the command line, in cluster.json and in results files. */
    public String cliName() {
        return cliName;
    }

    /** What reports call it. */
    public String description() {
        return description;
    }

    /** Every name, comma-separated: for usage text and error messages. */
    public static String cliNames() {
        return Arrays.stream(values()).map(OrderingProtocol::cliName).collect(Collectors.joining(", "));
    }

    /**
     * The ordering named {@code name}.
     *
     * @throws IllegalArgumentException naming the new spelling of an old one, or listing the names
     */
    public static OrderingProtocol fromCliName(String name) {
        for (OrderingProtocol o : values()) {
            if (o.cliName.equals(name)) {
                return o;
            }
        }
        String lower = name == null ? "" : name.toLowerCase(Locale.ROOT);
        if (lower.equals("ring-paxos") || lower.equals("ring_paxos") || lower.equals("paxos")) {
            throw new IllegalArgumentException("ordering '" + name + "' is no longer a name; use ringpaxos");
        }
        for (OrderingProtocol o : values()) {
            if (o.cliName.equals(lower)) {
                throw new IllegalArgumentException("ordering '" + name + "' must be written in lower case: " + o.cliName);
            }
        }
        throw new IllegalArgumentException("unknown ordering '" + name + "'; orderings: " + cliNames());
    }
}
