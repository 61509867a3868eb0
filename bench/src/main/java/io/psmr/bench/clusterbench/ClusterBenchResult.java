package io.psmr.bench.clusterbench;

import java.util.Map;

/**
 * What {@code psmr bench cluster} measured for one ordering at one client count, over its runs: medians with the
 * slowest and fastest run. Rates are answered operations per second of the measured window; CPU is microseconds of
 * user plus system CPU per answered operation; NaN where there is nothing to report (no reference, no operation).
 *
 * @param ordering          the ordering's CLI name
 * @param clients           closed-loop clients
 * @param runs              measured runs
 * @param opsPerSecond      median throughput of the process cluster
 * @param minOps            the slowest run's
 * @param maxOps            the fastest run's
 * @param p50Micros         median over the runs of each run's median latency
 * @param p99Micros         the same for the 99th percentile
 * @param p999Micros        the same for the 99.9th percentile
 * @param clusterCpuMicros  median CPU per operation of every cluster process together
 * @param minClusterCpu     the lowest run's
 * @param maxClusterCpu     the highest run's
 * @param cpuByRoleMicros   median CPU per operation of each node role's processes together (acceptor, replica)
 * @param loadCpuMicros     median CPU per operation of the load generator (this JVM: clients and proxy)
 * @param idleCores         median CPU of the whole cluster with no client connected, in cores, over its runs (read
 *                          after its loads, warm)
 * @param idleNodePercent   the same per node: {@code idleCores} over the cluster's nodes, in percent of a core
 * @param referenceOps      median throughput of the same ordering in one JVM ({@code bench e2e}), or NaN
 * @param referenceMinOps   its slowest run's, or NaN
 * @param referenceMaxOps   its fastest run's, or NaN
 * @param referenceP50Micros its median latency, or NaN
 */
public record ClusterBenchResult(String ordering, int clients, int runs, double opsPerSecond, double minOps, double maxOps,
                                 double p50Micros, double p99Micros, double p999Micros, double clusterCpuMicros,
                                 double minClusterCpu, double maxClusterCpu, Map<String, Double> cpuByRoleMicros,
                                 double loadCpuMicros, double idleCores, double idleNodePercent, double referenceOps,
                                 double referenceMinOps,
                                 double referenceMaxOps, double referenceP50Micros) {

    /** Copies the map, sorted by role. */
    public ClusterBenchResult {
        cpuByRoleMicros = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(cpuByRoleMicros));
    }

    /** Processes over one JVM, medians: NaN without a reference. */
    public double processesOverOneJvm() {
        return referenceOps > 0 ? opsPerSecond / referenceOps : Double.NaN;
    }
}
