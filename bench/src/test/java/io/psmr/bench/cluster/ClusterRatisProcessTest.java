package io.psmr.bench.cluster;

import io.psmr.bench.load.ClusterLoad;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 7's process form: {@code cluster start --ordering ratis} of 3 Apache Ratis peers (3 JVMs,
 * psmr executing each peer's log), a closed-loop load with conflicts through {@link ClusterLoad}
 * (a Raft client; replies come back from the leader), and the leader's process killed with SIGKILL
 * a third of the way through. Then the killed peer is restarted from its Raft log and snapshots,
 * and the peer that took over is killed, so the final reads need the restarted one in the quorum.
 *
 * <p>Checks: every operation answered; operations complete again within a bounded pause after the
 * kill; equal digests of the two live peers at one applied index (the restarted one caught up);
 * the history, closed by final reads of every key, linearizable per key.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterRatisProcessTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void loadSurvivesAKilledLeaderAndARestartedPeerCatchesUp() throws Exception {
        long seed = ProcessCluster.seed("ClusterRatisProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.ratis(3, ProcessCluster.settings(2)), Duration.ofSeconds(120));
        // The restarted peer's recovery is checked by the digests: it is one of the two compared.
        KillUnderLoad.run("ClusterRatisProcessTest", launcher, "replica-", seed, context, restarted -> { });
    }
}
