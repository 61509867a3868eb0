package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.ringpaxos.AcceptorNode;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, at most once per interval, why an acceptor's log is full and the coordinator waits: which learner holds the
 * trim point (its {@link AcceptorNode#trimBlocker()}). The core does no logging and reads no clock; its host does.
 *
 * <p>Called on the acceptor's event-loop thread only (from {@link RingPaxosNode.Listener#onTick()}).
 */
final class TrimStallLog {

    private static final Logger LOG = LoggerFactory.getLogger(TrimStallLog.class);

    /** How often at most a stalled log is reported. */
    static final Duration INTERVAL = Duration.ofSeconds(10);

    private final AcceptorNode acceptor;
    private final long intervalNanos;
    private long lastLogged;
    private boolean logged;

    TrimStallLog(AcceptorNode acceptor, Duration interval) {
        this.acceptor = acceptor;
        this.intervalNanos = interval.toNanos();
    }

    /** After a tick: logs the blocker if the log is full and the interval since the last line has passed. */
    void onTick() {
        long t = System.nanoTime();
        if (logged && t - lastLogged < intervalNanos) {
            return;
        }
        Optional<AcceptorNode.TrimBlocker> b = acceptor.trimBlocker();
        if (b.isEmpty() || !b.get().logFull()) {
            return;
        }
        AcceptorNode.TrimBlocker blocker = b.get();
        if (blocker.learner() < 0) {
            LOG.warn("acceptor {}: log full (trimmed to {}, decided up to {}): the coordinator waits, and no learner "
                            + "reported within the learner silence, so nothing can be trimmed until one does",
                    acceptor.id(), blocker.trimmedTo(), blocker.highestDecided());
        } else {
            LOG.warn("acceptor {}: log full (trimmed to {}, decided up to {}): the coordinator waits for learner {}, "
                            + "which reported instance {} as safe ({} ticks ago)", acceptor.id(), blocker.trimmedTo(),
                    blocker.highestDecided(), blocker.learner(), blocker.reported(), blocker.ticksSinceReport());
        }
        logged = true;
        lastLogged = t;
    }
}
