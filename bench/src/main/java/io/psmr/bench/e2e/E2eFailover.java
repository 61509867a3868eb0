package io.psmr.bench.e2e;

import io.psmr.bench.stats.RunStatistics;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.Replica;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.net.LoopbackRingPaxos;
import io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.bench.load.HistorySink;
import io.psmr.bench.load.LoadGenerator;
import io.psmr.bench.load.LoadOptions;
import io.psmr.bench.load.LoadRun;
import io.psmr.bench.load.LoadResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One Ring Paxos failover trial of {@code psmr bench e2e}: a fresh {@link LoopbackRingPaxos} (3
 * acceptors, one learner+proposer adapter), one {@link Replica} and a {@link ClientProxy} driven by
 * the closed-loop clients of {@link LoadGenerator} for the run's duration, exactly as a measured
 * Ring Paxos run; at half the duration the coordinator's acceptor is closed (a crash).
 *
 * <p><b>What is timed.</b> The clock ({@link System#nanoTime}) starts just before
 * {@link LoopbackRingPaxos#closeAcceptor} on the coordinator, after reading the adapter's
 * {@code lastInstance()}; it stops when a {@link FailoverProbe}, a second learner on the same
 * adapter as the replica's, is delivered the first instance beyond that one and no earlier than
 * the {@link #earliestTakeover earliest takeover} (<em>kill → first new decision</em>: the
 * {@code Accept}s the dead coordinator had sent along the ring are decided within a millisecond and
 * would otherwise be timed instead), and when {@link LoopbackRingPaxos#awaitCoordinator(int, long, TimeUnit)} sees the
 * lowest live acceptor as the sole coordinator (<em>kill → new coordinator</em>; it is signalled from
 * the acceptors' ticks, so it is up to one tick late). The first is bounded below by the second
 * (suspect timeout, then the successor's Phase 1) and, when the proposals outstanding at the kill
 * were still with the dead coordinator, by the proposer's retry ({@code proposerRetryTicks}): until a
 * proposer resends to a live acceptor, the new coordinator has nothing new to decide. The half-duration point is a timed wait on a
 * latch that an aborted run counts down, not a sleep: the trial is about time, and half the
 * duration leaves the other half for the clients to drive the new coordinator.
 *
 * <p><b>Limitation.</b> The earliest takeover separates the dead coordinator's decisions from the
 * new one's by time only (see {@link FailoverProbe}): on a loaded machine a decision of the dead
 * coordinator delivered after it is counted as the first new one, and <em>kill → first new
 * decision</em> is then too short. A value below <em>kill → new coordinator</em> minus one tick is
 * certainly such a miscount.
 *
 * <p><b>Checks.</b> Those of every run ({@link E2eBench#checkRun}): every operation answered with a
 * non-error status, no batch timed out or refused, the replica did not stop; and the coordinator
 * was replaced and a new decision delivered within {@link E2eBench#QUIESCE_SECONDS}.
 *
 * <p>Not thread-safe: one trial at a time, from one thread (it starts the killing thread itself).
 */
final class E2eFailover {

    /** What one trial measured, in nanoseconds, and the configuration of its cluster (for its timeouts). */
    record Sample(long killToDecisionNanos, long killToCoordinatorNanos, long drained, int killed, int successor,
                  RingPaxosConfig config) {
    }

    /**
     * The earliest a new coordinator can decide anything after the old one stops: a survivor suspects an acceptor
     * after {@code suspectTicks} ticks without a message from it, and may have last heard it a heartbeat interval
     * before the kill, one tick phase earlier still. Decisions delivered before it are the killed coordinator's
     * in-flight ones.
     */
    static Duration earliestTakeover(RingPaxosConfig c) {
        long ticks = Math.max(0, c.suspectTicks() - c.heartbeatTicks() - 1);
        return E2eBench.RING_PAXOS_TRANSPORT.tickInterval().multipliedBy(ticks);
    }

    private E2eFailover() {
    }

    /** Runs one trial of {@code o}'s workload and checks it. @throws IllegalStateException if a check fails */
    static Sample trial(LoadOptions o, ReplicaConfig rc, ProxyConfig pc, Duration duration) throws InterruptedException {
        LocalReplyRouter router = new LocalReplyRouter();
        try (LoopbackRingPaxos rp = LoopbackRingPaxos.start(3, 1, E2eBench.RING_PAXOS_TRANSPORT)) {
            // As the measured runs: the clients start on a cluster that has elected its first coordinator.
            require(rp.awaitCoordinator(E2eBench.QUIESCE_SECONDS, TimeUnit.SECONDS) >= 0,
                    "no coordinator within " + E2eBench.QUIESCE_SECONDS + " s of the start");
            RingPaxosBroadcast adapter = rp.broadcast(0);
            Replica replica = Replica.start(rc.toBuilder().replicaId(1).build(), adapter, router);
            try {
                FailoverProbe probe = new FailoverProbe();
                Kill kill = new Kill(rp, adapter, probe, duration.dividedBy(2));
                Thread killer = new Thread(kill, "e2e-failover-kill");
                killer.setDaemon(true); // if the clients fail, their error is thrown without waiting out the killer's timeouts
                LoadResult r;
                try (Subscription probed = adapter.subscribe(adapter.lastInstance() + 1, probe);
                     ClientProxy proxy = ClientProxy.start(pc, rp.proposing(), router, LoadRun.hotKeys(o, pc))) {
                    killer.start();
                    try {
                        r = LoadGenerator.run(proxy, o.workload(), HistorySink.NONE);
                    } finally {
                        kill.abort.countDown(); // a failed run must not leave the killer waiting out its timeouts
                    }
                    // Joined without a limit: every wait of the killer has its own timeout.
                    killer.join();
                    kill.rethrow();
                    if (!replica.awaitApplied(adapter.lastInstance(), E2eBench.QUIESCE_SECONDS, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("e2e failover trial failed: the replica did not apply every "
                                + "ordered batch within " + E2eBench.QUIESCE_SECONDS + " s of the clients stopping");
                    }
                    E2eBench.checkRun("the failover trial", r, proxy.stats(), replica);
                }
                return kill.sample.get();
            } finally {
                replica.close(); // before the cluster: subscribers first
            }
        }
    }

    /** The killing thread's duty: wait half the run, close the coordinator, time the takeover. */
    private static final class Kill implements Runnable {
        final CountDownLatch abort = new CountDownLatch(1);
        final AtomicReference<Sample> sample = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final LoopbackRingPaxos rp;
        private final RingPaxosBroadcast adapter;
        private final FailoverProbe probe;
        private final Duration delay;

        Kill(LoopbackRingPaxos rp, RingPaxosBroadcast adapter, FailoverProbe probe, Duration delay) {
            this.rp = rp;
            this.adapter = adapter;
            this.probe = probe;
            this.delay = delay;
        }

        @Override
        public void run() {
            try {
                if (abort.await(delay.toNanos(), TimeUnit.NANOSECONDS)) {
                    return; // the clients failed first; their error is the one reported
                }
                // The sole coordinator now: under load a follower may hold the role for a while.
                int killed = rp.awaitCoordinator(-1, E2eBench.QUIESCE_SECONDS, TimeUnit.SECONDS);
                require(killed >= 0, "no sole coordinator to kill within " + E2eBench.QUIESCE_SECONDS + " s");
                long before = adapter.lastInstance();
                long t0 = System.nanoTime();
                probe.arm(before, t0 + earliestTakeover(rp.config()).toNanos());
                rp.closeAcceptor(killed);
                // The coordinator is the lowest acceptor id nobody suspects: the lowest live one.
                int successor = rp.liveAcceptors().get(0);
                int got = rp.awaitCoordinator(successor, E2eBench.QUIESCE_SECONDS, TimeUnit.SECONDS);
                long coordinated = System.nanoTime();
                require(got == successor, "acceptor " + successor + " did not become the sole coordinator within "
                        + E2eBench.QUIESCE_SECONDS + " s of closing acceptor " + killed);
                require(probe.awaitFirst(E2eBench.QUIESCE_SECONDS, TimeUnit.SECONDS), "no new decision (beyond instance "
                        + before + ") was delivered within " + E2eBench.QUIESCE_SECONDS + " s of closing acceptor " + killed);
                sample.set(new Sample(probe.firstNanos() - t0, coordinated - t0, probe.drained(), killed, successor, rp.config()));
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        void rethrow() {
            Throwable t = failure.get();
            if (t instanceof IllegalStateException e) {
                throw e;
            }
            if (t != null) {
                throw new IllegalStateException("e2e failover trial failed: " + t, t);
            }
            require(sample.get() != null, "the coordinator was not killed: the clients stopped first");
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException("e2e failover trial failed: " + message);
        }
    }

    /** Medians with min and max of {@code samples} (at least one), in milliseconds, with the timeouts that dominate them. */
    static E2eFailoverResult summarise(List<Sample> samples) {
        RunStatistics decision = RunStatistics.of(samples, s -> s.killToDecisionNanos() / 1e6);
        RunStatistics coordinator = RunStatistics.of(samples, s -> s.killToCoordinatorNanos() / 1e6);
        RingPaxosConfig c = samples.get(0).config();
        return new E2eFailoverResult(samples.size(), decision.median(), decision.min(), decision.max(),
                coordinator.median(), coordinator.min(), coordinator.max(),
                RunStatistics.of(samples, Sample::drained).median(),
                E2eBench.RING_PAXOS_TRANSPORT.tickInterval().toMillis(), c.heartbeatTicks(), c.suspectTicks(),
                c.proposerRetryTicks(), earliestTakeover(c).toMillis());
    }
}
