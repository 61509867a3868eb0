package io.psmr.bench.load;

/**
 * Names what a stalled load cannot hear from, for the stall message: nodes whose process is gone
 * or that say they do not serve, reply connections that are down, replicas that stopped.
 *
 * <p><b>Threads.</b> Called on the thread that runs {@link LoadGenerator#run}, once per stall, while
 * the clients wait; it may read files and process tables but must not wait on the load.
 */
@FunctionalInterface
public interface StallProbe {

    /** A probe that knows nothing to name. */
    StallProbe NONE = () -> "";

    /**
     * What cannot be heard from, as text (for example {@code "acceptor-0 (process not alive);
     * reply connections up: 1 of 2"}), or empty if nothing looks wrong.
     */
    String silent();
}
