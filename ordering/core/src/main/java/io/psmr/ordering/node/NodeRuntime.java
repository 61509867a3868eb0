package io.psmr.ordering.node;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * One node of a process cluster, running in this JVM: an acceptor, a replica or a Ratis peer, as a
 * node process hosts it. The node serves from its own threads; the host only polls {@link #status}
 * and finally closes it.
 *
 * <p><b>Threads.</b> {@code status} and {@code close} are called from the host's one thread; the
 * node's own threads are its business.
 */
public interface NodeRuntime extends AutoCloseable {

    /** What the node says about itself now; may block briefly (for example to ask its event loop). */
    NodeStatus status() throws InterruptedException;

    /**
     * Registers this node's meters (docs/metrics.md) in {@code registry}; called once, before the
     * first {@link #status}, from the host's thread. The meters read figures the node keeps anyway;
     * none is updated per command. By default, none.
     */
    default void bindMeters(MeterRegistry registry) {
    }

    /** Stops the node. */
    @Override
    void close();
}
