package io.psmr.bench.load;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.kvstore.cluster.links.LinkTable;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.OrderingBinding;
import io.psmr.ordering.OrderingClient;
import io.psmr.kvstore.cluster.StatusFile;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.proxy.cluster.ClusterSession;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.proxy.BatchDecorator;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.proxy.ProxyStats;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.proxy.net.ReplyConnector;
import io.psmr.proxy.net.ReplyConnectorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code ./psmr load --cluster DIR}: the load generator and one client proxy in this process,
 * against a cluster of separate processes. Over Ring Paxos the proxy proposes through a proposer on
 * a {@linkplain ClusterSession claimed slot} and receives replies from every replica over TCP
 * ({@link ReplyConnector}); over Ratis it proposes through a Raft client and the leader's replies
 * come back as Raft replies. After the clients stop, it waits until every live replica reports an
 * idle digest at the same instance, and reports those digests. Call from one thread.
 */
public final class ClusterLoad {


    /** Proposals the proposer keeps queued or in flight; the proxy's window is far below. */
    static final int MAX_PENDING_PROPOSALS = 1024;
    /** How long to wait for the proxy to reach every replica's reply server before the load starts. */
    static final long CONNECT_SECONDS = 30;

    /** What the caller may do with the proxy after the load, before it closes (tests read keys back). */
    @FunctionalInterface
    public interface AfterLoad {
        /** Called on the calling thread with the still-open proxy. */
        void accept(ClientProxy proxy) throws Exception;
    }

    private ClusterLoad() {
    }

    /**
     * Runs the load against the cluster in {@code dir}.
     *
     * @param options  the run; its mode and workers must be the cluster's (as in cluster.json)
     * @param history  receives every client operation
     * @param after    called with the proxy after the clients stop; may be null
     * @param settle   how long the replicas may take to report equal idle digests once the clients stop
     * @throws IllegalStateException if the replicas cannot be reached or do not settle in time
     */
    public static LoadReport run(ClusterDirectory dir, LoadOptions options, HistorySink history, AfterLoad after,
                                 Duration settle) throws Exception {
        return run(dir, options, history, after, settle, RunControls.NONE);
    }

    /**
     * Runs the load against the cluster in {@code dir}, watched by {@code controls}: its session
     * number is replaced by this run's {@link ClusterSession#session()}, and its probe by one that
     * names the nodes whose process is not alive or whose status says they do not serve, and (over
     * Ring Paxos) how many reply connections are up.
     *
     * @throws LoadStalledException  if the run stalled; it carries the report of what completed (no
     *                               digests: the replicas are not waited for)
     * @throws IllegalStateException if the replicas cannot be reached or do not settle in time
     */
    public static LoadReport run(ClusterDirectory dir, LoadOptions options, HistorySink history, AfterLoad after,
                                 Duration settle, RunControls controls) throws Exception {
        ClusterDescriptor cluster = dir.read();
        if (liveReplicas(dir, cluster).isEmpty() && remoteReplicas(cluster).isEmpty()) {
            throw new IllegalStateException("no replica of the cluster in " + dir.path() + " is alive (see ./psmr cluster status)");
        }
        ReplicaConfig rc = cluster.settings().replicaConfig(1);
        LoadResult result;
        ProxyStats stats;
        long loadEnd;
        LoadOptions reported = new LoadOptions(cluster.replicas().size(), cluster.settings().mode(),
                cluster.settings().workers(), options.batch(), options.window(), options.linger(), options.conflictPercent(),
                options.retryTimeout(), options.workload());
        LoadTarget ordering = LoadTarget.cluster(cluster);
        Run run = overCluster(dir, cluster, LinkTable.CLIENTS, LoadRun.proxyConfig(options, rc),
                pc -> LoadRun.hotKeys(options, pc), (proxy, session, probe) -> drive(proxy, options, history, after,
                        controls.withSession(session.session()).withProbe(probe)));
        if (run.stalled() != null) {
            throw run.stalled().withReport(new LoadReport(reported, rc, run.stalled().result(), run.stats(), List.of(),
                    Runtime.getRuntime().availableProcessors(), ordering));
        }
        result = run.result();
        stats = run.stats();
        loadEnd = System.currentTimeMillis();
        List<Long> digests = awaitSettled(dir, loadEnd, settle);
        return new LoadReport(reported, rc, result, stats, digests, Runtime.getRuntime().availableProcessors(), ordering);
    }

    /**
     * What uses a cluster's proxy once it reaches the replicas ({@link #withProxy}).
     *
     * @param <T> what it returns
     */
    @FunctionalInterface
    public interface ProxyUser<T> {
        /**
         * Called on the calling thread of {@link #withProxy} with the open proxy; {@code probe} names
         * what cannot be heard from, for stall messages. The proxy closes when it returns.
         */
        T use(ClientProxy proxy, StallProbe probe) throws Exception;
    }

    /**
     * Opens a proxy to the cluster in {@code dir} as {@link #run} does (a claimed session; over Ring
     * Paxos a proposer and reply connections to every live replica, over PBFT f+1 matching replies,
     * over Ratis a Raft client), hands it to {@code user}, and closes it. No batch decoration.
     *
     * @param config the proxy settings from the cluster's replica settings; its proxy id is replaced by the session's
     * @throws IllegalStateException if no replica is alive or the replicas' reply servers cannot be reached
     */
    public static <T> T withProxy(ClusterDirectory dir, Function<ReplicaConfig, ProxyConfig> config,
                                  ProxyUser<T> user) throws Exception {
        ClusterDescriptor cluster = dir.read();
        if (liveReplicas(dir, cluster).isEmpty()) {
            throw new IllegalStateException("no replica of the cluster in " + dir.path() + " is alive (see ./psmr cluster status)");
        }
        return overCluster(dir, cluster, LinkTable.CLIENTS, config.apply(cluster.settings().replicaConfig(1)),
                pc -> BatchDecorator.NONE, (proxy, session, probe) -> user.use(proxy, probe));
    }

    /**
     * Runs {@code options}' clients against the cluster in {@code dir} through a proxy of their own, with a session of
     * their own, dialing through the links of source {@code linkSource} if the cluster has links
     * ({@link LinkTable#CLIENTS_MINORITY}: clients that a fault campaign cuts off with a partition's minority side). No
     * settle wait and no digests: a second group of clients beside {@link #run}'s. Call from a thread of its own.
     *
     * @throws IllegalStateException if no replica is alive or the replicas' reply servers cannot be reached
     */
    public static LoadResult runClients(ClusterDirectory dir, LoadOptions options, String linkSource, HistorySink history)
            throws Exception {
        ClusterDescriptor cluster = dir.read();
        if (liveReplicas(dir, cluster).isEmpty()) {
            throw new IllegalStateException("no replica of the cluster in " + dir.path() + " is alive (see ./psmr cluster status)");
        }
        ReplicaConfig rc = cluster.settings().replicaConfig(1);
        return overCluster(dir, cluster, linkSource, LoadRun.proxyConfig(options, rc), pc -> LoadRun.hotKeys(options, pc),
                (proxy, session, probe) -> LoadGenerator.run(proxy, options.workload(), history,
                        RunControls.NONE.withSession(session.session()).withProbe(probe)));
    }

    /** {@link ProxyUser} with the session the proxy runs under. */
    private interface SessionUser<T> {
        T use(ClientProxy proxy, ClusterSession session, StallProbe probe) throws Exception;
    }

    /**
     * Claims a session and runs {@code user} with a proxy over the cluster's ordering, dialing through the links of
     * source {@code linkSource} if the cluster has links.
     */
    private static <T> T overCluster(ClusterDirectory dir, ClusterDescriptor cluster, String linkSource, ProxyConfig base,
                                     Function<ProxyConfig, BatchDecorator> decorator,
                                     SessionUser<T> user) throws Exception {
        try (ClusterSession session = ClusterSession.open(dir, cluster)) {
            OrderingBinding binding = cluster.binding();
            ProxyConfig.Builder b = base.toBuilder().proxyId(session.proxyId());
            int liars = binding.byzantineReplicasTolerated(cluster);
            if (liars > 0) { // a result is trusted once f+1 replicas answered it alike
                b.replyTrust(io.psmr.proxy.ReplyTrust.matching(liars,
                        cluster.replicas().stream().map(ClusterNode::replicaId).toList()));
            }
            ProxyConfig pc = b.build();
            ProxyUser<T> u = (proxy, probe) -> user.use(proxy, session, probe);
            LocalReplyRouter router = new LocalReplyRouter();
            // Through the cluster's fault-injecting links, if it has them (links.json): as the load processes dial it.
            ClusterDescriptor dialed = LinkTable.read(dir.path()).map(t -> t.dialedBy(linkSource, cluster))
                    .orElse(cluster);
            // Under mutual TLS, as this machine's client certificate (its proposer slot's host where it holds one).
            LinkSecurity security = ClusterTlsFiles.forClient(dir.path(), dialed,
                    session.slot() == null ? null : session.slot().host());
            try (OrderingClient client = binding.openClient(dialed, session.slot(), session.firstProposalSeq(),
                    pc.proxyId(), pc.limits(), MAX_PENDING_PROPOSALS, router, security)) {
                client.start();
                return binding.hasReplyPorts() ? overReplyPorts(dir, dialed, client, pc, decorator, u, security)
                        : overRouter(dir, client, router, pc, decorator, u);
            }
        }
    }

    /**
     * What a stalled run cannot hear from: nodes whose process is not alive, or whose status file
     * says they do not serve (or that they failed); {@code replies} adds the reply connections up.
     */
    static String silentNodes(ClusterDirectory dir, ReplyConnector replies) {
        ClusterDescriptor cluster = dir.read(); // pids change when nodes are killed or restarted
        StringBuilder b = new StringBuilder();
        for (ClusterNode n : cluster.nodes()) {
            String why;
            if (n.pid() == null && !io.psmr.kvstore.cluster.ClusterLayout.isLocal(n.host())) {
                why = null; // on another machine: not visible from here
            } else if (n.liveProcess().isEmpty()) {
                why = "process not running"; // killed or stopped (cluster.json then holds no pid), or died
            } else {
                NodeStatus s = StatusFile.read(dir.statusFile(n.name())).filter(st -> st.pid() == n.pid()).orElse(null);
                why = s == null ? "no status: still starting?" : s.failure() != null ? "failed: " + s.failure()
                        : !s.serving() ? "status says not serving" : null;
            }
            if (why != null) {
                b.append(b.length() == 0 ? "" : ", ").append(n.name()).append(" (").append(why).append(')');
            }
        }
        if (replies != null && replies.connectedCount() < cluster.replicas().size()) {
            b.append(b.length() == 0 ? "" : "; ").append("reply connections up: ").append(replies.connectedCount())
                    .append(" of ").append(cluster.replicas().size());
        }
        return b.toString();
    }

    /** What the clients measured, or the stall that ended them. */
    private record Run(LoadResult result, ProxyStats stats, LoadStalledException stalled) {
    }

    /** A proxy over {@code client} whose replies come from every replica's reply port over TCP. */
    private static <T> T overReplyPorts(ClusterDirectory dir, ClusterDescriptor cluster, OrderingClient client, ProxyConfig pc,
                                        Function<ProxyConfig, BatchDecorator> decorator,
                                        ProxyUser<T> user, LinkSecurity security) throws Exception {
        try (ClientProxy proxy = ClientProxy.start(pc, client, decorator.apply(pc));
             ReplyConnector replies = ReplyConnector.start(pc.proxyId(), cluster.replyAddresses(), proxy,
                     ReplyConnectorConfig.defaults().withSecurity(security))) {
            int live = liveReplicas(dir, cluster).size();
            if (!replies.awaitConnected(Math.max(1, live), CONNECT_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not reach the reply servers of " + live
                        + " live replicas within " + CONNECT_SECONDS + " s (connected to " + replies.connectedCount() + ")");
            }
            return user.use(proxy, () -> silentNodes(dir, replies));
        }
    }

    /** A proxy over {@code client} whose replies come back through the ordering, to {@code router}. */
    private static <T> T overRouter(ClusterDirectory dir, OrderingClient client, LocalReplyRouter router, ProxyConfig pc,
                                    Function<ProxyConfig, BatchDecorator> decorator,
                                    ProxyUser<T> user) throws Exception {
        try (ClientProxy proxy = ClientProxy.start(pc, client, router, decorator.apply(pc))) {
            return user.use(proxy, () -> silentNodes(dir, null));
        }
    }

    private static Run drive(ClientProxy proxy, LoadOptions options, HistorySink history, AfterLoad after,
                             RunControls controls) throws Exception {
        LoadResult result;
        try {
            result = LoadGenerator.run(proxy, options.workload(), history, controls);
        } catch (LoadStalledException e) {
            return new Run(null, proxy.stats(), e);
        }
        ProxyStats stats = proxy.stats();
        if (after != null) {
            after.accept(proxy);
        }
        return new Run(result, stats, null);
    }

    /**
     * The replicas on other machines (their host is not an address of this one): their processes and status files
     * are there, so this machine neither checks that they live nor reads their digests.
     */
    public static List<ClusterNode> remoteReplicas(ClusterDescriptor cluster) {
        return cluster.replicas().stream().filter(n -> !io.psmr.kvstore.cluster.ClusterLayout.isLocal(n.host())).toList();
    }

    /** The replicas whose process is alive (on this machine). */
    static List<ClusterNode> liveReplicas(ClusterDirectory dir, ClusterDescriptor cluster) {
        List<ClusterNode> live = new ArrayList<>();
        for (ClusterNode n : cluster.replicas()) {
            if (n.liveProcess().isPresent()) {
                live.add(n);
            }
        }
        return live;
    }

    /**
     * Waits until every live replica has reported, after {@code sinceMillis}, an idle digest at one
     * common instance, and that instance held for two polls in a row; returns those digests in replica order.
     */
    public static List<Long> awaitSettled(ClusterDirectory dir, long sinceMillis, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long previous = -1;
        String last = "no status yet";
        while (true) {
            ClusterDescriptor now = dir.read();
            List<ClusterNode> live = liveReplicas(dir, now); // pids change when nodes are killed or restarted
            if (live.isEmpty() && !remoteReplicas(now).isEmpty()) {
                return List.of(); // every live replica is elsewhere: nothing to compare from here
            }
            List<Long> digests = new ArrayList<>();
            long instance = -1;
            boolean settled = !live.isEmpty();
            StringBuilder seen = new StringBuilder();
            for (ClusterNode n : live) {
                NodeStatus s = StatusFile.read(dir.statusFile(n.name())).orElse(null);
                seen.append(n.name()).append('=').append(s == null ? "none" : s.instance() + (s.digest() == null ? " busy" : " idle")).append(' ');
                if (s == null || s.pid() != n.pid() || s.updated() < sinceMillis || s.digest() == null
                        || (instance >= 0 && s.instance() != instance)) {
                    settled = false;
                    continue;
                }
                instance = s.instance();
                digests.add(s.digest());
            }
            last = seen.toString().trim();
            if (settled && instance == previous) {
                return digests;
            }
            previous = settled ? instance : -1;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replicas did not settle at one instance within " + timeout.toSeconds()
                        + " s of the clients stopping (last seen: " + last + ")");
            }
            Thread.sleep(200); // polling files another process writes; there is nothing to wait on
        }
    }
}
