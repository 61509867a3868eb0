package io.psmr.kvstore.cluster;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.psmr.kvstore.cluster.links.LinkTable;
import io.psmr.ordering.metrics.PrometheusEndpoint;
import io.psmr.ordering.node.NodeRuntime;
import io.psmr.ordering.node.NodeStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process of one node of the cluster described by {@code DIR/cluster.json}: starts the node's
 * runtime (the one its protocol's {@link OrderingBinding#startRuntime} starts: a Ring Paxos acceptor or replica, a
 * Ratis peer, a PBFT replica), then, until the process is
 * terminated, rewrites {@code DIR/status/NAME.json} when the node's status changes and at least every
 * {@link NodeStatus#HEARTBEAT_MILLIS} ms. {@link ClusterLauncher} starts each node as
 * {@code java ... NodeHost --dir DIR --name NAME}; {@code ./psmr node} runs the same in the foreground.
 *
 * <p>On SIGTERM or SIGINT it closes the node and ends with 0; if the node stops serving on its own
 * (its status reports a failure), it ends with 1.
 *
 * <p><b>Threads.</b> {@link #run} blocks its caller, which polls the node; the node serves from its own threads.
 */
public final class NodeHost {

    private static final Logger LOG = LoggerFactory.getLogger(NodeHost.class);
    /** How often the status is refreshed. */
    static final long POLL_MILLIS = 100;

    private NodeHost() {
    }

    /** No metrics endpoint. */
    public static final int NO_METRICS = -1;

    /**
     * The node process's entry point: {@code --dir DIR --name NAME [--metrics-port P]}. Exits 2 with a
     * usage line on any other arguments, a bad port or an unknown node, 1 if the node fails (or its
     * metrics port is taken), 0 when terminated.
     */
    public static void main(String[] args) throws InterruptedException {
        boolean withPort = args.length == 6 && args[4].equals("--metrics-port");
        if ((args.length != 4 && !withPort) || !args[0].equals("--dir") || !args[2].equals("--name")) {
            System.err.println("usage: NodeHost --dir DIR --name NAME [--metrics-port P] (got " + List.of(args) + ")");
            System.exit(2);
        }
        int code;
        try {
            int metricsPort = NO_METRICS;
            if (withPort) {
                try {
                    metricsPort = PrometheusEndpoint.checkPort(Integer.parseInt(args[5]));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--metrics-port must be a number from 0 to 65535, got '" + args[5] + "'");
                }
            }
            code = run(Path.of(args[1]), args[3], metricsPort);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            code = 2;
        } catch (RuntimeException e) {
            // A node that could not start (a Ratis peer's port taken): one line naming it, the trace in the log.
            LOG.error("{} failed", args[3], e);
            System.err.println(args[3] + ": " + e.getMessage());
            code = 1;
        }
        System.exit(code);
    }

    /**
     * Runs node {@code name} of the cluster in {@code dir} until this JVM is asked to stop.
     *
     * @return 0 when stopped by a signal, 1 when the node stopped serving on its own
     * @throws IllegalArgumentException if {@code dir} holds no readable cluster.json, naming the
     *                                  problem, or it names no node {@code name}, listing the nodes
     * @throws IllegalStateException    at once, if the node's host is not an address of this machine ({@link #requireLocal})
     */
    public static int run(Path dir, String name) throws InterruptedException {
        return run(dir, name, NO_METRICS);
    }

    /**
     * Runs node {@code name} as {@link #run(Path, String)} does and, unless {@code metricsPort} is
     * {@link #NO_METRICS}, serves its meters at {@code GET /metrics} on the node's host and that port
     * (0: an ephemeral one), published in the node's status as {@link NodeStatus#metricsPort()}. Every
     * meter carries the tags {@code node=NAME} and {@code role=acceptor|replica|ratis-peer|pbft-replica}.
     *
     * @throws java.io.UncheckedIOException naming the port, if it is taken
     */
    public static int run(Path dir, String name, int metricsPort) throws InterruptedException {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor cluster;
        try {
            cluster = cd.read();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--dir: " + e.getMessage(), e);
        }
        ClusterNode node = cluster.node(name).orElseThrow(() -> new IllegalArgumentException(
                "--name: no node '" + name + "' in " + cd.path().resolve(ClusterDescriptor.FILE) + "; nodes: "
                        + cluster.nodes().stream().map(ClusterNode::name).toList()));
        requireLocal(node);
        // Through the cluster's fault-injecting links, if it has them: the others' ports as this node dials them.
        ClusterDescriptor dialed = cluster;
        java.util.Optional<LinkTable> links = LinkTable.read(dir);
        if (links.isPresent()) {
            dialed = links.get().dialedBy(name, cluster);
            LOG.info("{} dials the others through the links of {}", name, dir.resolve(LinkTable.FILE));
        }
        NodeRuntime runtime = cluster.binding().startRuntime(cd, dialed, node);
        PrometheusEndpoint endpoint = null;
        if (metricsPort != NO_METRICS) {
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.config().commonTags("node", node.name(), "role", metricsRole(node, cluster));
            runtime.bindMeters(registry);
            try {
                endpoint = PrometheusEndpoint.start(node.host(), metricsPort, registry);
            } catch (RuntimeException e) {
                runtime.close();
                throw e;
            }
            LOG.info("{} serves metrics at http://{}:{}{}", name, node.host(), endpoint.port(), PrometheusEndpoint.PATH);
        }
        int publishedPort = endpoint == null ? 0 : endpoint.port();
        LOG.info("{} serving: {} on {}:{}", name, node.role().cliName(), node.host(), node.port());
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
                NodeStatus s = runtime.status().withMetricsPort(publishedPort);
                long now = System.currentTimeMillis();
                if (written == null || !sameContent(written, s) || now - writtenAt >= NodeStatus.HEARTBEAT_MILLIS) {
                    StatusFile.write(cd.statusFile(name), s);
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
            if (endpoint != null) {
                endpoint.close();
            }
            runtime.close();
            LOG.info("{} stopped", name);
            stopped.countDown();
        }
        return 0;
    }

    /** The {@code role} tag: what the node runs, finer than its cluster role (replicas differ by ordering). */
    static String metricsRole(ClusterNode node, ClusterDescriptor cluster) {
        return cluster.binding().metricsRole(node);
    }

    /**
     * Refuses a node whose host is not an address of this machine (it could never bind, and the others would wait
     * for it), before anything starts. Loopback addresses (all of 127/8 on Linux) and the wildcard count as this
     * machine's ({@link ClusterLayout#isLocal}).
     *
     * @throws IllegalStateException naming the node, its host and port, and the problem
     */
    public static void requireLocal(ClusterNode node) {
        java.net.InetAddress address;
        try {
            address = java.net.InetAddress.getByName(node.host());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(node.name() + " cannot bind " + node.host() + ":" + node.port()
                    + ": host " + node.host() + " does not resolve");
        }
        if (!ClusterLayout.isLocal(node.host())) {
            throw new IllegalStateException(node.name() + " cannot bind " + node.host() + ":" + node.port() + ": "
                    + address.getHostAddress() + " is not an address of this machine (start " + node.name()
                    + " on the machine cluster.json puts it on)");
        }
    }

    private static boolean sameContent(NodeStatus a, NodeStatus b) {
        return a.serving() == b.serving() && a.coordinator() == b.coordinator() && a.instance() == b.instance()
                && Objects.equals(a.digest(), b.digest()) && Objects.equals(a.failure(), b.failure())
                && Objects.equals(a.detail(), b.detail());
    }
}
