package io.psmr.bench.cluster;

import io.psmr.proxy.cluster.NodeStatus;

/**
 * One node of a process cluster, running in this JVM: what {@code ./psmr node} hosts. The node
 * serves from its own threads; the caller only polls {@link #status} and finally closes it.
 *
 * <p><b>Threads.</b> {@code status} and {@code close} are called from the one thread of
 * {@link NodeCommand}; the node's own threads are its business.
 */
interface NodeRuntime extends AutoCloseable {

    /** What the node says about itself now; may block briefly (for example to ask its event loop). */
    NodeStatus status() throws InterruptedException;

    /** Stops the node. */
    @Override
    void close();
}
