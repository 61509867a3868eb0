package io.psmr.kvstore.checkpoint;

import java.io.IOException;
import java.util.List;

/** No peer gave a valid checkpoint: the message names every peer tried and what went wrong with it. */
public final class CheckpointFetchException extends IOException {

    private final List<String> reasons;

    CheckpointFetchException(long minInstance, List<String> reasons) {
        super("no checkpoint at or after instance " + minInstance + " could be fetched: " + String.join("; ", reasons));
        this.reasons = List.copyOf(reasons);
    }

    /** One line per peer tried, in order, each naming the peer. */
    public List<String> reasons() {
        return reasons;
    }
}
