package io.psmr.kvstore.pbft;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.SessionTable;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.pbft.net.PbftProposerClient;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.SummaryBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * What {@code cluster stop} does first in a PBFT cluster whose replicas executed instances after their last
 * checkpoint (PBFT replicas keep their log in memory, and a stopped cluster resumes from checkpoints): it brings every
 * replica to the next checkpoint instance and waits until 2f+1 replicas hold a checkpoint there, so that stopping
 * loses no acknowledged write.
 *
 * <h2>How</h2>
 * A PBFT replica checkpoints at every multiple of {@code pbft.checkpointInterval}, and that checkpoint is the PBFT
 * checkpoint certified at the sequence number that delivered the instance, the same on every correct replica
 * ({@link PbftCheckpoints}). So the stop needs no new kind of checkpoint: it orders instances of its own until the
 * next multiple b. It opens a store session (one proposal, ordered at instance a: every instance the cluster ordered
 * before is below a) and then proposes b − a reads of one key under that session, one instance each (a read changes
 * no key); b is the first multiple of the interval at or above a. Every correct replica then executes exactly up to
 * b and takes its usual checkpoint at b. The stop then waits until every live replica holds checkpoint b, or, once
 * 2f+1 do, a few seconds more for the others. The instances the entry replica answers only steer the count; whether
 * the stop may go on is decided by what the replicas' own status and checkpoint files show.
 *
 * <h2>Refusals</h2>
 * It gives up, saying why, when fewer than 2f+1 replicas serve, when a request of its own is not ordered in time, when
 * the cluster orders instances for another client meanwhile (a load still running: b would no longer be the last
 * instance), or when fewer than 2f+1 replicas hold checkpoint b at the deadline (naming each replica with its
 * executed instance and newest checkpoint). Nothing is lost by a refusal: the stop can be run again.
 *
 * <p><b>Threads.</b> {@link #run} blocks its caller up to about the timeout plus one request timeout; it reads node
 * status and checkpoint directories from this machine only (a replica on another host is not counted).
 */
public final class PbftStopCheckpoint {

    /** How long one of the stop's requests may stay unanswered. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** How long the stop waits for the replicas that lag once 2f+1 hold the checkpoint. */
    static final Duration LAGGARD_GRACE = Duration.ofSeconds(5);
    /** The key the stop reads. */
    static final byte[] KEY = "psmr-stop".getBytes(StandardCharsets.US_ASCII);
    private static final long POLL_MILLIS = 100;
    private static final long PROGRESS_MILLIS = 1_000;

    /**
     * What the stop's checkpoint came to.
     *
     * @param instance the checkpoint instance the stop aimed at (0 if it got no instance ordered)
     * @param holding  the replicas that hold the checkpoint at {@code instance}
     * @param refusal  why the stop must not go on, or null if 2f+1 replicas hold the checkpoint
     * @param note     what the caller should know besides (replicas that lag), or null
     */
    public record Outcome(long instance, List<String> holding, String refusal, String note) {

        /** Whether 2f+1 replicas hold the checkpoint at {@link #instance()}. */
        public boolean agreed() {
            return refusal == null;
        }
    }

    /** One replica as the wait sees it: its executed instance (from its status) and its newest checkpoint. */
    record Replica(String name, boolean serving, long instance, long checkpoint) {

        boolean holds(long target) {
            return serving && checkpoint >= target && instance <= checkpoint;
        }

        String describe() {
            return name + " (" + (serving ? "executed " + instance : "not serving") + ", newest checkpoint " + checkpoint + ")";
        }
    }

    private PbftStopCheckpoint() {
    }

    /** The first checkpoint instance at or above {@code instance}: the next multiple of {@code interval}. */
    static long target(long instance, long interval) {
        if (instance < 1 || interval < 1) {
            throw new IllegalArgumentException("instance and interval must be positive, got " + instance + " and " + interval);
        }
        return (instance + interval - 1) / interval * interval;
    }

    /**
     * Orders instances up to the next checkpoint and waits for 2f+1 replicas to hold it.
     *
     * @param launcher the cluster
     * @param timeout  how long to wait for the checkpoint once its instance is ordered
     * @param progress receives a line now and then while it waits
     * @throws IllegalArgumentException if the cluster is not ordered by PBFT
     */
    public static Outcome run(ClusterLauncher launcher, Duration timeout, Consumer<String> progress)
            throws InterruptedException {
        ClusterDescriptor cluster = launcher.directory().read();
        if (cluster.ordering() != OrderingProtocol.PBFT) {
            throw new IllegalArgumentException("only a pbft cluster agrees a checkpoint before it stops; this one is ordered by "
                    + cluster.ordering().cliName());
        }
        int quorum = 2 * cluster.pbft().f() + 1;
        List<Replica> now = replicas(launcher, cluster);
        List<Replica> serving = now.stream().filter(Replica::serving).toList();
        if (serving.size() < quorum) {
            return new Outcome(0, List.of(), "only " + serving.size() + " of " + cluster.replicas().size()
                    + " replicas serve here, and ordering the stop's checkpoint needs 2f+1 = " + quorum + ": "
                    + describe(now), null);
        }
        long proxyId = launcher.directory().nextSession(); // as a load's proxy: its client ids are new
        ReplicaConfig store = cluster.settings().replicaConfig(1);
        ConflictDetection detection = store.detection();
        // In flight at most: the session's reply-cache window, so that no read is refused as stale (harmless, but noise).
        int window = store.replyCacheWindow();
        long target;
        // Enters at the first replica that serves; waits REQUEST_TIMEOUT for an answer (on 2 busy cores the default 2 s
        // can pass while the cluster still orders, and an unanswered read leaves the count of instances unknown).
        int entry = cluster.replicas().stream().map(ClusterNode::name).toList().indexOf(serving.get(0).name());
        try (OrderingClient client = PbftProposerClient.start(cluster.proposalAddresses(), entry,
                PbftProposerClient.Config.defaults(cluster.pbft().config().maxRequestBytes()).withAckTimeout(REQUEST_TIMEOUT)
                        .withSecurity(ClusterTlsFiles.forClient(launcher.directory().path(), cluster, null)))) {
            client.start();
            long clientId = proxyId << 32 | 1;
            long opened;
            try {
                opened = await(client.propose(batch(proxyId, 1, KvCommand.openSession(clientId, 1), detection)), 1);
            } catch (IOException e) {
                return new Outcome(0, List.of(), e.getMessage(), null);
            }
            target = target(opened, cluster.pbft().checkpointInterval());
            progress.accept(target == opened ? "the stop's session opened at instance " + target + ", where every replica"
                    + " checkpoints" : "ordering instances " + (opened + 1) + " to " + target + " (reads) so that every"
                    + " replica checkpoints at " + target);
            long session = SessionTable.sessionId(opened, 0);
            // The reads are the stop's requests 2, 3, ...: read r has session sequence number r - 1.
            Deque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
            long reads = target - opened;
            long sent = 0;
            long answered = 0;
            long last = opened;
            try {
                while (answered < reads) {
                    while (sent < reads && inFlight.size() < window) {
                        sent++;
                        inFlight.add(client.propose(batch(proxyId, sent + 1, KvCommand.read(session, sent, KEY), detection)));
                    }
                    answered++;
                    long got = await(inFlight.poll(), answered + 1);
                    last = Math.max(last, got);
                    if (got > target) {
                        return new Outcome(target, List.of(), "instance " + got + " was ordered while the stop aimed at"
                                + " checkpoint " + target + ": another client still proposes (stop the load first)", null);
                    }
                }
            } catch (IOException e) {
                return new Outcome(target, List.of(), e.getMessage(), null);
            }
            if (last != target) {
                return new Outcome(target, List.of(), "the stop's requests were ordered up to instance " + last
                        + ", not " + target, null);
            }
        }
        return await(launcher, cluster, target, quorum, timeout, progress);
    }

    /** Waits until every serving replica holds {@code target}, or 2f+1 do and the grace passed, or the deadline. */
    private static Outcome await(ClusterLauncher launcher, ClusterDescriptor cluster, long target, int quorum,
                                 Duration timeout, Consumer<String> progress) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long quorumSince = 0;
        long reported = 0;
        while (true) {
            List<Replica> now = replicas(launcher, cluster);
            List<String> holding = now.stream().filter(r -> r.holds(target)).map(Replica::name).toList();
            List<Replica> lagging = now.stream().filter(r -> !r.holds(target)).toList();
            long t = System.nanoTime();
            if (holding.size() >= quorum && quorumSince == 0) {
                quorumSince = t;
            }
            boolean graceOver = quorumSince != 0 && t - quorumSince >= LAGGARD_GRACE.toNanos();
            if (holding.size() >= quorum && (lagging.stream().noneMatch(Replica::serving) || graceOver || t >= deadline)) {
                return new Outcome(target, holding, null, lagging.isEmpty() ? null : "without checkpoint " + target + ": "
                        + describe(lagging) + "; a replica behind it catches up by state transfer after the restart,"
                        + " once the cluster certifies a newer checkpoint");
            }
            if (t >= deadline) {
                return new Outcome(target, holding, "only " + holding.size() + " replicas hold checkpoint " + target
                        + " after " + timeout.toSeconds() + " s, and 2f+1 = " + quorum + " must: "
                        + (holding.isEmpty() ? "" : String.join(", ", holding) + " do; ") + "not " + describe(lagging), null);
            }
            if (t - reported >= TimeUnit.MILLISECONDS.toNanos(PROGRESS_MILLIS)) {
                reported = t;
                progress.accept("checkpoint " + target + ": held by " + (holding.isEmpty() ? "none yet"
                        : String.join(", ", holding)) + "; waiting for " + describe(lagging));
            }
            Thread.sleep(POLL_MILLIS); // polling status files and checkpoint directories: nothing to wait on
        }
    }

    /** The cluster's replicas on this machine: serving (live, status says so) or not, their instance and checkpoint. */
    static List<Replica> replicas(ClusterLauncher launcher, ClusterDescriptor cluster) {
        List<Replica> out = new ArrayList<>();
        java.util.Set<String> replicaNames = new java.util.HashSet<>(cluster.replicas().stream().map(ClusterNode::name).toList());
        for (ClusterLauncher.NodeView v : launcher.status()) {
            ClusterNode n = v.node();
            if (!replicaNames.contains(n.name())) {
                continue;
            }
            NodeStatus s = v.status();
            boolean serving = v.alive() && s != null && s.serving() && s.failure() == null;
            long checkpoint;
            try {
                checkpoint = CheckpointStore.latestIn(launcher.directory().dataDir(n.name()).resolve("checkpoints")).orElse(0);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the checkpoints of " + n.name(), e);
            }
            out.add(new Replica(n.name(), serving, s == null ? 0 : s.instance(), checkpoint));
        }
        return out;
    }

    private static String describe(List<Replica> replicas) {
        return String.join(", ", replicas.stream().map(Replica::describe).toList());
    }

    private static byte[] batch(long proxyId, long batchId, KvCommand command, ConflictDetection detection) {
        return KvCodec.encodeBatch(proxyId, batchId, List.of(command), SummaryBuilder.summarize(detection, List.of(command)));
    }

    /**
     * The instance a proposal was ordered at.
     *
     * @throws IOException saying which of the stop's requests was not ordered in time, or refused
     */
    private static long await(CompletableFuture<Long> f, long request) throws IOException, InterruptedException {
        Objects.requireNonNull(f, "future");
        try {
            long instance = f.get(REQUEST_TIMEOUT.toMillis() + 5_000, TimeUnit.MILLISECONDS); // the client times out first
            if (instance == OrderingClient.UNKNOWN_INSTANCE) {
                throw new IOException("the stop's request " + request + " was ordered at an instance the entry replica did"
                        + " not say");
            }
            return instance;
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new IOException("the stop's request " + request + " was not ordered within " + REQUEST_TIMEOUT.toSeconds()
                    + " s");
        } catch (ExecutionException e) {
            throw new IOException("the stop's request " + request + " was not ordered: " + e.getCause().getMessage(), e);
        }
    }
}
