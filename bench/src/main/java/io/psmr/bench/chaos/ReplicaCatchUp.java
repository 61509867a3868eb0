package io.psmr.bench.chaos;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.StatusFile;
import io.psmr.ordering.node.NodeStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * When a PBFT replica that came back (restarted, correct again, or resumed after a pause) has caught up, from what
 * the replicas' status files say: its own status, written by its current process after it came back, says it
 * serves (a replica catching up by state transfer says it does not) and that it delivered at least the highest
 * instance the other live replicas reported when it came back. Until then the campaign counts it as faulty: a
 * replica that is behind adds nothing to a quorum. Stateless; each call blocks the calling thread (the nemesis').
 */
final class ReplicaCatchUp {

    /** How often the status files are read: other processes write them, so there is nothing to wait on. */
    private static final long POLL_MILLIS = 200;

    private ReplicaCatchUp() {
    }

    /**
     * Waits until replica {@code name} has caught up, or {@code giveUp} says to stop waiting.
     *
     * @param sinceMillis when it came back ({@link System#currentTimeMillis()}): older statuses do not count
     * @param giveUp      true once waiting no longer matters (the load ended: without clients nothing new is
     *                    ordered to catch up with, and the campaign's settle wait checks convergence instead)
     * @return true if it caught up, false if {@code giveUp} ended the wait first
     * @throws IllegalStateException naming the replica, what it reports and the instance it must reach, if its
     *                               process exits or it has not caught up within {@code timeout}
     */
    static boolean await(ClusterDirectory dir, String name, long sinceMillis, Duration timeout, BooleanSupplier giveUp)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long target = othersInstance(dir, name);
        while (true) {
            if (giveUp.getAsBoolean()) {
                return false;
            }
            ClusterNode node = dir.read().node(name).orElseThrow();
            if (node.liveProcess().isEmpty()) {
                throw new IllegalStateException(name + " exited while catching up (see its log in "
                        + dir.path().resolve("logs") + ")");
            }
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(name)).filter(st -> st.pid() == node.pid()
                    && st.updated() >= sinceMillis);
            if (s.isPresent() && s.get().serving() && s.get().failure() == null && s.get().instance() >= target) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not catch up within " + timeout.toSeconds()
                        + " s of coming back: it must deliver instance " + target + " (the others' when it came back), its"
                        + " status says " + s.map(ReplicaCatchUp::describe).orElse("nothing yet"));
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** The highest instance a live replica other than {@code name} reports, or 0. */
    private static long othersInstance(ClusterDirectory dir, String name) {
        ClusterDescriptor cluster = dir.read();
        long most = 0;
        for (ClusterNode n : cluster.replicas()) {
            if (n.name().equals(name) || n.liveProcess().isEmpty()) {
                continue;
            }
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(n.name())).filter(st -> st.pid() == n.pid());
            if (s.isPresent()) {
                most = Math.max(most, s.get().instance());
            }
        }
        return most;
    }

    private static String describe(NodeStatus s) {
        return "instance " + s.instance() + (s.failure() != null ? ", failed: " + s.failure()
                : s.serving() ? ", serving" : ", not serving" + (s.detail() == null ? "" : " (" + s.detail().lines().findFirst()
                        .orElse("") + ")"));
    }
}
