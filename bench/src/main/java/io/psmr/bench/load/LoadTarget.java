package io.psmr.bench.load;

import io.psmr.kvstore.ratis.RatisDurability;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.PbftConfig;
import java.util.Objects;

/**
 * Where a load run's replicas are: under which ordering, and whether they are embedded in the load
 * process or run as separate processes (a cluster started with {@code ./psmr cluster start}); for
 * PBFT also the protocol's configuration, and for embedded Ratis how its peers store their log.
 *
 * @param ordering the ordering layer
 * @param embedded whether the replicas run inside the load process
 * @param pbft     the PBFT configuration when {@code ordering} is {@link OrderingProtocol#PBFT}, else null
 * @param ratisDurability how embedded Ratis peers store their log; {@link RatisDurability#SYNC} for every other target
 * @param partitions MLBFT's partitions (each with its own PBFT instance of {@code pbft}); 0 for every other target
 */
public record LoadTarget(OrderingProtocol ordering, boolean embedded, PbftConfig pbft, RatisDurability ratisDurability,
                         int partitions) {

    /** Checks that a PBFT target, and only one, carries its configuration, and that only embedded Ratis trades durability. */
    public LoadTarget {
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(ratisDurability, "ratisDurability");
        EmbeddedOrdering runner = EmbeddedOrdering.of(ordering);
        if (ratisDurability != RatisDurability.SYNC && !(embedded && runner.tradesDurability())) {
            throw new IllegalArgumentException("only an embedded ratis target takes a Ratis durability, not "
                    + (embedded ? "embedded " : "a cluster of ") + ordering.cliName());
        }
        if ((partitions > 0) != (ordering == OrderingProtocol.MLBFT)) {
            throw new IllegalArgumentException("only an mlbft target has partitions, and it needs them");
        }
        if (runner.needsMatchingReplies() != (pbft != null)) {
            throw new IllegalArgumentException(runner.needsMatchingReplies() ? "a " + ordering.cliName() + " target needs its PbftConfig"
                    : ordering.cliName() + " takes no PbftConfig");
        }
    }

    /** A target without partitions (any ordering but MLBFT). */
    public LoadTarget(OrderingProtocol ordering, boolean embedded, PbftConfig pbft, RatisDurability ratisDurability) {
        this(ordering, embedded, pbft, ratisDurability, 0);
    }

    /** A target with Ratis' durable log ({@link RatisDurability#SYNC}). */
    public LoadTarget(OrderingProtocol ordering, boolean embedded, PbftConfig pbft) {
        this(ordering, embedded, pbft, RatisDurability.SYNC);
    }

    /** A target without PBFT configuration (any ordering but PBFT). */
    public LoadTarget(OrderingProtocol ordering, boolean embedded) {
        this(ordering, embedded, null);
    }

    /** Replicas inside the load process, under {@code ordering} (one that takes no settings: see {@link EmbeddedOrdering#target}). */
    public static LoadTarget embedded(OrderingProtocol ordering) {
        return new LoadTarget(ordering, true);
    }

    /** The cluster of processes {@code cluster} describes, with its PBFT configuration if it has one. */
    public static LoadTarget cluster(io.psmr.kvstore.cluster.ClusterDescriptor cluster) {
        return new LoadTarget(cluster.ordering(), false, cluster.pbft() == null ? null : cluster.pbft().config());
    }

    /** A cluster of processes under {@code ordering}. */
    public static LoadTarget cluster(OrderingProtocol ordering) {
        return new LoadTarget(ordering, false);
    }

    /** What the report says, e.g. {@code embedded, local sequencer}. */
    public String description() {
        return (embedded ? "embedded, " : "separate processes, ") + ordering.description()
                + EmbeddedOrdering.of(ordering).describeSettings(this);
    }
}
