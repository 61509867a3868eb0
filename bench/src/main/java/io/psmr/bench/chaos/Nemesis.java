package io.psmr.bench.chaos;

import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Carries out a {@link FaultSchedule} against a running cluster on a thread of its own: SIGKILL
 * through {@link ClusterLauncher#kill}, restarts through {@link ClusterLauncher#restart}, pauses with
 * SIGSTOP and SIGCONT. Events run one after another in time order, heals first at equal times, and a
 * heal returns only once the node serves again, so a late restart delays the next fault rather than
 * overlapping it: the schedule's bounds hold for what really happens, and a fault injected late is
 * still healed no sooner than its planned length after it. A fault whose turn comes after the load's
 * last fault time (the executor fell behind) is left out.
 *
 * <p>{@link #start} and {@link #finish} are called from one thread (the campaign's); between them
 * the nemesis thread owns the launcher. A JVM shutdown (Ctrl-C) sends SIGCONT to every paused node.
 */
final class Nemesis {

    private final ClusterLauncher launcher;
    private final FaultSchedule schedule;
    private final long lastInjectMillis;
    private final Duration restartTimeout;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final List<Active> log = new ArrayList<>(); // guarded by this
    private final Thread shutdownHook = new Thread(this::resumePaused, "psmr-chaos-resume");
    private Thread thread;
    private long t0Nanos;

    /** One fault being carried out. */
    private static final class Active {
        final PlannedFault plan;
        final long atMillis;
        long pid = -1;
        long healedMillis = -1;
        boolean healedAtEnd;
        String error;

        Active(PlannedFault plan, long atMillis) {
            this.plan = plan;
            this.atMillis = atMillis;
        }
    }

    private record Event(long atMillis, boolean heal, PlannedFault fault) {
    }

    /**
     * @param lastInjectMillis no fault is injected later than this, from the start of the load
     * @param restartTimeout   how long a restarted node may take to serve
     */
    Nemesis(ClusterLauncher launcher, FaultSchedule schedule, long lastInjectMillis, Duration restartTimeout) {
        this.launcher = launcher;
        this.schedule = schedule;
        this.lastInjectMillis = lastInjectMillis;
        this.restartTimeout = restartTimeout;
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
                // A fault injected late (a restart before it took long) still lasts its planned length.
                long due = e.heal() ? Math.max(e.atMillis(), a.atMillis + e.fault().healAtMillis() - e.fault().atMillis())
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
            if (f.kind() == FaultKind.KILL) {
                launcher.kill(f.node());
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
        try {
            if (a.plan.kind() == FaultKind.KILL) {
                launcher.restart(a.plan.node(), restartTimeout);
            } else {
                ProcessSignals.resume(a.pid);
            }
        } catch (RuntimeException e) {
            synchronized (this) {
                a.error = "healing " + a.plan.kind().cliName() + " of " + a.plan.node() + ": " + e.getMessage();
            }
            return;
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
            t.join(restartTimeout.toMillis() + 30_000);
            if (t.isAlive()) {
                throw new IllegalStateException("the nemesis did not finish its last event within "
                        + (restartTimeout.toSeconds() + 30) + " s");
            }
        }
        List<Active> open;
        synchronized (this) {
            open = log.stream().filter(a -> a.healedMillis < 0).toList();
        }
        // Pauses first: a paused acceptor may be needed by a restarted one to make progress.
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
        return log.stream().map(a -> new InjectedFault(a.plan.kind(), a.plan.node(), a.plan.atMillis(), a.atMillis,
                a.healedMillis, a.healedAtEnd, a.error)).toList();
    }

    private void resumePaused() {
        List<Long> pids;
        synchronized (this) {
            pids = log.stream().filter(a -> a.plan.kind() == FaultKind.PAUSE && a.healedMillis < 0).map(a -> a.pid).toList();
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
