package io.psmr.bench.cluster;

import io.psmr.proxy.cluster.ClusterDescriptor;
import io.psmr.proxy.cluster.ClusterDirectory;
import io.psmr.proxy.cluster.ClusterNode;
import io.psmr.proxy.cluster.NodeStatus;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr node --dir DIR --name NAME}: runs one node of the cluster described by
 * {@code DIR/cluster.json} in the foreground, until it is terminated. {@code cluster start} and
 * {@code cluster restart} launch each node this way; it can also be run by hand (for example under
 * a debugger) in place of a node that was killed.
 *
 * <p>While it runs it rewrites {@code DIR/status/NAME.json} when its status changes and at least
 * every second. On SIGTERM or SIGINT it closes the node and exits 0; if the node stops serving
 * on its own (its status reports a failure), it exits 1.
 */
@Command(name = "node",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run one node (acceptor, replica or Ratis peer) of a process cluster in the foreground.",
            "What ./psmr cluster start launches for each node. Docs: docs/ringpaxos.md (Running a cluster of processes), docs/integration.md (Ratis)."})
public final class NodeCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(NodeCommand.class);
    /** How often the status is refreshed. */
    static final long POLL_MILLIS = 100;

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", required = true, description = "The cluster directory (holds cluster.json).")
    Path dir;

    @Option(names = "--name", paramLabel = "NAME", required = true, description = "The node to run, as named in cluster.json.")
    String name;

    @Override
    public Integer call() throws Exception {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor cluster;
        try {
            cluster = cd.read();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dir: " + e.getMessage());
        }
        ClusterNode node = cluster.node(name).orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(),
                "--name: no node '" + name + "' in " + cd.path().resolve(ClusterDescriptor.FILE) + "; nodes: "
                        + cluster.nodes().stream().map(ClusterNode::name).toList()));
        NodeRuntime runtime = switch (node.role()) {
            case ACCEPTOR -> new AcceptorRuntime(cd, cluster, node);
            case REPLICA -> cluster.isRatis() ? new RatisPeerRuntime(cd, cluster, node) : new ReplicaRuntime(cd, cluster, node);
        };
        LOG.info("{} serving: {} on {}:{}", name, node.role().label(), cluster.host(), node.port());
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stop.countDown();
            try {
                stopped.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "psmr-node-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            NodeStatus written = null;
            long writtenAt = 0;
            while (!stop.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                NodeStatus s = runtime.status();
                long now = System.currentTimeMillis();
                if (written == null || !sameContent(written, s) || now - writtenAt >= NodeStatus.HEARTBEAT_MILLIS) {
                    s.write(cd.statusFile(name));
                    written = s;
                    writtenAt = now;
                }
                if (s.failure() != null) {
                    // A node that stopped serving (an acceptor that could not make its state durable, a
                    // replica whose scheduler fail-stopped) must not linger as a live-looking process.
                    LOG.error("{} stopped serving: {}", name, s.failure());
                    return 1;
                }
            }
        } finally {
            runtime.close();
            LOG.info("{} stopped", name);
            stopped.countDown();
        }
        return 0;
    }

    private static boolean sameContent(NodeStatus a, NodeStatus b) {
        return a.serving() == b.serving() && a.coordinator() == b.coordinator() && a.instance() == b.instance()
                && Objects.equals(a.digest(), b.digest()) && Objects.equals(a.failure(), b.failure());
    }
}
