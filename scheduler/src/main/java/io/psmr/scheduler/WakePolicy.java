package io.psmr.scheduler;

/**
 * When a dependency graph wakes a parked worker for a batch that has become free. Either way the
 * graph's order is the same: which batches may run, and that {@code take} returns the oldest free
 * one, depend only on the delivered summaries. The policy decides only how many thread wake-ups
 * (a futex call each, tens of microseconds on a virtual machine) pay for that order.
 *
 * <p>Both policies guarantee progress: a free batch never waits forever while a worker is parked.
 * {@link #WHEN_OUTNUMBERED} leaves a free batch without a wake-up only while some taken batch is
 * not yet removed, and a worker that removes its batch with {@link DependencyGraph#removeAndTake}
 * takes the oldest free batch before it would park, so a free batch is taken at the latest when
 * a busy worker's current batch completes (batches run to completion: a batch that stops half-way
 * fail-stops the scheduler). {@link DependencyGraph#remove} counts its caller as idle and wakes
 * for every free batch beyond the busy workers.
 */
public enum WakePolicy {

    /** Wake a parked worker for every batch that becomes free (one signal per free batch). */
    EAGER,

    /**
     * Wake a parked worker only while the free batches outnumber the busy workers (those holding a
     * taken batch), or when no worker is busy; otherwise the busy workers take the free batches
     * when they finish their own. Bound on the latency this adds: a free batch waits for no more
     * than the rest of one busy worker's current batch, and no more than
     * {@link #STALE_INSERTS} inserts: at the {@value #STALE_INSERTS}th insert during which free
     * batches have waited without any being taken, a parked worker is woken anyway. This spares a
     * wake-up per insert when a worker is about to come back, at the cost of up to one batch's
     * latency when one long batch holds the only busy worker and no further batch is delivered.
     */
    WHEN_OUTNUMBERED;

    /**
     * Inserts during which free batches may wait, no batch being taken, before
     * {@link #WHEN_OUTNUMBERED} wakes a parked worker regardless of the busy workers.
     */
    public static final int STALE_INSERTS = 4;

    /** The name on the command line: {@code eager}, {@code when-outnumbered}. */
    public String cliName() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
