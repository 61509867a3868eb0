package io.psmr.simulation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** Shows, or not, how far a run has got while the caller waits for it. */
public interface ProgressDisplay {

    /** Waits for {@code completion} without showing anything. */
    ProgressDisplay NONE = (done, total, completion) -> completion.join();

    /**
     * Blocks until {@code completion} is done, showing {@code done} out of {@code total} if it
     * chooses to. Must not throw for a failed completion: the caller reads the failure itself.
     *
     * @param done       iterations done so far, updated by the workers
     * @param total      iterations in the whole run
     * @param completion completes when every chunk is done
     */
    void follow(AtomicLong done, long total, CompletableFuture<?> completion);
}
