package io.psmr.bench.chaos;

import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.links.LinkCondition;
import io.psmr.kvstore.cluster.links.LinkControl;
import io.psmr.kvstore.cluster.links.LinkTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Carries out a {@link FaultSchedule} against a running cluster on a thread of its own: SIGKILL
 * through {@link ClusterLauncher#kill}, restarts through {@link ClusterLauncher#restart}, pauses with
 * SIGSTOP and SIGCONT, Byzantine faults (PBFT) as a restart in the fault's mode and, to heal, a correct
 * restart ({@link ClusterLauncher#restartAs}); network faults through the cluster's links ({@link LinkControl}:
 * each sets the links it names, records them before each change, and its heal lets exactly those pass again; a
 * {@code flaky} fault's resets run on a timer thread of their own). Events run one after another in time order, heals first
 * at equal times, and a heal returns only once the node serves again, so a late restart delays the
 * next fault rather than overlapping it: the schedule's bounds hold for what really happens, and a
 * fault injected late is still healed no sooner than its planned length after it (a Byzantine one,
 * after the replica served in its mode). A fault whose turn comes after the load's last fault time
 * (the executor fell behind) is left out.
 *
 * <p>With a catch-up bound (PBFT), a heal during the load also waits until the replica has caught up
 * ({@link ReplicaCatchUp}): a replica that is behind adds nothing to a quorum, so it still counts
 * towards the f faulty at once. If it does not catch up in time, the fault carries the error, no
 * further fault is injected (the bound could no longer be kept) and {@link #stalled} says so. A heal whose
 * restart fails during the load leaves its node down, so it too ends the injecting (the final heal tries the
 * restart once more). Once the
 * load has ended, and in the final heal, it waits only for serving: with the clients stopped, the
 * campaign's settle wait checks that every replica reaches one instance.
 *
 * <p>{@link #start} and {@link #finish} are called from one thread (the campaign's); between them
 * the nemesis thread owns the launcher. A JVM shutdown (Ctrl-C) sends SIGCONT to every paused node
 * and records every Byzantine replica as correct again in cluster.json, so that its next restart is.
 */
final class Nemesis {

    /** How often {@code flaky} resets a random link. */
    static final long FLAKY_PERIOD_MILLIS = 200;
    /**
     * How long {@code isolate-leader} waits for a leader when none leads as it strikes: a Ring Paxos coordinator or a
     * Ratis leader elected after the previous fault's heal takes a few seconds on a loaded machine.
     */
    static final Duration LEADER_WAIT = Duration.ofSeconds(15);

    private final ClusterLauncher launcher;
    private final FaultSchedule schedule;
    private final long lastInjectMillis;
    private final Duration restartTimeout;
    private final Duration catchUp;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final List<Active> log = new ArrayList<>(); // guarded by this
    private final Thread shutdownHook = new Thread(this::resumePaused, "psmr-chaos-resume");
    private Thread thread;
    private long t0Nanos;
    private volatile boolean stalled;
    /** A heal failed during the load: its node is still faulty, so injecting more could exceed the bound. */
    private volatile boolean healFailed;
    /** The cluster's links, for network faults; null on a cluster without them. */
    private final LinkControl links;
    private final ScheduledExecutorService flakiness;

    /** One fault being carried out. */
    private static final class Active {
        final PlannedFault plan;
        final long atMillis;
        /** When a Byzantine replica served in its mode, or -1: its planned length counts from then. */
        long servingMillis = -1;
        long pid = -1;
        long healedMillis = -1;
        boolean healedAtEnd;
        String error;
        /** The node a network fault struck (isolate-leader: the leader then), else the plan's. */
        String node;
        String detail;
        /** The links a network fault set, {from, to}: its heal lets them pass again. */
        List<String[]> links = List.of();
        ScheduledFuture<?> resets;
        /** The nodes the minority clients still reach in a partition that cut them off with its minority side. */
        List<String> minoritySide = List.of();
        /** When a network fault's links were set, and when its heal began ({@link System#nanoTime()}), or 0. */
        long cutNanos;
        long healingNanos;

        Active(PlannedFault plan, long atMillis) {
            this.plan = plan;
            this.atMillis = atMillis;
            this.node = plan.node();
        }
    }

    private record Event(long atMillis, boolean heal, PlannedFault fault) {
    }

    /**
     * @param lastInjectMillis no fault is injected later than this, from the start of the load
     * @param restartTimeout   how long a restarted node may take to serve
     * @param catchUp          how long a healed PBFT replica may take to catch up during the load, or null not to
     *                         wait for it (the other orderings)
     */
    Nemesis(ClusterLauncher launcher, FaultSchedule schedule, long lastInjectMillis, Duration restartTimeout,
            Duration catchUp) {
        this.launcher = launcher;
        this.schedule = schedule;
        this.lastInjectMillis = lastInjectMillis;
        this.restartTimeout = restartTimeout;
        this.catchUp = catchUp;
        this.links = launcher.links().map(LinkControl::new).orElse(null);
        this.flakiness = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "psmr-chaos-flaky");
            th.setDaemon(true);
            return th;
        });
    }

    /** Whether a healed replica did not catch up in time during the load (liveness). */
    boolean stalled() {
        return stalled;
    }

    /** Starts the schedule, its time 0 being {@code t0Nanos} ({@link System#nanoTime()}). */
    synchronized void start(long t0Nanos) {
        if (thread != null) {
            return;
        }
        this.t0Nanos = t0Nanos;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        thread = new Thread(this::runSchedule, "psmr-chaos-nemesis");
        thread.setDaemon(true);
        thread.start();
    }

    /** Milliseconds since time 0. */
    long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0Nanos);
    }

    private void runSchedule() {
        List<Event> events = new ArrayList<>();
        for (PlannedFault f : schedule.faults()) {
            events.add(new Event(f.atMillis(), false, f));
            if (!f.atEnd()) {
                events.add(new Event(f.healAtMillis(), true, f));
            }
        }
        events.sort(Comparator.comparingLong(Event::atMillis).thenComparing(e -> e.heal() ? 0 : 1));
        try {
            for (Event e : events) {
                Active a = e.heal() ? find(e.fault()) : null;
                if (e.heal() && a == null) {
                    continue; // its fault was left out
                }
                // A fault injected late (a restart before it took long) still lasts its planned length; a Byzantine
                // one from when the replica serves in its mode, so that a slow restart does not eat its time.
                long from = a == null ? 0 : a.servingMillis >= 0 ? a.servingMillis : a.atMillis;
                long due = e.heal() ? Math.max(e.atMillis(), from + e.fault().healAtMillis() - e.fault().atMillis())
                        : e.atMillis();
                long wait = due - elapsedMillis();
                if (wait > 0 && stop.await(wait, TimeUnit.MILLISECONDS)) {
                    return; // the load ended early; the final heal undoes what is left
                }
                if (stop.getCount() == 0) {
                    return;
                }
                if (e.heal()) {
                    heal(a, false);
                    if (stalled || healFailed) {
                        return; // a replica that is down or did not catch up still counts as faulty: inject nothing more
                    }
                } else if (elapsedMillis() <= lastInjectMillis) {
                    inject(e.fault());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private synchronized Active find(PlannedFault f) {
        return log.stream().filter(a -> a.plan == f).findFirst().orElse(null);
    }

    private void inject(PlannedFault f) throws InterruptedException {
        Active a = new Active(f, elapsedMillis());
        try {
            if (f.kind().network()) {
                synchronized (this) {
                    log.add(a); // before the links change: its heal undoes what was set, even after an error
                }
                try {
                    // A leader may be between terms when the fault strikes (just after a heal): wait for one, bounded.
                    String leader = f.kind() == FaultKind.ISOLATE_LEADER ? launcher.awaitLeader(LEADER_WAIT) : null;
                    injectNetwork(a, leader);
                } catch (RuntimeException e) {
                    synchronized (this) {
                        a.error = "injecting " + f.kindName() + " on " + f.target() + ": " + e.getMessage();
                    }
                }
                return;
            }
            if (f.kind() == FaultKind.KILL) {
                launcher.kill(f.node());
            } else if (f.kind() == FaultKind.BYZANTINE) {
                synchronized (this) {
                    log.add(a); // before the restart: cluster.json names the mode from now on, and the heal undoes it
                }
                try {
                    launcher.restartAs(f.node(), Optional.of(f.mode()), restartTimeout);
                    synchronized (this) {
                        a.servingMillis = elapsedMillis();
                    }
                } catch (RuntimeException e) {
                    synchronized (this) {
                        a.error = "injecting byzantine " + f.mode().cliName() + " on " + f.node() + ": " + e.getMessage();
                    }
                }
                return;
            } else {
                ClusterNode n = launcher.directory().read().node(f.node()).orElseThrow();
                long pid = n.liveProcess().orElseThrow(() -> new IllegalStateException("node " + f.node() + " is not running"))
                        .pid();
                synchronized (this) {
                    a.pid = pid; // before the signal, so that a shutdown now still resumes it
                    log.add(a);
                }
                ProcessSignals.stop(pid);
                return;
            }
        } catch (RuntimeException e) {
            a.error = "injecting " + f.kind().cliName() + " of " + f.node() + ": " + e.getMessage();
            a.healedMillis = a.atMillis; // nothing to heal
        }
        synchronized (this) {
            log.add(a);
        }
    }

    private void heal(Active a, boolean atEnd) throws InterruptedException {
        if (a.healedMillis >= 0) {
            return;
        }
        long cameBack;
        try {
            if (a.plan.kind().network()) {
                healNetwork(a);
                synchronized (this) {
                    a.healedMillis = elapsedMillis();
                    a.healedAtEnd = atEnd;
                }
                return;
            }
            if (a.plan.kind() == FaultKind.KILL) {
                launcher.restart(a.plan.node(), restartTimeout);
            } else if (a.plan.kind() == FaultKind.BYZANTINE) {
                launcher.restartAs(a.plan.node(), Optional.empty(), restartTimeout);
            } else {
                ProcessSignals.resume(a.pid);
            }
            cameBack = System.currentTimeMillis();
        } catch (RuntimeException e) {
            synchronized (this) {
                String failed = "healing " + a.plan.kindName() + " of " + a.plan.node() + ": " + e.getMessage();
                a.error = a.error == null ? failed : a.error + "; " + failed;
            }
            if (!atEnd) {
                healFailed = true;
            }
            return;
        }
        if (catchUp != null && !atEnd) {
            try {
                ReplicaCatchUp.await(launcher.directory(), a.plan.node(), cameBack, catchUp, () -> stop.getCount() == 0);
            } catch (RuntimeException e) {
                stalled = true;
                synchronized (this) {
                    String behind = "healing " + a.plan.kindName() + " of " + a.plan.node() + ": " + e.getMessage();
                    a.error = a.error == null ? behind : a.error + "; " + behind;
                    a.healedMillis = elapsedMillis(); // it runs (correct again), only behind
                    a.healedAtEnd = false;
                }
                return;
            }
        }
        synchronized (this) {
            a.healedMillis = elapsedMillis();
            a.healedAtEnd = atEnd;
        }
    }

    /**
     * Stops the schedule, waits for an event under way (at most a restart's timeout), then heals
     * every fault still in place: SIGCONT to paused nodes, a restart of killed ones. Returns what was
     * carried out; a fault that could not be healed has its error set.
     */
    List<InjectedFault> finish() throws InterruptedException {
        stop.countDown();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            long most = restartTimeout.toMillis() + (catchUp == null ? 0 : catchUp.toMillis()) + 30_000;
            t.join(most);
            if (t.isAlive()) {
                throw new IllegalStateException("the nemesis did not finish its last event within " + most / 1000 + " s");
            }
        }
        List<Active> open;
        synchronized (this) {
            open = log.stream().filter(a -> a.healedMillis < 0).toList();
        }
        // Links first, then pauses: a paused acceptor may be needed by a restarted one to make progress.
        for (Active a : open) {
            if (a.plan.kind().network()) {
                heal(a, true);
            }
        }
        flakiness.shutdownNow();
        for (Active a : open) {
            if (a.plan.kind() == FaultKind.PAUSE) {
                heal(a, true);
            }
        }
        for (Active a : open) {
            if (a.plan.kind() == FaultKind.KILL) {
                heal(a, true);
            }
        }
        for (Active a : open) {
            if (a.plan.kind() == FaultKind.BYZANTINE) {
                heal(a, true);
            }
        }
        if (t != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
        return faults();
    }

    /** What was carried out so far. */
    synchronized List<InjectedFault> faults() {
        return log.stream().map(a -> new InjectedFault(a.plan.kind(), a.node, a.plan.atMillis(), a.atMillis,
                a.healedMillis, a.healedAtEnd, a.error, a.plan.mode(), a.detail, a.minoritySide,
                a.cutNanos == 0 ? -1 : ceilMillis(a.cutNanos - t0Nanos),
                a.healingNanos == 0 || a.healedMillis < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(a.healingNanos - t0Nanos)))
                .toList();
    }

    private static long ceilMillis(long nanos) {
        return (nanos + 999_999) / 1_000_000;
    }

    /**
     * Sets the links of network fault {@code a}; what it set is recorded before each change, for the heal.
     *
     * @param leader the node that leads as {@code isolate-leader} strikes; null for the other faults
     */
    private void injectNetwork(Active a, String leader) {
        PlannedFault f = a.plan;
        if (links == null) {
            throw new IllegalStateException("the cluster has no links (start it with --links)");
        }
        List<LinkControl.LinkState> all = links.states();
        java.util.SplittableRandom random = new java.util.SplittableRandom(f.seed());
        switch (f.kind()) {
            case PARTITION_HALVES -> {
                // The minority clients go with the side cut off: their links to the rest are cut, to the side pass.
                Set<String> side = new HashSet<>(f.cutOff());
                side.add(LinkTable.CLIENTS_MINORITY);
                boolean minority = all.stream().anyMatch(l -> l.from().equals(LinkTable.CLIENTS_MINORITY));
                synchronized (this) {
                    a.minoritySide = minority ? f.cutOff() : List.of();
                }
                set(a, all.stream().filter(l -> side.contains(l.from()) != side.contains(l.to())).toList(),
                        LinkCondition.BLACKHOLE);
                a.detail = "cut " + f.cutOff() + (minority ? " and the minority clients" : "")
                        + " off from the rest, clients included";
            }
            case ISOLATE_LEADER -> {
                boolean minority = all.stream().anyMatch(l -> l.from().equals(LinkTable.CLIENTS_MINORITY));
                synchronized (this) {
                    a.node = leader;
                    a.minoritySide = minority ? List.of(leader) : List.of();
                }
                // The leader is cut off from every process but the minority clients, who reach only the leader.
                set(a, all.stream().filter(l -> l.from().equals(LinkTable.CLIENTS_MINORITY)
                        ? !l.to().equals(leader) : l.from().equals(leader) || l.to().equals(leader)).toList(),
                        LinkCondition.BLACKHOLE);
                a.detail = "cut the leader " + leader + " off from every process"
                        + (minority ? " but the minority clients, who reach only it" : "");
            }
            case ONE_WAY -> {
                set(a, all.stream().filter(l -> l.from().equals(f.peer()) && l.to().equals(f.node())).toList(),
                        LinkCondition.BLACKHOLE);
                a.detail = f.node() + " reaches " + f.peer() + "; " + f.peer() + " does not reach " + f.node();
            }
            case PARTITION_MAJORITIES_RING -> {
                List<String> ring = launcher.directory().read().nodes().stream().map(ClusterNode::name).toList();
                int n = ring.size();
                int reach = (n / 2 + 1) / 2; // with itself, the n/2 nearest make a majority: half on each side
                set(a, all.stream().filter(l -> ring.contains(l.from()) && ring.contains(l.to())).filter(l -> {
                    int d = Math.abs(ring.indexOf(l.from()) - ring.indexOf(l.to()));
                    return Math.min(d, n - d) > reach;
                }).toList(), LinkCondition.BLACKHOLE);
                a.detail = "each node linked to the " + reach + " nearest on each side of a ring of " + n;
            }
            case SLOW_LINKS -> {
                LinkCondition slow = LinkCondition.delay(10 + random.nextLong(90), random.nextLong(50));
                set(a, all, slow);
                a.detail = slow + " on every link";
            }
            case FLAKY -> {
                List<LinkControl.LinkState> live = all.stream().filter(l -> l.connections() > 0).toList();
                a.detail = "a random link of " + live.size() + " reset every " + FLAKY_PERIOD_MILLIS + " ms";
                if (!live.isEmpty()) {
                    a.resets = flakiness.scheduleAtFixedRate(() -> {
                        LinkControl.LinkState l = live.get(random.nextInt(live.size()));
                        try {
                            links.reset(l.from(), l.to());
                        } catch (RuntimeException e) {
                            // the next period tries another; the heal reports a link host that stopped answering
                        }
                    }, 0, FLAKY_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
                }
            }
            default -> throw new IllegalStateException("not a network fault: " + f.kind());
        }
    }

    /** Sets {@code chosen} to {@code c} in one command, so that the fault strikes whole. */
    private void set(Active a, List<LinkControl.LinkState> chosen, LinkCondition c) {
        synchronized (this) {
            a.links = chosen.stream().map(l -> new String[] {l.from(), l.to()}).toList(); // before: a heal misses none
        }
        links.conditions(chosen.stream().map(l -> new LinkControl.LinkSetting(l.from(), l.to(), c)).toList());
        synchronized (this) {
            a.cutNanos = System.nanoTime(); // the links are set once the link host answered
        }
    }

    /** Lets every link that fault {@code a} set pass again, and stops its resets. */
    private void healNetwork(Active a) {
        if (a.resets != null) {
            a.resets.cancel(false);
        }
        List<String[]> touched;
        synchronized (this) {
            touched = a.links;
            a.healingNanos = System.nanoTime(); // before the links pass again
        }
        if (!touched.isEmpty()) {
            links.conditions(touched.stream().map(l -> new LinkControl.LinkSetting(l[0], l[1], LinkCondition.PASS))
                    .toList());
        }
    }

    private void resumePaused() {
        List<Long> pids;
        List<String> byzantine;
        synchronized (this) {
            pids = log.stream().filter(a -> a.plan.kind() == FaultKind.PAUSE && a.healedMillis < 0).map(a -> a.pid).toList();
            byzantine = log.stream().filter(a -> a.plan.kind() == FaultKind.BYZANTINE && a.healedMillis < 0)
                    .map(a -> a.plan.node()).toList();
        }
        for (String name : byzantine) {
            try {
                launcher.directory().update(c -> c.withByzantine(name, Optional.empty()));
            } catch (RuntimeException e) {
                // best effort while the JVM exits
            }
        }
        for (long pid : pids) {
            try {
                ProcessSignals.resume(pid);
            } catch (RuntimeException | InterruptedException e) {
                // best effort while the JVM exits
            }
        }
    }
}
