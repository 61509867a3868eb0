package io.psmr.bench.clusterbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.ordering.OrderingProtocol;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code psmr bench cluster}: usage errors with their exact messages, and the settings it builds. Starts no cluster. */
class ClusterBenchCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--ordering local          | psmr bench cluster: --ordering: local does not run as a process cluster; expected ringpaxos, ratis, pbft, a comma-separated list of them, or all",
        "--ordering pbft,pbft      | psmr bench cluster: --ordering lists pbft twice",
        "--clients 0               | psmr bench cluster: --clients must be from 1 to 10000 each, got 0",
        "--clients 16,16           | psmr bench cluster: --clients lists a count twice",
        "--window 0                | psmr bench cluster: --window must be from 1 to 1024, got 0",
        "--runs 0                  | psmr bench cluster: --runs must be from 1 to 100, got 0",
        "--warmup 500ms            | psmr bench cluster: --warmup must be from 1s to 10m, got 500ms",
        "--cluster-warmup 11m      | psmr bench cluster: --cluster-warmup must be from 0s to 10m, got 11m",
        "--duration 500ms          | psmr bench cluster: --duration must be from 1s to 10m, got 500ms",
        "--idle 11m                | psmr bench cluster: --idle must be from 1s to 10m, got 11m",
        "--bogus                   | psmr bench cluster: Unknown option: '--bogus'",
    })
    void badFlagsExitWithUsageErrorNamingTheFlag(String args, String message) {
        CliRun r = CliRun.of(Stream.concat(Stream.of("bench", "cluster"), Stream.of(args.trim().split("\\s+")))
                .toArray(String[]::new));
        assertEquals(PsmrMain.EXIT_USAGE, r.exitCode(), "exit code; stderr:\n" + r.err());
        assertEquals(message.trim(), r.err().lines().findFirst().orElse(""), r.err());
        assertTrue(r.err().contains("Usage: psmr bench cluster"), "the usage follows:\n" + r.err());
        assertEquals("", r.out(), "nothing on stdout");
    }

    @Test
    void theClustersAreClusterStartsDefaults() {
        ClusterBenchSettings s = new ClusterBenchSettings(ClusterBenchSettings.SUPPORTED, List.of(16, 64), 1, 3,
                java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(30), java.time.Duration.ofSeconds(10),
                java.time.Duration.ofSeconds(5), true, false,
                42, java.nio.file.Path.of("results"), 2);
        assertEquals(3, s.clusterSpec(OrderingProtocol.RING_PAXOS).acceptors());
        assertEquals(2, s.clusterSpec(OrderingProtocol.RING_PAXOS).replicas());
        assertEquals(3, s.clusterSpec(OrderingProtocol.RATIS).replicas());
        assertEquals(4, s.clusterSpec(OrderingProtocol.PBFT).replicas());
        assertEquals(2, s.clusterSpec(OrderingProtocol.PBFT).pillars());
        assertEquals(java.time.Duration.ofSeconds(15), s.loadOptions(OrderingProtocol.PBFT, 64, s.warmup()).workload().duration(),
                "one load runs the warm-up and the measured window");
        assertEquals(64, s.loadOptions(OrderingProtocol.PBFT, 64, s.warmup()).workload().clients());
        CliRun help = CliRun.of("bench", "cluster", "--help");
        assertEquals(0, help.exitCode(), help.err());
        assertTrue(help.out().contains("CPU per operation"), help.out());
    }
}
