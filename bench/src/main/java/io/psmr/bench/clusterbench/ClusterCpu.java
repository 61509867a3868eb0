package io.psmr.bench.clusterbench;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.NodeRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /**
     * CPU nanoseconds that the JIT compiler threads ({@code C1 CompilerThre…}, {@code C2 CompilerThre…}) of every node
     * of {@code cluster} used so far, from {@code /proc/PID/task/TID/stat} (clock ticks of {@value #USER_HZ} Hz, the
     * Linux ABI's); -1 where the system has no {@code /proc}. A thread or process that ended meanwhile counts 0.
     */
    static long jitNanos(ClusterDescriptor cluster) {
        if (!Files.isDirectory(Path.of("/proc/self/task"))) {
            return -1;
        }
        long ticks = 0;
        for (ClusterNode n : cluster.nodes()) {
            if (n.pid() == null) {
                continue;
            }
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", n.pid().toString(), "task"))) {
                for (Path task : tasks) {
                    ticks += compilerTicks(task.resolve("stat"));
                }
            } catch (IOException | UncheckedIOException gone) {
                // the process ended: its compilers no longer run
            }
        }
        return ticks * (1_000_000_000L / USER_HZ);
    }

    /** The clock ticks a {@code /proc/.../stat} line gives for user plus system time, if its thread is a JIT compiler's. */
    static long compilerTicks(Path stat) {
        String line;
        try {
            line = Files.readString(stat);
        } catch (IOException gone) {
            return 0;
        }
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            return 0;
        }
        String name = line.substring(open + 1, close);
        if (!(name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre"))) {
            return 0;
        }
        // After the name: state (field 3), ... utime (14), stime (15); index 0 here is field 3.
        String[] fields = line.substring(Math.min(line.length(), close + 2)).split(" ");
        try {
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (ArrayIndexOutOfBoundsException | NumberFormatException cut) {
            return 0; // not a whole stat line: count nothing rather than end the benchmark
        }
    }

    /** Clock ticks per second in {@code /proc}: USER_HZ, fixed at 100 by the Linux ABI. */
    static final long USER_HZ = 100;

    /** CPU nanoseconds of process {@code pid}; 0 if it is gone or not reported. */
    static long of(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(0L);
    }
}
