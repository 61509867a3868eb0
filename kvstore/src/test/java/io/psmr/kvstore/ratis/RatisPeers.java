package io.psmr.kvstore.ratis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/** Closing a test's Ratis peers. */
final class RatisPeers {

    private RatisPeers() {
    }

    /**
     * Closes the leader (if any), then the others together, as {@link EmbeddedRatisCluster#close} does: each close waits
     * for its Ratis log worker, which notices it only at its next one-second poll, so closing them one after another
     * waited up to a second per peer for nothing. The leader goes first so that no follower closes while it still
     * replicates to it (Ratis logs that with a stack trace). Rethrows the first failure.
     */
    static void closeAll(List<RatisPeer> peers) {
        List<RatisPeer> rest = new ArrayList<>(peers);
        RatisPeer leader = null;
        for (RatisPeer p : peers) {
            try {
                if (p.isLeader()) {
                    leader = p;
                    break;
                }
            } catch (RuntimeException e) {
                // a peer that cannot say (it failed on its own) is closed with the others
            }
        }
        if (leader != null) {
            rest.remove(leader);
            leader.close();
        }
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        List<Thread> closing = new ArrayList<>();
        for (RatisPeer p : rest) {
            Thread t = new Thread(() -> {
                try {
                    p.close();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }, "close-ratis-peer");
            t.start();
            closing.add(t);
        }
        boolean interrupted = false;
        for (Thread t : closing) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
    }
}
