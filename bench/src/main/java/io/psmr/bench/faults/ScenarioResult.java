package io.psmr.bench.faults;

import java.util.List;

/**
 * What one scenario of {@code psmr bench faults} measured; written to {@code faults.json} as is. Times are
 * milliseconds from the start of the load (when the clients started); rates are completed operations per second;
 * latencies are milliseconds. A field is null where the run did not get that far (see {@link #error}).
 *
 * @param scenario             the fault's name: crash, pause or a Byzantine mode
 * @param leaderSelection the PBFT leader selection of its cluster ({@code blacklist} or {@code all})
 * @param kind                 crash, pause or byzantine
 * @param targets              the replicas faulted
 * @param action               what was done to them, in words
 * @param error                why the scenario failed (the cluster did not start, the load stalled, a cued
 *                             Byzantine replica did not act in time), or null if it ran through
 * @param startMillis          how long the cluster took to start and serve, before the load (null if it did not)
 * @param bucketMillis         the width of a bucket of {@link #buckets}
 * @param buckets              completed operations per bucket, by completion time, up to the end of the faulty window
 *                             (or the failure)
 * @param opsPerSecond         completed operations per whole second, the sums of {@link #buckets}
 * @param warmupMillis         the start of the fault-free window (the warm-up skipped before it)
 * @param faultFreeEndMillis   the end of the fault-free window: when the fault was to be injected
 * @param injectedMillis       when the injection began: the SIGKILL, the SIGSTOP, or the cue of a dormant Byzantine replica
 * @param onsetMillis          the fault's onset: the SIGKILL, the SIGSTOP or the cue
 * @param faultyFromMillis     the start of the faulty window: the onset rounded up to a bucket
 * @param faultyEndMillis      the end of the faulty window, when the load was stopped
 * @param healedMillis         pause: when SIGCONT was sent (at the end of the faulty window); else null
 * @param faultFreeOps         throughput over the fault-free window
 * @param faultyOps            throughput over the faulty window
 * @param fraction             faultyOps / faultFreeOps
 * @param recoveryMillis       time from the faulty window's start until throughput, over 1 s windows, is back at
 *                             0.8 × faultFreeOps and stays there to the window's end ({@link FaultMetrics}); null
 *                             if it never is, if faultFreeOps is 0, or if the scenario failed before
 * @param recovered            whether {@link #recoveryMillis} is set
 * @param firstBackMillis      time from the faulty window's start until the first 1 s window at 0.8 × faultFreeOps
 *                             or above ({@link FaultMetrics#firstBackMillis}); null as for recoveryMillis
 * @param faultFreeBelowShare  the share of 1 s windows of the fault-free window below 0.8 × faultFreeOps: the
 *                             machine's own dips ({@link FaultMetrics#shareBelow}); null if it was not measured
 * @param faultyBelowShare     the same share over the faulty window; null as for recoveryMillis
 * @param faultFreeP50Ms       median latency of operations completed in the fault-free window
 * @param faultFreeP99Ms       99th percentile of the same
 * @param faultyP50Ms          median latency of operations completed in the faulty window
 * @param faultyP99Ms          99th percentile of the same
 */
public record ScenarioResult(String scenario, String leaderSelection, String kind, List<String> targets, String action, String error,
                             Long startMillis, long bucketMillis, long[] buckets, long[] opsPerSecond, long warmupMillis,
                             long faultFreeEndMillis, Long injectedMillis, Long onsetMillis, Long faultyFromMillis,
                             Long faultyEndMillis, Long healedMillis, Double faultFreeOps, Double faultyOps,
                             Double fraction, Long recoveryMillis, boolean recovered, Long firstBackMillis,
                             Double faultFreeBelowShare, Double faultyBelowShare, Double faultFreeP50Ms,
                             Double faultFreeP99Ms, Double faultyP50Ms, Double faultyP99Ms) {

    /** Copies the list. */
    public ScenarioResult {
        targets = List.copyOf(targets);
    }

    /** The scenario and, where an invocation compares leader selections, the selection: {@code crash (all)}. */
    public String label(boolean withSelection) {
        return withSelection ? scenario + " (" + leaderSelection + ")" : scenario;
    }

    /** Whether the scenario ran through. */
    public boolean ok() {
        return error == null;
    }
}
