package io.psmr.bench.chaos;

import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.bench.cli.DurationConverter;
import io.psmr.bench.cli.PsmrMain;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr chaos}: a seeded fault campaign (Jepsen's nemesis) against a running Ring Paxos, Ratis
 * or PBFT process cluster under load, then a heal and the checks ({@link ChaosCampaign}). On PBFT the
 * faults include {@code byzantine} (a replica restarted in a Byzantine mode for a while, then correct
 * again), at most f = (n−1)/3 replicas are faulty at once, and a cluster with f or more replicas
 * already Byzantine or down is refused. Exit codes: 0 every check held; 1 the campaign could not run,
 * or a check other than those below failed; 2 bad usage; 3 the replicas diverged, the history is not
 * linearizable or an acknowledged write was lost (safety); 4 the load or the heal made no progress
 * (liveness). Each failed check is named on standard error.
 */
@Command(name = "chaos",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a seeded schedule of faults (SIGKILL and restart, SIGSTOP/SIGCONT pauses, Byzantine replicas on PBFT, and network "
                    + "faults on a cluster started with --links) against a "
                    + "Ring Paxos, Ratis or PBFT cluster (from ./psmr cluster start) under a closed-loop load; then heal everything "
                    + "and check equal digests, no lost acknowledged write and per-key linearizability.",
            "On PBFT at most f = (n-1)/3 replicas are faulty at once, Byzantine ones included, and the checks are over the "
                    + "correct replicas; a cluster with f or more replicas already Byzantine or down is refused (exit 2).",
            "With partitions, a quarter of the clients go with the minority side of each; none may be acknowledged there. "
                    + "--beyond-f lifts the bound of f to show safety alone.",
            "Docs: docs/recovery.md (The fault campaign)."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every check held",
            "1:the campaign could not run, or a check failed that is neither below",
            "2:usage error (bad or missing option, byzantine on a crash-tolerant cluster, more faults than f on PBFT)",
            "3:the replicas diverged, the history is not linearizable, an acknowledged write was lost, or a client was "
                    + "acknowledged on a partition's minority side (safety)",
            "4:stalled: no operation completed, the load stalled, or the replicas did not converge after the heal (liveness; "
                    + "not with --beyond-f)"})
public final class ChaosCommand implements Callable<Integer> {

    static final int MAX_CLIENTS = 1000;
    static final int MAX_KEYS = 10_000;
    static final Duration MIN_DURATION = Duration.ofSeconds(5);
    static final Duration MAX_DURATION = Duration.ofHours(1);
    /** The faults without {@code --faults}; a PBFT cluster adds {@code byzantine}. */
    static final String DEFAULT_FAULTS = "kill,pause,restart";
    /** The network faults, for messages. */
    static final String NETWORK_FAULTS = java.util.Arrays.stream(FaultKind.values()).filter(FaultKind::network)
            .map(FaultKind::cliName).collect(java.util.stream.Collectors.joining(", "));


    @Spec
    CommandSpec spec;

    @Option(names = "--cluster", paramLabel = "DIR", required = true,
            description = "The cluster directory (started with ./psmr cluster start; Ring Paxos, Ratis or PBFT, as cluster.json "
                    + "says).")
    Path cluster;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "30s", converter = DurationConverter.class,
            description = "How long the load runs with faults, 5s to 1h, e.g. 30s or 2m (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--faults", paramLabel = "LIST",
            description = "Comma-separated: kill (SIGKILL), pause (SIGSTOP longer than the failure detector's timeout, then SIGCONT), "
                    + "restart (killed nodes come back during the load; needs kill), byzantine (PBFT only: a replica restarted in "
                    + "a Byzantine mode the seed picks, for 3-6 s, then restarted correct); on a cluster started with --links "
                    + "also network faults, one at a time, each cutting off at most as many nodes as the bounds allow: "
                    + "partition-halves, partition-majorities-ring, isolate-leader, one-way, slow-links (every link delayed, "
                    + "with jitter), flaky (a random link reset every 200 ms) (default: " + DEFAULT_FAULTS
                    + ", and byzantine on PBFT).")
    String faults;

    @Option(names = "--seed", paramLabel = "S",
            description = "Seed of the schedule and the clients (default: a new one, printed).")
    Long seed;

    @Option(names = "--max-down", paramLabel = "N",
            description = "Most nodes faulted at once over all kinds, at least 1 (default: each kind's bound: (n-1)/2 acceptors or "
                    + "Ratis peers, f = (n-1)/3 PBFT replicas; more than f is refused on PBFT).")
    Integer maxDown;

    @Option(names = "--beyond-f",
            description = "Let kills, pauses and network faults together cut off more nodes than the bound (f) from a "
                    + "quorum at once, up to all of a kind but one (Byzantine replicas stay at most f), and check safety "
                    + "alone: equal digests, no lost acknowledged write, linearizability, no client acknowledged on a "
                    + "minority side. No progress while the faults last, or a stall, is then no failure.")
    boolean beyondF;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "16",
            description = "Closed-loop clients, 1 to " + MAX_CLIENTS + " (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "64",
            description = "Key space, 1 to " + MAX_KEYS + " and at most the cluster's --max-keys (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--report", paramLabel = "FILE", description = "Also write the report to FILE as JSON.")
    Path report;

    @Option(names = "--history", paramLabel = "FILE", description = "Write every client operation to FILE as JSON lines.")
    Path history;

    @Override
    public Integer call() throws Exception {
        ChaosOptions options = validate();
        PrintWriter out = spec.commandLine().getOut();
        ChaosReport r = ChaosCampaign.run(new ClusterLauncher(cluster), options, out);
        r.printText(out);
        if (report != null) {
            r.writeJson(report);
        }
        if (!r.passed()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("psmr chaos: FAILED (seed " + r.seed() + "): " + String.join("; ", r.failures()));
            err.flush();
        }
        return exitCode(r);
    }

    /** 0 if every check held; else 3 for a failed safety check, before 4 for no progress, before 1 for the rest. */
    static int exitCode(ChaosReport r) {
        return r.passed() ? 0 : r.unsafe() ? PsmrMain.EXIT_UNSAFE : r.stalled() ? PsmrMain.EXIT_STALLED : PsmrMain.EXIT_FAILURE;
    }

    /** Checks every flag; a bad one is a usage error naming it. */
    ChaosOptions validate() {
        Duration d = duration;
        require(d.compareTo(MIN_DURATION) >= 0 && d.compareTo(MAX_DURATION) <= 0,
                "--duration must be from 5s to 1h, got " + DurationConverter.format(d));
        List<FaultKind> kinds = new ArrayList<>();
        boolean restart = false;
        for (String part : (faults == null ? DEFAULT_FAULTS : faults).split(",", -1)) {
            String f = part.trim().toLowerCase(Locale.ROOT);
            if (f.equals("restart")) {
                restart = true;
            } else {
                addOnce(kinds, FaultKind.fromCliName(f).orElseThrow(() -> new CommandLine.ParameterException(
                        spec.commandLine(), "--faults entries must be kill, pause, restart, byzantine, " + NETWORK_FAULTS
                                + ", got '" + part + "'")));
            }
        }
        require(!restart || kinds.contains(FaultKind.KILL), "--faults: restart needs kill (it brings killed nodes back)");
        require(!kinds.isEmpty(), "--faults needs kill, pause, byzantine or a network fault");
        require(!beyondF || kinds.stream().anyMatch(k -> k != FaultKind.BYZANTINE), "--beyond-f needs kill, pause or a "
                + "network fault: Byzantine replicas stay at most f");
        require(maxDown == null || maxDown >= 1, "--max-down must be at least 1, got " + maxDown);
        require(clients >= 1 && clients <= MAX_CLIENTS, "--clients must be from 1 to " + MAX_CLIENTS + ", got " + clients);
        require(keys >= 1 && keys <= MAX_KEYS, "--keys must be from 1 to " + MAX_KEYS + ", got " + keys);
        ClusterDescriptor c;
        try {
            c = new ClusterLauncher(cluster).directory().read();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cluster: " + e.getMessage());
        }
        require(kinds.stream().noneMatch(FaultKind::network) || new ClusterLauncher(cluster).links().isPresent(),
                "--faults: " + kinds.stream().filter(FaultKind::network).map(FaultKind::cliName).toList() + " need a cluster"
                        + " behind links, and " + cluster + " has none (start it with ./psmr cluster start --links)");
        boolean pbft = c.ordering() == OrderingProtocol.PBFT;
        require(pbft || !kinds.contains(FaultKind.BYZANTINE), "--faults: byzantine needs a pbft cluster, and " + cluster
                + " holds a " + c.ordering().cliName() + " cluster: it tolerates crashes only, and its replicas have no"
                + " Byzantine mode to restart in");
        if (pbft) {
            require(maxDown == null || beyondF || maxDown <= c.pbft().f(), "--max-down must be at most "
                    + FaultTargets.bound(c) + " on a pbft cluster without --beyond-f, got " + maxDown);
            FaultTargets.pbftRefusal(c, FaultTargets.faultyAtStart(c))
                    .ifPresent(why -> require(false, "--cluster: " + cluster + ": " + why));
            if (faults == null) {
                kinds.add(FaultKind.BYZANTINE);
            }
        }
        require(keys <= c.settings().maxKeys(), "--keys must be at most the cluster's max-keys (" + c.settings().maxKeys()
                + "), got " + keys);
        long s = seed != null ? seed : System.nanoTime();
        return new ChaosOptions(d, kinds, restart, maxDown == null ? 0 : maxDown, s, clients, keys, history, beyondF);
    }

    private static void addOnce(List<FaultKind> kinds, FaultKind k) {
        if (!kinds.contains(k)) {
            kinds.add(k);
        }
    }

    private void require(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }
}
