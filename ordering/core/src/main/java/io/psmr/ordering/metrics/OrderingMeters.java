package io.psmr.ordering.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Binds the ordering layer's figures to Micrometer meters named {@code psmr.ordering.*} (see
 * docs/metrics.md). Every meter reads a supplier the node already keeps (a counter, a flag, a size
 * read at the node's status poll), so the protocol's threads make no meter calls.
 *
 * <p><b>Threads.</b> Bind from any thread; suppliers are called on the scraper's thread and must not block.
 * The registry keeps the suppliers reachable.
 */
public final class OrderingMeters {

    private OrderingMeters() {
    }

    /**
     * {@code psmr.ordering.instances.delivered}: instances delivered to this node's replica (Prometheus'
     * {@code rate()} gives instances per second).
     */
    public static void bindDelivered(MeterRegistry registry, LongSupplier delivered) {
        Gauge.builder("psmr.ordering.instances.last", delivered, s -> s.getAsLong()).description("the last instance delivered (a Raft log index for Ratis)")
                .strongReference(true).register(registry);
        // A FunctionCounter holds its object weakly: use the supplier, which the gauge above holds strongly.
        FunctionCounter.builder("psmr.ordering.instances.delivered", delivered, LongSupplier::getAsLong).description("instances delivered to this replica since it started")
                .register(registry);
    }

    /**
     * {@code psmr.ordering.leader} (1 while this node coordinates or leads) and
     * {@code psmr.ordering.leader.changes} (changes of that flag this process has seen).
     */
    public static void bindLeadership(MeterRegistry registry, BooleanSupplier leader, LongSupplier changes) {
        Gauge.builder("psmr.ordering.leader", leader, s -> s.getAsBoolean() ? 1 : 0)
                .description("1 while this node is the Ring Paxos coordinator (Phase 1 done) or the Raft leader")
                .strongReference(true).register(registry);
        // Weakly held object: the leader supplier, held strongly by the gauge above; the function holds `changes`.
        FunctionCounter.builder("psmr.ordering.leader.changes", leader, l -> changes.getAsLong()).description("times this node became or stopped being coordinator or leader")
                .register(registry);
    }

    /**
     * {@code psmr.ordering.acceptor.log.size} and {@code .capacity}: undiscarded instances an acceptor
     * holds, against the most it may hold before it waits for a checkpoint.
     */
    public static void bindAcceptorLog(MeterRegistry registry, IntSupplier size, int capacity) {
        Gauge.builder("psmr.ordering.acceptor.log.size", size, s -> s.getAsInt()).description("instances the acceptor's log holds (votes and decisions not trimmed)")
                .strongReference(true).register(registry);
        Gauge.builder("psmr.ordering.acceptor.log.capacity", () -> capacity).description("most instances the acceptor's log holds beyond its trim point")
                .register(registry);
    }

}
