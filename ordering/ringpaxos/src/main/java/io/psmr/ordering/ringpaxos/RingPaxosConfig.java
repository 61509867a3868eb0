package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The membership and the tunables of a Ring Paxos cluster. Every node must be given the same
 * configuration. Times are in ticks: the host decides how long a tick is.
 *
 * <p>Timeouts matter for liveness only. A too-short {@code suspectTicks} makes coordinators change
 * needlessly; it never makes two learners disagree.
 *
 * @param acceptors          acceptor ids, 2f+1 of them (an odd count, at least 1); the coordinator is one of them
 * @param learners           learner ids
 * @param proposers          proposer ids
 * @param window             most instances a coordinator has in flight (assigned, not yet known decided)
 * @param logCapacity        most undiscarded instances an acceptor keeps beyond its trim point; at least {@code window}
 * @param learnerBuffer      most decided instances a learner buffers ahead of its next one to deliver
 * @param coordinatorQueue   most proposals a coordinator holds waiting for room in the window (beyond it, they
 *                           are dropped and their proposer retries)
 * @param proposerWindow     most proposals a proposer has outstanding, at most 64 (see {@link Proposer})
 * @param heartbeatTicks     ticks between an acceptor's heartbeats
 * @param suspectTicks       ticks of silence after which an acceptor is suspected to have crashed
 * @param retryTicks         ticks before a coordinator resends an unanswered Prepare or Accept
 * @param proposerRetryTicks ticks before a proposer resends an unacknowledged proposal
 * @param fetchTicks         ticks a learner waits at a gap before asking an acceptor again
 * @param fetchBatch         most instances one fetch asks for
 * @param reportTicks        ticks between a learner's reports of its safe instance
 * @param learnerSilenceTicks ticks after which an acceptor leaves a learner out of its trim point: a learner not
 *                           heard from for longer is presumed dead; and while the log is full, a learner whose
 *                           report has not advanced for longer although another live learner reported further is
 *                           presumed stuck (see {@link AcceptorNode}). Must exceed {@code reportTicks}.
 */
public record RingPaxosConfig(List<Integer> acceptors, List<Integer> learners, List<Integer> proposers,
                              int window, int logCapacity, int learnerBuffer, int coordinatorQueue,
                              int proposerWindow, int heartbeatTicks, int suspectTicks, int retryTicks,
                              int proposerRetryTicks, int fetchTicks, int fetchBatch, int reportTicks,
                              int learnerSilenceTicks) {

    /** The default {@link #learnerSilenceTicks()}: 3 s at the runtime's default 10 ms tick. */
    public static final int DEFAULT_LEARNER_SILENCE_TICKS = 300;

    /** Validates and copies. */
    public RingPaxosConfig {
        acceptors = List.copyOf(acceptors);
        learners = List.copyOf(learners);
        proposers = List.copyOf(proposers);
        if (acceptors.isEmpty() || acceptors.size() % 2 == 0) {
            throw new IllegalArgumentException("need 2f+1 acceptors, got " + acceptors.size());
        }
        if (learners.isEmpty()) {
            throw new IllegalArgumentException("need at least one learner");
        }
        Set<Integer> ids = new HashSet<>();
        for (List<Integer> group : List.of(acceptors, learners, proposers)) {
            for (int id : group) {
                if (id < 0 || !ids.add(id)) {
                    throw new IllegalArgumentException("node ids must be distinct and non-negative: " + id);
                }
            }
        }
        if (!acceptors.equals(acceptors.stream().sorted().toList())) {
            throw new IllegalArgumentException("acceptor ids must be in increasing order: " + acceptors);
        }
        positive("window", window);
        positive("learnerBuffer", learnerBuffer);
        positive("coordinatorQueue", coordinatorQueue);
        positive("heartbeatTicks", heartbeatTicks);
        positive("retryTicks", retryTicks);
        positive("proposerRetryTicks", proposerRetryTicks);
        positive("fetchTicks", fetchTicks);
        positive("fetchBatch", fetchBatch);
        positive("reportTicks", reportTicks);
        if (logCapacity < window) {
            throw new IllegalArgumentException("logCapacity " + logCapacity + " < window " + window);
        }
        if (proposerWindow < 1 || proposerWindow > 64) {
            throw new IllegalArgumentException("proposerWindow must be in 1..64: " + proposerWindow);
        }
        if (suspectTicks <= heartbeatTicks) {
            throw new IllegalArgumentException("suspectTicks must exceed heartbeatTicks");
        }
        if (learnerSilenceTicks <= reportTicks) {
            throw new IllegalArgumentException("learnerSilenceTicks " + learnerSilenceTicks + " must exceed reportTicks "
                    + reportTicks);
        }
    }

    /** A configuration with the default {@link #learnerSilenceTicks()} ({@value #DEFAULT_LEARNER_SILENCE_TICKS}). */
    public RingPaxosConfig(List<Integer> acceptors, List<Integer> learners, List<Integer> proposers,
                           int window, int logCapacity, int learnerBuffer, int coordinatorQueue,
                           int proposerWindow, int heartbeatTicks, int suspectTicks, int retryTicks,
                           int proposerRetryTicks, int fetchTicks, int fetchBatch, int reportTicks) {
        this(acceptors, learners, proposers, window, logCapacity, learnerBuffer, coordinatorQueue, proposerWindow,
                heartbeatTicks, suspectTicks, retryTicks, proposerRetryTicks, fetchTicks, fetchBatch, reportTicks,
                DEFAULT_LEARNER_SILENCE_TICKS);
    }

    private static void positive(String name, int v) {
        if (v < 1) {
            throw new IllegalArgumentException(name + " must be positive: " + v);
        }
    }

    /**
     * A configuration with the defaults: window 64, log capacity 1,024, learner buffer 1,024,
     * coordinator queue 256, proposer window 8, heartbeat every 2 ticks, suspect after 10, retry
     * after 8, proposer retry after 20, fetch after 4, fetch batch 64, report every 5, learner silence 300.
     */
    public static RingPaxosConfig of(List<Integer> acceptors, List<Integer> learners, List<Integer> proposers) {
        return new RingPaxosConfig(acceptors, learners, proposers, 64, 1024, 1024, 256, 8, 2, 10, 8, 20, 4, 64, 5);
    }

    /**
     * Ticks between two messages that carry nothing new: an acceptor's heartbeat to a learner whose decided instance
     * and trim point it already told (acceptors still heartbeat each other every {@link #heartbeatTicks()}, for the
     * failure detector), and a learner's report of an unchanged safe instance. A third of
     * {@link #learnerSilenceTicks()}, so a quiet learner is never presumed dead, at most 50 and at least
     * {@link #reportTicks()}: 500 ms at the runtime's default 10 ms tick.
     */
    public int quietTicks() {
        return Math.max(reportTicks, Math.min(learnerSilenceTicks / 3, 50));
    }

    /** f: how many acceptors may crash, (acceptors − 1) / 2. */
    public int f() {
        return (acceptors.size() - 1) / 2;
    }

    /** The size of a quorum and of the ring, f + 1. */
    public int quorum() {
        return f() + 1;
    }

    /** Whether {@code id} is an acceptor. */
    public boolean isAcceptor(int id) {
        return acceptors.contains(id);
    }

    /** Whether {@code id} is a learner. */
    public boolean isLearner(int id) {
        return learners.contains(id);
    }

    /** A copy with other window and log capacity. */
    public RingPaxosConfig withWindow(int newWindow, int newLogCapacity) {
        return new RingPaxosConfig(acceptors, learners, proposers, newWindow, newLogCapacity, learnerBuffer,
                coordinatorQueue, proposerWindow, heartbeatTicks, suspectTicks, retryTicks, proposerRetryTicks,
                fetchTicks, fetchBatch, reportTicks, learnerSilenceTicks);
    }

    /** A copy with another {@link #learnerSilenceTicks()}. */
    public RingPaxosConfig withLearnerSilenceTicks(int ticks) {
        return new RingPaxosConfig(acceptors, learners, proposers, window, logCapacity, learnerBuffer,
                coordinatorQueue, proposerWindow, heartbeatTicks, suspectTicks, retryTicks, proposerRetryTicks,
                fetchTicks, fetchBatch, reportTicks, ticks);
    }

    /** All node ids, acceptors first. */
    public List<Integer> allNodes() {
        List<Integer> all = new ArrayList<>(acceptors);
        all.addAll(learners);
        all.addAll(proposers);
        return all;
    }
}
