package io.psmr.bench.clusterbench;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.NodeRole;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * CPU time, user plus system, that the operating system reports for processes ({@link ProcessHandle.Info#totalCpuDuration},
 * from {@code /proc/PID/stat} on Linux): of each node of a cluster, summed per role, and of this JVM (the load
 * generator and its proxy). A reading of a process that has ended, or that the system does not report, counts 0.
 *
 * <p>Threads: stateless; any thread.
 */
final class ClusterCpu {

    private ClusterCpu() {
    }

    /** One reading: nanoseconds of CPU per node role of the cluster, and of this process. */
    record Reading(Map<NodeRole, Long> byRole, long self) {

        /** Copies the map. */
        Reading {
            byRole = Map.copyOf(byRole);
        }

        /** The cluster's total. */
        long cluster() {
            return byRole.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Reads every node of {@code cluster} that has a pid, and this process. */
    static Reading read(ClusterDescriptor cluster) {
        Map<NodeRole, Long> byRole = new EnumMap<>(NodeRole.class);
        for (ClusterNode n : cluster.nodes()) {
            if (n.pid() != null) {
                byRole.merge(n.role(), of(n.pid()), Long::sum);
            }
        }
        return new Reading(byRole, ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L));
    }

    /** CPU nanoseconds of process {@code pid}; 0 if it is gone or not reported. */
    static long of(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(0L);
    }
}
