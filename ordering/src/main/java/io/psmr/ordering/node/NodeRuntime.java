package io.psmr.ordering.node;

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

    /** Stops the node. */
    @Override
    void close();
}
