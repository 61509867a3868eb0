package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Request;

/** Told when a pillar refuses a request submitted to it ({@link PillarNetwork#refused}), so its proposer fails it at once. */
@FunctionalInterface
public interface RefusedRequests {

    /**
     * {@code pillar} refused {@code request} for {@code reason}. Called on that
     * pillar's agent thread: must not block.
     */
    void refused(Request request, int pillar, Refusal reason);
}
