package io.psmr.kvstore.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node started by hand from {@code ./psmr node --cluster FILE} (on its own machine, from a {@code cluster init}
 * directory): no launcher records its process, so it records its own pid in FILE's cluster.json (under the
 * directory's lock) while it runs, and clears it when it ends. {@code cluster status}, {@code cluster stop} and
 * {@code load --cluster} on that machine then see it as they see a launched node.
 *
 * <p>Where it keeps its data: FILE's own directory, which is why FILE must be named {@code cluster.json}: the node's
 * {@code data/NAME/}, {@code status/NAME.json} and, for PBFT, {@code keys/} are there, as in a cluster directory.
 *
 * <p><b>Threads.</b> {@link #register} and {@link #close} are called by the node's main thread. A shutdown hook waits
 * (up to 10 s) for {@link #close}, so that a node stopped by SIGTERM clears its pid before the JVM halts.
 */
public final class HandStartedNode implements AutoCloseable {

    private final ClusterDirectory dir;
    private final String name;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final Thread hook;

    private HandStartedNode(ClusterDirectory dir, String name) {
        this.dir = dir;
        this.name = name;
        this.hook = new Thread(() -> {
            try {
                closed.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "psmr-node-unregister");
    }

    /**
     * The directory of {@code clusterFile}, where the node keeps its data and status.
     *
     * @throws IllegalArgumentException naming the problem if the file is not named cluster.json or is not a file
     */
    public static Path directoryOf(Path clusterFile) {
        Path fileName = clusterFile.getFileName();
        if (fileName == null || !fileName.toString().equals(ClusterDescriptor.FILE)) {
            throw new IllegalArgumentException("--cluster: " + clusterFile + " is not named " + ClusterDescriptor.FILE
                    + " (the node keeps its data/ and status/ next to it, as in a cluster directory)");
        }
        if (!Files.isRegularFile(clusterFile)) {
            throw new IllegalArgumentException("--cluster: " + clusterFile + " does not exist or is not a file");
        }
        return clusterFile.toAbsolutePath().getParent();
    }

    /**
     * Records this process as node {@code name} of the cluster in {@code dir}. If the file cannot be read or names no
     * such node, records nothing ({@link NodeHost#run} then says what is wrong).
     *
     * @throws IllegalStateException if the node's host is not an address of this machine, or the node already runs here
     */
    public static HandStartedNode register(Path dir, String name) {
        ClusterDirectory cd = new ClusterDirectory(dir);
        HandStartedNode registration = new HandStartedNode(cd, name);
        ClusterNode node;
        try {
            node = cd.read().node(name).orElse(null);
        } catch (IllegalArgumentException unreadable) {
            node = null;
        }
        if (node == null) {
            registration.closed.countDown();
            return registration;
        }
        NodeHost.requireLocal(node);
        cd.update(c -> {
            c.node(name).orElseThrow().liveProcess().ifPresent(ph -> {
                throw new IllegalStateException(name + " already runs on this machine (pid " + ph.pid() + ")");
            });
            return c.withProcess(name, ProcessHandle.current());
        });
        Runtime.getRuntime().addShutdownHook(registration.hook);
        return registration;
    }

    /** Clears this process's pid from cluster.json (if it is still the one recorded) and lets the JVM halt. */
    @Override
    public void close() {
        if (closed.getCount() == 0) {
            return;
        }
        try {
            long self = ProcessHandle.current().pid();
            dir.update(c -> c.node(name).map(ClusterNode::pid).filter(pid -> pid == self).isPresent()
                    ? c.withProcess(name, null) : c);
        } finally {
            closed.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it ends now that closed is counted down
            }
        }
    }
}
