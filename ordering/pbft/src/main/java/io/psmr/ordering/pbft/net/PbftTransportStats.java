package io.psmr.ordering.pbft.net;

import java.util.List;
import java.util.Map;

/**
 * A snapshot of one {@link PbftNettyTransport}'s counters, for a {@code status} page. Counters only grow; the
 * connection counts are current.
 *
 * @param replica      the replica
 * @param refusals     inbound connections closed for bad input, by reason (every reason present, zero or not)
 * @param drops        frames dropped without closing anything, by reason (every reason present)
 * @param outbound     per pillar, the peer replicas this pillar's outgoing connections currently reach
 * @param inbound      per pillar, the peer replicas currently connected to this pillar's port (after their hello)
 */
public record PbftTransportStats(int replica, Map<RefusalReason, Long> refusals, Map<DropReason, Long> drops,
                                 List<Integer> outbound, List<Integer> inbound) {

    /** Copies. */
    public PbftTransportStats {
        refusals = Map.copyOf(refusals);
        drops = Map.copyOf(drops);
        outbound = List.copyOf(outbound);
        inbound = List.copyOf(inbound);
    }

    /** Refusals of every reason together. */
    public long totalRefusals() {
        return refusals.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Drops of every reason together. */
    public long totalDrops() {
        return drops.values().stream().mapToLong(Long::longValue).sum();
    }
}
