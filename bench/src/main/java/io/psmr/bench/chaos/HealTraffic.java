package io.psmr.bench.chaos;

import io.psmr.bench.load.LoadGenerator;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.StatusFile;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Traffic after the final heal of a PBFT campaign: reads of one key, one at a time, until every live replica
 * reports the same delivered instance. A PBFT replica that came back after the clients stopped may lack only the
 * last instances, and nothing sends them to it until new ones are ordered (a stable checkpoint beyond it then brings
 * it up by state transfer). Reads change no state, and they are not part of the checked history. Stateless; call
 * from the campaign's thread, which each read blocks for at most {@value #READ_SECONDS} s.
 */
final class HealTraffic {

    /** How long one read may take before the next is sent (an unanswered read is ordered all the same, or not at all). */
    static final long READ_SECONDS = 5;

    private HealTraffic() {
    }

    /**
     * Reads key 0 through {@code proxy} until the live replicas of {@code dir} report one instance, or for at most
     * {@code timeout} (the settle wait that follows then says which replica is behind).
     *
     * @return the reads sent
     */
    static int untilLevel(ClientProxy proxy, ClusterDirectory dir, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        KvClient reader = proxy.newClient();
        int reads = 0;
        while (!level(dir) && System.nanoTime() < deadline) {
            reads++;
            try {
                reader.read(LoadGenerator.key(0)).get(READ_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                // ordered or not, the next read tries again
            }
        }
        return reads;
    }

    /** Whether every live replica's status, from its current process, says it serves at one instance. */
    private static boolean level(ClusterDirectory dir) {
        List<ClusterNode> live = dir.read().replicas().stream().filter(n -> n.liveProcess().isPresent()).toList();
        long instance = -1;
        for (ClusterNode n : live) {
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(n.name())).filter(st -> st.pid() == n.pid());
            if (s.isEmpty() || !s.get().serving() || (instance >= 0 && s.get().instance() != instance)) {
                return false;
            }
            instance = s.get().instance();
        }
        return !live.isEmpty();
    }
}
