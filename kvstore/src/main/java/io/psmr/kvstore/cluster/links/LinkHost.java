package io.psmr.kvstore.cluster.links;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.ordering.transport.SocketIo;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault-injecting links of a process cluster, in a process of their own, as a Toxiproxy server: one
 * {@link LinkProxy} for every port of every process that another dials, per dialing process (every node, and the load
 * processes as {@value LinkTable#CLIENTS} and {@value LinkTable#CLIENTS_MINORITY}), so that each directed link between two processes can be cut, delayed,
 * throttled or reset alone. It writes {@code DIR/links.json} ({@link LinkTable}) once every link listens; nodes and
 * load processes that start afterwards dial through it. It takes commands over HTTP on loopback
 * ({@link LinkControl}):
 * <ul>
 *   <li>{@code GET /links}: every link, its condition, bytes relayed and connections open, as JSON;</li>
 *   <li>{@code PUT /links/FROM/TO} with a {@link LinkCondition} as JSON, fields left out 0: the link's new
 *       condition;</li>
 *   <li>{@code PUT /links} with a JSON array of {@code {"from", "to", "condition"}}: several links at once, all
 *       checked before any changes;</li>
 *   <li>{@code POST /links/FROM/TO/reset}: every connection of the link closed with a TCP reset.</li>
 * </ul>
 * Links start passing bytes untouched. Anyone on the machine who can reach the control port can cut links: it is a
 * testing tool, and listens on loopback only.
 *
 * <p>Threads: one event loop relays; the HTTP server's one thread takes commands.
 */
public final class LinkHost implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LinkHost.class);
    /** Conditions as commands give them: a field left out is 0 (or false), so {@code {"blackhole":true}} will do. */
    private static final com.fasterxml.jackson.databind.ObjectMapper CONDITION_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper()
                    .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    /** The links' event loop threads: relaying is copying, and a cluster under faults is no benchmark. */
    static final int THREADS = 1;

    private final EventLoopGroup group;
    private final Map<String, Map<String, List<LinkProxy>>> links = new LinkedHashMap<>(); // from → to → ports
    private final HttpServer control;
    private final LinkTable table;

    /**
     * Starts a link for every port every process of {@code cluster} dials, on the nodes' loopback host, and the
     * control server; writes nothing.
     *
     * @param seed seeds the links' jitter
     * @throws IllegalArgumentException if a node or proposer slot is not on one loopback address
     */
    public LinkHost(ClusterDescriptor cluster, long seed) throws IOException, InterruptedException {
        String host = loopbackHost(cluster);
        group = new MultiThreadIoEventLoopGroup(THREADS, new DefaultThreadFactory("psmr-links", true),
                SocketIo.current().handlerFactory());
        Map<String, List<Integer>> targets = targets(cluster);
        List<String> sources = new ArrayList<>(cluster.nodes().stream().map(ClusterNode::name).toList());
        sources.add(LinkTable.CLIENTS);
        sources.add(LinkTable.CLIENTS_MINORITY);
        List<LinkTable.Entry> entries = new ArrayList<>();
        long n = 0;
        try {
            for (String from : sources) {
                for (Map.Entry<String, List<Integer>> t : targets.entrySet()) {
                    if (t.getKey().equals(from) || (LinkTable.isClients(from) && LinkTable.isClients(t.getKey()))) {
                        continue; // load processes bind their proposer slots themselves
                    }
                    for (int port : t.getValue()) {
                        LinkProxy p = new LinkProxy(new InetSocketAddress(host, port), group, seed + 31 * n++);
                        int via = p.listen(host, 0);
                        links.computeIfAbsent(from, f -> new LinkedHashMap<>()).computeIfAbsent(t.getKey(),
                                k -> new ArrayList<>()).add(p);
                        entries.add(new LinkTable.Entry(from, t.getKey(), port, via));
                    }
                }
            }
            control = HttpServer.create(new InetSocketAddress(host, 0), 8);
        } catch (IOException | RuntimeException e) {
            closeLinks();
            throw e;
        }
        control.setExecutor(Executors.newSingleThreadExecutor(new DefaultThreadFactory("psmr-links-control", true)));
        control.createContext("/links", this::handle);
        control.start();
        ProcessHandle self = ProcessHandle.current();
        table = new LinkTable(self.pid(), self.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L),
                control.getAddress().getPort(), host, entries);
    }

    /** What links.json says of these links. */
    public LinkTable table() {
        return table;
    }

    /** The link {@code from → to}'s ports. */
    List<LinkProxy> link(String from, String to) {
        List<LinkProxy> ports = links.getOrDefault(from, Map.of()).get(to);
        if (ports == null) {
            throw new IllegalArgumentException("no link " + from + " → " + to + "; processes: " + links.keySet());
        }
        return ports;
    }

    /** Sets the condition of link {@code from → to}. Any thread. */
    public void condition(String from, String to, LinkCondition c) {
        link(from, to).forEach(p -> p.condition(c));
        LOG.info("link {} → {}: {}", from, to, c);
    }

    /**
     * Sets several links' conditions at once: every link is checked first, so that an unknown one changes nothing, and
     * the changes follow each other without a round trip between them (a partition strikes whole). Any thread.
     */
    public void conditions(List<LinkControl.LinkSetting> settings) {
        List<List<LinkProxy>> ports = new ArrayList<>();
        for (LinkControl.LinkSetting l : settings) {
            ports.add(link(l.from(), l.to()));
            if (l.condition() == null) {
                throw new IllegalArgumentException("link " + l.from() + " → " + l.to() + ": no condition");
            }
        }
        for (int i = 0; i < settings.size(); i++) {
            LinkCondition c = settings.get(i).condition();
            ports.get(i).forEach(p -> p.condition(c));
        }
        LOG.info("{} links set: {}", settings.size(), settings.stream().map(l -> l.from() + " → " + l.to() + ": "
                + l.condition()).toList());
    }

    /** Resets every connection of link {@code from → to}. Any thread. */
    public void reset(String from, String to) {
        link(from, to).forEach(LinkProxy::reset);
        LOG.info("link {} → {}: reset", from, to);
    }

    /** Every link's condition, bytes relayed and open connections. */
    public List<LinkControl.LinkState> states() {
        List<LinkControl.LinkState> out = new ArrayList<>();
        links.forEach((from, tos) -> tos.forEach((to, ports) -> out.add(new LinkControl.LinkState(from, to,
                ports.get(0).condition(), ports.stream().mapToLong(LinkProxy::bytes).sum(),
                ports.stream().mapToInt(LinkProxy::connectionsOpen).sum()))));
        return out;
    }

    @Override
    public void close() {
        control.stop(0);
        closeLinks();
    }

    private void closeLinks() {
        links.values().forEach(tos -> tos.values().forEach(ports -> ports.forEach(LinkProxy::close)));
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Every process's ports that another dials, by process name. */
    static Map<String, List<Integer>> targets(ClusterDescriptor cluster) {
        Map<String, List<Integer>> targets = new LinkedHashMap<>();
        List<ClusterNode> replicas = cluster.replicas();
        for (ClusterNode n : cluster.nodes()) {
            Set<Integer> ports = new LinkedHashSet<>();
            ports.add(n.port());
            if (n.replyPort() > 0) {
                ports.add(n.replyPort());
            }
            if (n.checkpointPort() > 0) {
                ports.add(n.checkpointPort());
            }
            int r = replicas.indexOf(n);
            if (cluster.pbft() != null && r >= 0) {
                ports.addAll(cluster.pbft().pillarPorts().get(r));
            }
            targets.put(n.name(), List.copyOf(ports));
        }
        if (!cluster.proposers().isEmpty()) {
            targets.put(LinkTable.CLIENTS, cluster.proposers().stream().map(ProposerSlot::port).toList());
        }
        return targets;
    }

    /**
     * The one loopback host of every node and proposer slot of {@code cluster}: where its links listen.
     *
     * @throws IllegalArgumentException naming the hosts, if they are not one loopback address
     */
    public static String loopbackHost(ClusterDescriptor cluster) {
        Set<String> hosts = new LinkedHashSet<>();
        cluster.nodes().forEach(n -> hosts.add(n.host()));
        cluster.proposers().forEach(s -> hosts.add(s.host()));
        if (hosts.size() != 1 || !isLoopback(hosts.iterator().next())) {
            throw new IllegalArgumentException("fault-injecting links need every node and proposer slot on one loopback"
                    + " address; this cluster's are on " + hosts);
        }
        return hosts.iterator().next();
    }

    private static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String[] parts = ex.getRequestURI().getPath().split("/");
            // "", "links", FROM, TO[, "reset"]
            String method = ex.getRequestMethod();
            try {
                if (parts.length == 2 && method.equals("GET")) {
                    respond(ex, 200, LinkTable.JSON.writeValueAsString(states()));
                } else if (parts.length == 2 && method.equals("PUT")) {
                    List<LinkControl.LinkSetting> settings = CONDITION_JSON.readValue(ex.getRequestBody(),
                            new com.fasterxml.jackson.core.type.TypeReference<List<LinkControl.LinkSetting>>() { });
                    conditions(settings);
                    respond(ex, 200, settings.size() + " links set\n");
                } else if (parts.length == 4 && method.equals("PUT")) {
                    LinkCondition c = CONDITION_JSON.readValue(ex.getRequestBody(), LinkCondition.class);
                    condition(parts[2], parts[3], c);
                    respond(ex, 200, "link " + parts[2] + " → " + parts[3] + ": " + c + "\n");
                } else if (parts.length == 5 && parts[4].equals("reset") && method.equals("POST")) {
                    reset(parts[2], parts[3]);
                    respond(ex, 200, "link " + parts[2] + " → " + parts[3] + ": reset\n");
                } else {
                    respond(ex, 404, "no such command: " + method + " " + ex.getRequestURI().getPath()
                            + " (GET /links, PUT /links, PUT /links/FROM/TO, POST /links/FROM/TO/reset)\n");
                }
            } catch (IllegalArgumentException | com.fasterxml.jackson.core.JacksonException e) {
                respond(ex, e instanceof IllegalArgumentException && e.getMessage().startsWith("no link") ? 404 : 400,
                        Objects.requireNonNullElse(e.getMessage(), e.toString()) + "\n");
            }
        }
    }

    private static void respond(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    /**
     * {@code LinkHost --dir DIR [--seed S]}: serves the links of the cluster in DIR until the process is stopped; writes
     * DIR/links.json once they listen.
     */
    public static void main(String[] args) throws Exception {
        Path dir = null;
        long seed = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--dir DIR [--seed S])");
            }
        }
        if (dir == null) {
            throw new IllegalArgumentException("--dir DIR is required");
        }
        ClusterDescriptor cluster = ClusterDescriptor.read(dir);
        LinkHost host = new LinkHost(cluster, seed);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            host.close();
            stop.countDown();
        }, "psmr-links-stop"));
        host.table().write(dir);
        LOG.info("links serving: {} links, control on {}:{}", host.table().links().size(), host.table().host(),
                host.table().controlPort());
        stop.await();
    }
}
