package io.psmr.bench.chaos;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.ordering.pbft.PbftReplicaNode;
import io.psmr.bench.load.ClusterLoad;
import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.JsonLinesHistory;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadReport;
import io.psmr.bench.load.LoadStalledException;
import io.psmr.bench.load.OpRecord;
import io.psmr.bench.load.WorkloadSpec;
import io.psmr.kvstore.cluster.links.LinkTable;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fault campaign against a running process cluster: a closed-loop load through
 * {@link ClusterLoad} (the client path of {@code load --cluster}) with every operation recorded,
 * and a {@link Nemesis} carrying out a seeded {@link FaultSchedule} from the load's first operation.
 * When the clients stop it heals every fault, waits until the replicas report equal idle digests at
 * one instance, reads every key back, and checks the digests, that no acknowledged write was lost
 * and that the history is linearizable per key. Call {@link #run} from one thread.
 *
 * <p>Against PBFT the checks are over the correct replicas: every replica but those already
 * Byzantine when the campaign started ({@link FaultTargets#faultyAtStart}), which it leaves as they
 * are. A replica the campaign made Byzantine counts as correct at the end: the modes falsify only
 * what it sends, never what it executes or checkpoints, and it was restarted correct, so it must
 * reach the others' digest by its own checkpoint and log or by a checkpoint 2f+1 replicas certified.
 * After the final heal, reads ({@link HealTraffic}) order new instances until the replicas are level,
 * so that a replica that came back after the clients stopped is not left without the last instances.
 */
public final class ChaosCampaign {

    /** Ratis' election timeout at most (RatisPeer: 500–1,000 ms): its failure detector. */
    static final long RATIS_ELECTION_MILLIS = 1000;
    /** Shortest gap without completions reported as unavailability. */
    static final long UNAVAILABLE_MILLIS = 500;
    /** Most operations recorded: the history is checked in memory (clients stop early beyond it). */
    static final long MAX_OPERATIONS = 1_000_000;
    /** How long a restarted node may take to serve. */
    static final Duration RESTART_TIMEOUT = Duration.ofSeconds(60);
    /**
     * How long a restarted PBFT replica may take to serve: two restarts per Byzantine fault, each a JVM start
     * that a busy machine stretches, and a replica that fell behind does not serve until its state transfer ends.
     */
    static final Duration PBFT_RESTART_TIMEOUT = Duration.ofSeconds(120);
    /** How long the replicas may take to converge after the heal, and each final read. */
    static final Duration SETTLE = Duration.ofSeconds(60);
    /**
     * How long the PBFT replicas may take to converge after the heal: a replica restarted correct at
     * the end may still have to catch up by state transfer, and view changes may be under way.
     */
    static final Duration PBFT_SETTLE = Duration.ofSeconds(120);
    /** How long a PBFT replica that came back during the load may take to catch up ({@link ReplicaCatchUp}). */
    static final Duration CATCH_UP = Duration.ofSeconds(120);
    /** The failure that no operation completed. */
    static final String NONE_COMPLETED = "operations: none completed";
    /** What the failure of the campaign's own steps (load, heal, settle) starts with. */
    static final String CAMPAIGN_FAILURE = "campaign: ";
    /** Violations quoted in the report. */
    static final int VIOLATIONS_SHOWN = 3;

    private ChaosCampaign() {
    }

    /**
     * The failure detector's timeout of {@code cluster}: Ring Paxos suspect ticks × tick, Ratis' election timeout, or
     * PBFT's request timeout (ticks × the replica's tick) before a view change.
     */
    static long detectorMillis(ClusterDescriptor cluster) {
        return switch (cluster.ordering()) {
            case RATIS -> RATIS_ELECTION_MILLIS;
            case PBFT -> cluster.pbft().config().requestTimeoutTicks()
                    * TimeUnit.NANOSECONDS.toMillis(PbftReplicaNode.Settings.defaults().tickNanos());
            default -> (long) cluster.ringPaxosConfig().suspectTicks() * cluster.settings().tickMillis();
        };
    }

    /** How long the replicas of {@code cluster} may take to converge after the heal. */
    static Duration settle(ClusterDescriptor cluster) {
        return cluster.ordering() == OrderingProtocol.PBFT ? PBFT_SETTLE : SETTLE;
    }

    /** The schedule {@code options} give on {@code cluster}: a function of the seed and the membership only. */
    static FaultSchedule schedule(ClusterDescriptor cluster, FaultTargets targets, ChaosOptions options) {
        int maxDown = options.maxDown() > 0 ? options.maxDown() : Integer.MAX_VALUE;
        return FaultSchedule.generate(options.seed(), targets, ScheduleSettings.defaults(options.duration().toMillis(),
                options.kinds(), options.restart(), maxDown, detectorMillis(cluster)).withBeyondF(options.beyondF()));
    }

    /**
     * Runs the campaign; prints the seed and the schedule to {@code progress} first.
     *
     * @throws IllegalStateException if no node of the cluster can be faulted, or no replica is alive
     */
    public static ChaosReport run(ClusterLauncher launcher, ChaosOptions options, PrintWriter progress) throws Exception {
        ClusterDescriptor cluster = launcher.directory().read();
        Map<String, String> faultyAtStart = FaultTargets.faultyAtStart(cluster);
        FaultTargets targets = FaultTargets.of(cluster, launcher::restartRefusal, faultyAtStart);
        if (options.kinds().stream().anyMatch(FaultKind::network) && launcher.links().isEmpty()) {
            throw new IllegalStateException("network faults need a cluster behind links; " + launcher.directory().path()
                    + " has none (start it with ./psmr cluster start --links)");
        }
        if (!targets.any()) {
            throw new IllegalStateException("nothing in the cluster in " + launcher.directory().path()
                    + " can be faulted without losing a majority or a node that cannot be restarted: "
                    + String.join("; ", targets.describe()));
        }
        FaultSchedule schedule = schedule(cluster, targets, options);
        progress.printf(Locale.ROOT, "chaos: seed %d; %d faults planned over %d s (detector timeout %d ms)%s%n", options.seed(),
                schedule.faults().size(), options.duration().toSeconds(), detectorMillis(cluster), options.beyondF()
                        ? "; beyond f: " + String.join("; ", FaultSchedule.bounds(targets, true).describe())
                        + " (Byzantine ones at most f), safety alone is checked" : "");
        schedule.faults().forEach(f -> progress.println("  " + f));
        progress.flush();

        boolean pbft = cluster.ordering() == OrderingProtocol.PBFT;
        Nemesis nemesis = new Nemesis(launcher, schedule, options.duration().toMillis() - ScheduleSettings.TAIL_MILLIS,
                pbft ? PBFT_RESTART_TIMEOUT : RESTART_TIMEOUT, pbft ? CATCH_UP : null);
        Duration settle = settle(cluster);
        List<OpRecord> history = new ArrayList<>();
        AtomicLong t0 = new AtomicLong();
        AtomicBoolean started = new AtomicBoolean();
        AtomicLong loadEnd = new AtomicLong();
        Map<String, String> finalState = new HashMap<>();
        List<String> failures = new ArrayList<>();
        List<String> digests = new ArrayList<>();
        JsonLinesHistory file = options.history() == null ? null : new JsonLinesHistory(options.history());
        HistorySink sink = op -> {
            if (started.compareAndSet(false, true)) {
                t0.set(op.invokeNs()); // the clients' start, within the first operation's latency
                nemesis.start(op.invokeNs());
            }
            synchronized (history) {
                history.add(op);
            }
            if (file != null) {
                file.record(op);
            }
        };
        List<InjectedFault> faults = null;
        AtomicBoolean stalled = new AtomicBoolean();
        int minorityClients = minorityClients(launcher, options);
        int majorityClients = options.clients() - minorityClients;
        List<OpRecord> minorityOps = new ArrayList<>();
        MinorityLoad minorityLoad = minorityClients == 0 ? null : new MinorityLoad(launcher, loadOptions(cluster, options,
                minorityClients, options.seed() + 1), op -> {
                    OpRecord r = new OpRecord(op.client() + majorityClients, op.clientId(), op.op(), op.keys(), op.values(),
                            op.invokeNs(), op.completeNs(), op.status(), op.output(), op.error(), op.detail(), op.initial());
                    synchronized (minorityOps) {
                        minorityOps.add(r);
                    }
                    sink.record(r);
                });
        if (minorityLoad != null) {
            progress.printf(Locale.ROOT, "chaos: %d of %d clients dial through the links of %s and go with the minority"
                    + " side of each partition%n", minorityClients, options.clients(), LinkTable.CLIENTS_MINORITY);
            progress.flush();
            minorityLoad.start();
        }
        try {
            LoadReport report = ClusterLoad.run(launcher.directory(), loadOptions(cluster, options, majorityClients,
                    options.seed()), sink, proxy -> {
                loadEnd.set(System.nanoTime());
                List<InjectedFault> done = nemesis.finish();
                long healed = System.currentTimeMillis();
                List<String> unhealed = done.stream().filter(f -> f.healedMillis() < 0).map(InjectedFault::node).toList();
                if (!unhealed.isEmpty()) {
                    throw new IllegalStateException("could not heal " + unhealed + ": "
                            + done.stream().filter(f -> f.error() != null).map(InjectedFault::error).toList());
                }
                if (minorityLoad != null) {
                    // Its clients' last operations are answered once the partitions healed; the final reads come after.
                    try {
                        minorityLoad.await(settle);
                    } catch (IllegalStateException e) {
                        stalled.set(true);
                        throw e;
                    }
                }
                if (pbft) {
                    HealTraffic.untilLevel(proxy, launcher.directory(), settle);
                }
                try {
                    ClusterLoad.awaitSettled(launcher.directory(), healed, settle);
                } catch (IllegalStateException e) {
                    stalled.set(true);
                    throw new IllegalStateException("the replicas did not converge after the heal: " + e.getMessage(), e);
                }
                finalState.putAll(readBack(proxy, options.keys()));
            }, settle);
            correctDigests(launcher, report.digests(), faultyAtStart)
                    .forEach(d -> digests.add(String.format(Locale.ROOT, "%016x", d)));
        } catch (Exception e) {
            if (e instanceof LoadStalledException) {
                stalled.set(true);
            }
            failures.add(CAMPAIGN_FAILURE + (e.getMessage() == null ? e.toString() : e.getMessage()));
        } finally {
            faults = nemesis.finish(); // idempotent; heals what is left if the load failed early
            if (minorityLoad != null) {
                minorityLoad.stop(); // the load failed early: the minority clients are not waited for
            }
            if (file != null) {
                try {
                    file.close();
                } catch (RuntimeException e) {
                    failures.add("history: " + e.getMessage());
                }
            }
        }
        if (loadEnd.get() == 0) {
            loadEnd.set(System.nanoTime());
        }
        List<OpRecord> minority;
        synchronized (minorityOps) {
            minority = List.copyOf(minorityOps);
        }
        return report(cluster, launcher, options, targets, faultyAtStart, schedule, faults, history, t0.get(), loadEnd.get(),
                digests, failures.isEmpty() ? finalState : null, failures, stalled.get() || nemesis.stalled(),
                minorityClients, minority);
    }

    /**
     * The settled digests ({@link ClusterLoad#awaitSettled}: one per live replica, in replica order) less those of
     * replicas faulty at the start, which are not correct. The cluster no longer changes once the load is over.
     */
    private static List<Long> correctDigests(ClusterLauncher launcher, List<Long> digests, Map<String, String> faultyAtStart) {
        if (faultyAtStart.isEmpty()) {
            return digests;
        }
        List<ClusterNode> live = launcher.directory().read().replicas().stream().filter(n -> n.liveProcess().isPresent())
                .toList();
        if (live.size() != digests.size()) {
            return digests; // not one per live replica: compare them all rather than guess
        }
        List<Long> correct = new ArrayList<>();
        for (int i = 0; i < live.size(); i++) {
            if (!faultyAtStart.containsKey(live.get(i).name())) {
                correct.add(digests.get(i));
            }
        }
        return correct;
    }

    /**
     * How many of the clients go with the minority side of each partition: a quarter (at least one), if the campaign
     * has partitions that leave a minority side ({@code partition-halves}, {@code isolate-leader}), at least two clients,
     * and a cluster whose links have the minority clients' source (one started before they existed has not); else 0.
     */
    static int minorityClients(ClusterLauncher launcher, ChaosOptions options) {
        boolean partitions = options.kinds().contains(FaultKind.PARTITION_HALVES)
                || options.kinds().contains(FaultKind.ISOLATE_LEADER);
        if (!partitions || options.clients() < 2) {
            return 0;
        }
        boolean source = LinkTable.read(launcher.directory().path()).map(t -> t.hasSource(LinkTable.CLIENTS_MINORITY))
                .orElse(false);
        return source ? Math.max(1, options.clients() / 4) : 0;
    }

    private static LoadOptions loadOptions(ClusterDescriptor cluster, ChaosOptions o, int clients, long seed) {
        long perClient = (MAX_OPERATIONS + o.clients() - 1) / o.clients();
        WorkloadSpec spec = new WorkloadSpec(clients, o.keys(), 0.3, 0.15, Math.min(3, o.keys()), 24, o.duration(),
                perClient, seed);
        // Small batches and a short retry timeout: a batch lost with a killed node is proposed again within a second.
        return new LoadOptions(cluster.replicas().size(), cluster.settings().mode(), cluster.settings().workers(), 32, 4,
                Duration.ZERO, 20, Duration.ofSeconds(1), spec);
    }

    /** Reads every key through the proxy, up to 16 at a time; a failed read is an error naming the key. */
    private static Map<String, String> readBack(ClientProxy proxy, int keys) throws Exception {
        KvClient reader = proxy.newClient();
        List<CompletableFuture<KvResult>> reads = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            reads.add(reader.read(LoadGenerator.key(k))); // blocks while 16 are unanswered
        }
        Map<String, String> state = new HashMap<>();
        for (int k = 0; k < keys; k++) {
            KvResult r;
            try {
                r = reads.get(k).get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException("the final read of k" + k + " failed: "
                        + (e instanceof ExecutionException ? e.getCause().getMessage() : "no answer within " + SETTLE.toSeconds() + " s"));
            }
            if (r.status() == KvStatus.OK) {
                state.put("k" + k, new String(r.value(), StandardCharsets.ISO_8859_1));
            } else if (r.status() != KvStatus.NOT_FOUND) {
                throw new IllegalStateException("the final read of k" + k + " was answered " + r.status());
            }
        }
        return state;
    }

    private static ChaosReport report(ClusterDescriptor cluster, ClusterLauncher launcher, ChaosOptions options,
                                      FaultTargets targets, Map<String, String> faultyAtStart, FaultSchedule schedule,
                                      List<InjectedFault> faults,
                                      List<OpRecord> history, long t0, long end, List<String> digests,
                                      Map<String, String> finalState, List<String> failures, boolean stalled,
                                      int minorityClients, List<OpRecord> minorityOps) {
        List<OpRecord> ops;
        synchronized (history) {
            ops = List.copyOf(history);
        }
        long ok = 0;
        long failed = 0;
        long unknown = 0;
        long[] completions = new long[ops.size()];
        long[] majority = new long[ops.size()]; // completions of the clients on the majority side of every partition
        int n = 0;
        int m = 0;
        int majorityClients = options.clients() - minorityClients;
        for (OpRecord r : ops) {
            if (!r.acknowledged()) {
                unknown++;
            } else if (r.status() == KvStatus.REJECTED || r.status() == KvStatus.TOO_LARGE || r.status() == KvStatus.MALFORMED) {
                failed++;
            } else {
                ok++;
                completions[n++] = r.completeNs();
                if (r.client() <= majorityClients) {
                    majority[m++] = r.completeNs();
                }
            }
        }
        List<ChaosReport.Window> windows = ops.isEmpty() ? List.of()
                : Unavailability.windows(java.util.Arrays.copyOf(completions, n), t0, end, UNAVAILABLE_MILLIS);
        long longest = windows.stream().mapToLong(ChaosReport.Window::lengthMillis).max().orElse(0);

        for (InjectedFault f : faults) {
            if (f.error() != null) {
                failures.add("fault: " + f.error());
            }
        }
        if (faults.isEmpty()) {
            failures.add("faults: none was injected (" + schedule.faults().size() + " planned)");
        }
        if (ok == 0) {
            failures.add(NONE_COMPLETED);
        }
        int replicas = cluster.replicas().size() - faultyAtStart.size(); // the correct ones
        if (finalState != null) {
            if (digests.size() < replicas) {
                failures.add("digests: only " + digests.size() + " of " + replicas + " replicas reported one");
            } else if (digests.stream().distinct().count() > 1) {
                failures.add("digests: the replicas differ: " + digests);
            }
        }
        Boolean writesKept = null;
        Boolean linearizable = null;
        int keysChecked = 0;
        List<String> violations = new ArrayList<>();
        if (!ops.isEmpty()) {
            LinearizabilityChecker.Verdict alone = LinearizabilityChecker.check(ops, null);
            linearizable = alone.linearizable();
            keysChecked = alone.keys();
            if (!alone.linearizable()) {
                failures.add("linearizability: " + alone.violations().size() + " keys are not linearizable");
                violations.addAll(alone.violations().subList(0, Math.min(VIOLATIONS_SHOWN, alone.violations().size())));
            }
            if (finalState != null && alone.linearizable()) {
                // The same history closed by the final reads: it fails only if a read contradicts every
                // acknowledged write (and every possibly applied one) of its key, so a lost write fails it.
                LinearizabilityChecker.Verdict closed = LinearizabilityChecker.check(ops, finalState);
                writesKept = closed.linearizable();
                keysChecked = closed.keys();
                if (!closed.linearizable()) {
                    failures.add("lost writes: the final reads of " + closed.violations().size()
                            + " keys match no acknowledged or possibly applied write");
                    violations.addAll(closed.violations().subList(0, Math.min(VIOLATIONS_SHOWN, closed.violations().size())));
                }
            }
        }
        List<String> kinds = new ArrayList<>(options.kinds().stream().map(FaultKind::cliName).toList());
        if (options.restart()) {
            kinds.add("restart");
        }
        List<String> described = new ArrayList<>();
        if (cluster.ordering() != OrderingProtocol.PBFT) {
            described.addAll(targets.describe());
        } else {
            FaultGroup g = targets.groups().get(0);
            described.add("replicas " + g.nodes() + ", at most " + g.maxDown() + " faulty at once (" + FaultTargets.bound(cluster)
                    + ", Byzantine ones included, each until restarted correct and caught up)");
            if (!faultyAtStart.isEmpty()) {
                described.add("faulty at the start, left as they are and out of the checks: " + FaultTargets.list(faultyAtStart));
            }
        }
        List<ChaosReport.NetworkEffect> network = networkEffects(faults, java.util.Arrays.copyOf(majority, m), t0, end);
        List<ChaosReport.MinoritySide> sides = MinorityCheck.check(faults, minorityOps, t0);
        long acknowledgedOnMinority = sides.stream().mapToLong(ChaosReport.MinoritySide::acknowledged).sum();
        if (acknowledgedOnMinority > 0) {
            failures.add("minority side: " + acknowledgedOnMinority + " operations of clients that reached only a minority"
                    + " of the nodes were acknowledged during a partition");
        }
        if (minorityClients > 0 && sides.isEmpty() && faults.stream().anyMatch(f -> !f.minoritySide().isEmpty())) {
            failures.add("minority side: no partition that cut the minority clients off could be checked");
        }
        List<String> notes = new ArrayList<>();
        boolean noProgress = stalled || ok == 0;
        if (options.beyondF()) {
            // Safety alone: what says that the cluster made no progress is reported, and is no failure.
            List<String> liveness = failures.stream().filter(f -> f.equals(NONE_COMPLETED)
                    || (stalled && f.startsWith(CAMPAIGN_FAILURE))).toList();
            notes.addAll(liveness);
            failures.removeAll(liveness);
        }
        return new ChaosReport(options.seed(), cluster.ordering().cliName(), launcher.directory().path().toString(),
                options.duration().toMillis(), kinds, described, schedule.faults(), faults,
                new ChaosReport.Operations(ok, failed, unknown), UNAVAILABLE_MILLIS, windows, longest, digests, replicas,
                writesKept, linearizable, keysChecked, violations, failures, noProgress, network, minorityClients, sides,
                options.beyondF(), notes);
    }

    /**
     * What each healed network fault did to the clients: completions per second while it lasted over those while no
     * fault lasted, and the first completion after its heal.
     *
     * @param completions when acknowledged operations completed ({@link System#nanoTime()})
     */
    static List<ChaosReport.NetworkEffect> networkEffects(List<InjectedFault> faults, long[] completions, long t0,
                                                           long end) {
        long[] done = completions.clone();
        java.util.Arrays.sort(done);
        List<long[]> windows = new ArrayList<>(); // nanoTime [from, to] of every fault
        for (InjectedFault f : faults) {
            long to = f.healedMillis() >= 0 ? t0 + TimeUnit.MILLISECONDS.toNanos(f.healedMillis()) : end;
            windows.add(new long[] {t0 + TimeUnit.MILLISECONDS.toNanos(f.atMillis()), to});
        }
        long faultFreeNanos = end - t0 - union(windows, t0, end);
        long faultFree = java.util.Arrays.stream(done).filter(c -> windows.stream().noneMatch(w -> c >= w[0] && c <= w[1]))
                .count();
        double baseline = faultFreeNanos <= 0 ? 0 : faultFree / (double) faultFreeNanos;
        List<ChaosReport.NetworkEffect> effects = new ArrayList<>();
        for (InjectedFault f : faults) {
            if (!f.kind().network() || f.healedMillis() < 0 || f.healedMillis() <= f.atMillis()) {
                continue;
            }
            long from = t0 + TimeUnit.MILLISECONDS.toNanos(f.atMillis());
            long to = t0 + TimeUnit.MILLISECONDS.toNanos(f.healedMillis());
            long during = java.util.Arrays.stream(done).filter(c -> c >= from && c <= to).count();
            double rate = during / (double) (to - from);
            long after = java.util.Arrays.stream(done).filter(c -> c >= to).findFirst().orElse(-1);
            effects.add(new ChaosReport.NetworkEffect(f.kind().cliName(), f.detail(), f.atMillis(), f.healedMillis(),
                    baseline == 0 ? 0 : rate / baseline, after < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(after - to)));
        }
        return effects;
    }

    /** The length of the union of {@code windows}, clipped to [from, to]. */
    private static long union(List<long[]> windows, long from, long to) {
        List<long[]> sorted = new ArrayList<>(windows);
        sorted.sort(java.util.Comparator.comparingLong(w -> w[0]));
        long total = 0;
        long reached = from;
        for (long[] w : sorted) {
            long a = Math.max(w[0], reached);
            long b = Math.min(w[1], to);
            if (b > a) {
                total += b - a;
                reached = b;
            }
        }
        return total;
    }
}
