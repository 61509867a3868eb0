package io.psmr.kvstore.ratis;

import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread group of one Ratis peer's daemon threads (elections, the leader's appenders, the state
 * machine updater: those Ratis creates in the group given to {@code RaftServer.Builder.setThreadGroup}),
 * and where their uncaught exceptions go. The first one marks the peer failed and, once the peer has
 * started, stops it: a peer with a dead Ratis thread must not keep running half a server.
 *
 * <p>Uncaught exceptions arrive on the dying thread; the stop runs on a thread of its own (outside this
 * group), since closing the server joins Ratis' threads, the dying one among them.
 */
final class RatisPeerThreads extends ThreadGroup {

    private static final Logger LOG = LoggerFactory.getLogger(RatisPeerThreads.class);

    private final String peer;
    private final AtomicReference<IllegalStateException> failure = new AtomicReference<>();
    private volatile Runnable stop;
    private volatile boolean closing;

    /**
     * @param peer how the peer is named in errors: its id and address
     */
    RatisPeerThreads(String peer) {
        super("psmr-ratis-" + peer.replace(' ', '-'));
        this.peer = peer;
    }

    /** The first uncaught exception of one of the peer's threads, as the peer's failure; null while none. */
    IllegalStateException failure() {
        return failure.get();
    }

    /**
     * Arms the stop: from now on a failure stops the peer through {@code stop}, and a failure that came
     * before is the caller's to handle ({@link #failure()} after this call). Once, after the server started.
     */
    void started(Runnable stop) {
        this.stop = stop;
    }

    /** The owner is closing the peer: a thread that dies from now on is logged, not a failure of the peer. */
    void closing() {
        closing = true;
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
        if (closing) {
            LOG.warn("Ratis peer {}: thread {} died while the peer closed", peer, t.getName(), e);
            return;
        }
        IllegalStateException f = new IllegalStateException(
                "Ratis peer " + peer + " failed: its thread " + t.getName() + " died of " + e, e);
        if (!failure.compareAndSet(null, f)) {
            LOG.error("Ratis peer {}: thread {} died as well", peer, t.getName(), e);
            return;
        }
        LOG.error("{}; stopping the peer", f.getMessage(), e);
        Runnable s = stop;
        if (s != null) {
            // The parent group: a thread started from this one would otherwise join this group.
            Thread stopper = new Thread(getParent(), s, getName() + "-stopper");
            stopper.setDaemon(true);
            stopper.start();
        }
    }
}
