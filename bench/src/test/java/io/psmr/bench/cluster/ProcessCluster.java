package io.psmr.bench.cluster;

import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The process cluster of one test (register with {@code @RegisterExtension}): a launcher on a
 * directory the test chooses, whose nodes are killed after the test whatever happened, so no node
 * process outlives it; and the seed and settings the suite's process tests share.
 */
public final class ProcessCluster implements AfterEachCallback {

    private ClusterLauncher launcher;

    /** A launcher for a cluster in {@code dir}, stopped after the test. */
    public ClusterLauncher in(Path dir) {
        launcher = new ClusterLauncher(dir);
        return launcher;
    }

    /** This run's seed ({@code -Dpsmr.seed=SEED} re-runs a failure), printed with the cluster's directory. */
    public static long seed(String test, Path dir) {
        long seed = Long.getLong("psmr.seed", System.nanoTime());
        System.out.println(test + " seed " + seed + ", cluster in " + dir);
        return seed;
    }

    /** The settings of the suite's process clusters: bitmap-indexed, 1,000 keys, a 10 ms tick. */
    public static ClusterSettings settings(int workers) {
        return new ClusterSettings(SchedulerMode.BITMAP_INDEXED, workers, 1000, 16, 10);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        if (launcher != null && launcher.directory().exists()) {
            // Killed, not stopped gracefully: nothing is checked after the test, and a graceful stop spent a second or
            // two per cluster closing (a Ratis peer's log worker alone notices its close only at its next 1 s poll).
            // Graceful stops are tested where their outcome is asserted (ClusterCommandTest, ClusterPbftStopProcessTest).
            launcher.stop(Duration.ZERO);
        }
    }
}
