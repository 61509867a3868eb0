package io.psmr.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cluster.ProcessCluster;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.ordering.pbft.LeaderRotation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long fault campaigns, behind the Maven profile {@code chaos-long} (which sets {@code psmr.chaos.long=true}; the
 * suite skips them otherwise): per ordering of {@code psmr.chaos.orderings} (default {@code ringpaxos,ratis,pbft}), a
 * cluster behind links ({@code cluster start --links}: Ring Paxos 3 acceptors and 2 replicas, Ratis 3 peers, PBFT 4
 * replicas × 2 pillars) and {@code psmr chaos} for {@code psmr.chaos.duration} (default 10m) with every network fault,
 * kill, pause and restart, and on PBFT Byzantine replicas, seeded by {@code psmr.chaos.seed} (default 20261128). Each
 * must exit 0; the report goes to {@code target/chaos-long/ORDERING.json} and standard output.
 *
 * <pre>mvn -pl bench test -Pchaos-long -Dpsmr.chaos.duration=30m -Dpsmr.chaos.orderings=ratis</pre>
 */
@Tag("process")
@EnabledIfSystemProperty(named = "psmr.chaos.long", matches = "true")
class ChaosLongCampaignTest {

    private static final String FAULTS = "partition-halves,partition-majorities-ring,isolate-leader,one-way,slow-links,"
            + "flaky,kill,pause,restart";

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    static Stream<String> orderings() {
        return Arrays.stream(System.getProperty("psmr.chaos.orderings", "ringpaxos,ratis,pbft").split(","))
                .map(String::trim).filter(s -> !s.isEmpty());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("orderings")
    void aLongCampaignPassesItsChecks(String ordering) throws Exception {
        String duration = System.getProperty("psmr.chaos.duration", "10m");
        long seed = Long.getLong("psmr.chaos.seed", 20261128L);
        Path cluster = dir.resolve("cluster");
        ClusterLauncher launcher = processes.in(cluster).serveLinks(true);
        ClusterSpec spec = switch (ordering) {
            case "ringpaxos" -> ClusterSpec.ringPaxos(3, 2, ProcessCluster.settings(2));
            case "ratis" -> ClusterSpec.ratis(3, ProcessCluster.settings(2));
            case "pbft" -> ClusterSpec.pbft(4, 2, LeaderRotation.ROTATING, ProcessCluster.settings(1));
            default -> throw new IllegalArgumentException("psmr.chaos.orderings: ringpaxos, ratis or pbft, got " + ordering);
        };
        launcher.start(spec, Duration.ofSeconds(180));

        Path out = Path.of("target", "chaos-long");
        Files.createDirectories(out);
        Path report = out.resolve(ordering + ".json");
        List<String> args = new ArrayList<>(List.of("chaos", "--cluster", cluster.toString(), "--duration", duration,
                "--faults", FAULTS + (ordering.equals("pbft") ? ",byzantine" : ""), "--seed", Long.toString(seed),
                "--report", report.toString()));
        CliRun run = CliRun.of(args.toArray(String[]::new));
        String context = String.format(Locale.ROOT, "%s, seed %d, %s, cluster in %s%n%s%s", ordering, seed, duration,
                cluster, run.out(), run.err());
        System.out.println(run.out());
        assertEquals(0, run.exitCode(), context);
        assertTrue(run.out().contains("verdict: PASS"), context);
        System.out.println("ChaosLongCampaignTest " + ordering + ": report in " + report.toAbsolutePath() + "; "
                + args.stream().collect(Collectors.joining(" ")));
    }
}
