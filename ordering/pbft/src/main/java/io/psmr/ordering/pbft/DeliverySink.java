package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;

/**
 * Where an {@link ExecutionAgent} hands the requests of its replica's total order, renumbered gap-free
 * ({@link ExecutionStage}). Called only on the execution agent's thread; must not block.
 */
@FunctionalInterface
public interface DeliverySink {

    /**
     * Delivers {@code request} at {@code instance}.
     *
     * @return false if the sink has no room now: nothing was delivered, and the same request is offered again at the
     *         same instance on a later duty cycle (order stops behind it meanwhile)
     */
    boolean deliver(long instance, Request request);
}
