package io.psmr.kvstore.cluster;

import io.psmr.kvstore.ChronicleJvmFlags;
import io.psmr.kvstore.cluster.links.LinkHost;
import io.psmr.kvstore.cluster.links.LinkTable;
import io.psmr.kvstore.pbft.PbftStoreNode;
import io.psmr.ordering.node.NodeStatus;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Starts, kills, restarts and stops the processes of a cluster, and reads their status: what
 * {@code ./psmr cluster} does. Each node is a JVM running {@code psmr node --dir DIR --name NAME}
 * on this machine's Java and class path, in a session of its own (so a Ctrl-C at the terminal that
 * ran {@code cluster start} does not reach it), with its output in {@code DIR/logs/NAME.log}.
 *
 * <p>Not thread-safe; every method may block for up to its timeout. Concurrent launchers on one
 * directory are serialised only where they update {@code cluster.json}.
 */
public final class ClusterLauncher {

    /**
     * The environment variable whose whitespace-separated JVM options every node this launcher starts gets after its
     * defaults ({@code -Xmx2g}, {@code -Xmx3g} for an acceptor, and SerialGC unless the options name a collector).
     */
    public static final String NODE_JAVA_OPTS = "PSMR_NODE_JAVA_OPTS";

    /** Proposer slots a new cluster offers to load processes. */
    public static final int PROPOSER_SLOTS = 8;
    private static final long POLL_MILLIS = 50;
    /** The lowest fixed port handed out (below it live many well-known services). */
    static final int FIXED_PORT_FLOOR = 20000;

    private final ClusterDirectory dir;
    private boolean metrics;
    private boolean links;
    private boolean insecure;

    /** A launcher for the cluster in {@code dir}. */
    public ClusterLauncher(Path dir) {
        this.dir = new ClusterDirectory(dir);
    }

    /**
     * Whether the nodes of the cluster the next {@link #start} creates serve Prometheus endpoints on ephemeral
     * ports, each published in its status ({@link NodeStatus#metricsPort()}). Remembered in the directory
     * ({@link ClusterDirectory#metricsMarker()}), so that restarted and resumed nodes serve one too.
     */
    public ClusterLauncher serveMetrics(boolean on) {
        this.metrics = on;
        return this;
    }

    /**
     * Whether the cluster the next {@link #start} creates runs behind fault-injecting links ({@link LinkHost}): a
     * process of their own, started before the nodes, through which every node and load process dials the others, so
     * that a fault campaign can cut, delay, throttle or reset each directed link. Remembered in the directory
     * ({@code links.json}): {@link #resume} starts the links again, and restarted nodes dial through them.
     * Loopback clusters only.
     */
    public ClusterLauncher serveLinks(boolean on) {
        this.links = on;
        return this;
    }

    /**
     * Whether the cluster the next {@link #start} creates runs plain TCP instead of mutual TLS. By default every link
     * of a cluster, whatever its ordering, runs TLS under a cluster authority that {@link #start} generates into
     * {@code DIR/tls} (or the operator's, if {@code DIR/tls/ca.pem} and {@code ca.key} are there): see
     * {@link ClusterTlsFiles}.
     */
    public ClusterLauncher insecure(boolean on) {
        this.insecure = on;
        return this;
    }

    /** Whether a cluster started by this launcher runs mutual TLS: unless {@link #insecure}. */
    public boolean secures() {
        return !insecure;
    }

    /** The links of this cluster, if it runs behind fault-injecting links. */
    public Optional<LinkTable> links() {
        return LinkTable.read(dir.path());
    }

    /** The cluster directory. */
    public ClusterDirectory directory() {
        return dir;
    }

    /**
     * The name of the link host in what {@link #stop} returns and of its log ({@code logs/links.log}); a node name
     * never equals it (nodes are acceptor-N, replica-N).
     */
    public static final String LINKS = "links";

    /** The one host of a cluster on this machine by default. */
    public static final List<String> LOCAL = List.of("127.0.0.1");

    /**
     * Creates the cluster {@code spec} describes in the directory, on free ports of this machine, and starts every
     * node; returns once every node serves and one leads ({@link #awaitLeader}). Its hosts ({@link ClusterSpec#hosts()},
     * laid out by {@link ClusterLayout}) must be addresses of this machine (such as 127.0.0.2, 127.0.0.3); Ring Paxos'
     * proposer slots go on the first unless the spec names client hosts, where this machine's load processes bind them. For a protocol whose nodes sign
     * ({@link OrderingBinding#hasKeys()}: PBFT) it first writes a new key generation into {@code DIR/keys}
     * (owner-only).
     *
     * @throws IllegalArgumentException if the hosts are not valid ({@link ClusterLayout#checkHosts}), or the protocol
     *                                  cannot lay the spec out ({@link OrderingBinding#checkSpec}: a PBFT cluster of
     *                                  other than 3f+1 replicas, more Byzantine replicas than f)
     * @throws IllegalStateException    if the directory holds a cluster (running or stopped: see {@link #wipe} and
     *                                  {@link #resume}), keys or other files, or the cluster does not come up in time
     *                                  (its nodes are then killed)
     */
    public ClusterDescriptor start(ClusterSpec spec, Duration timeout) throws InterruptedException {
        ClusterLayout.checkHosts("hosts", spec.hosts());
        OrderingBinding binding = spec.binding();
        binding.checkSpec(spec); // before any file is written
        prepareDirectory();
        var ports = freePorts(binding.portCount(spec)).iterator();
        ClusterDescriptor cluster = binding.layout(spec, ports::next);
        if (binding.hasKeys()) {
            binding.writeKeys(dir, cluster, false);
        }
        if (secures()) {
            cluster = cluster.withTls(ClusterTls.fresh());
            ClusterTlsFiles.write(dir.path(), cluster, spec.clientHosts() == null ? List.of() : spec.clientHosts());
        }
        return launchAll(cluster, timeout);
    }

    /**
     * {@code cluster init}: writes {@code cluster} (laid out by {@link ClusterLayout} for other machines) as this
     * directory's cluster.json, and where the nodes sign (PBFT) a new key generation into {@code keys/} as {@link #start}
     * does,
     * starting nothing. The directory is then copied to every machine, where {@code ./psmr node --cluster
     * DIR/cluster.json --name NAME} runs each node.
     *
     * <p>Refuses a directory with a cluster.json (or keys/) unless {@code force}, which replaces just those; refuses,
     * even with {@code force}, one that holds a cluster's data, logs or status (a cluster that ran: its data is never
     * destroyed here; {@code cluster start --force} deletes a stopped cluster), and one with other files.
     *
     * @return the names of what {@code force} replaced, empty if nothing
     * @throws IllegalStateException naming what the directory holds
     */
    public List<String> init(ClusterDescriptor cluster, boolean force) {
        Path d = dir.path();
        if (Files.exists(d) && !Files.isDirectory(d)) {
            throw new IllegalStateException(d + " exists and is not a directory");
        }
        List<String> replaced = new ArrayList<>();
        if (Files.exists(d)) {
            List<String> ran = new ArrayList<>();
            for (String name : List.of("data", "logs", "status", "proposers", "sessions")) {
                if (Files.exists(d.resolve(name))) {
                    ran.add(Files.isDirectory(d.resolve(name)) ? name + "/" : name);
                }
            }
            if (!ran.isEmpty()) {
                throw new IllegalStateException(d + " holds a cluster that has run (" + String.join(", ", ran)
                        + "); nothing was changed: init writes only a new cluster's files (use ./psmr cluster start --force"
                        + " to delete a stopped cluster, or choose a new directory)");
            }
            List<String> held = new ArrayList<>();
            List<String> other = new ArrayList<>();
            try (Stream<Path> rest = Files.list(d)) {
                for (Path p : rest.sorted().toList()) {
                    String name = p.getFileName().toString();
                    if (name.equals(ClusterDescriptor.FILE) || name.equals("keys")) {
                        held.add(Files.isDirectory(p) ? name + "/" : name);
                    } else if (!name.equals("cluster.lock") && !name.equals(ClusterTlsFiles.DIRECTORY)) {
                        other.add(name);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + d, e);
            }
            if (!other.isEmpty()) {
                throw new IllegalStateException(d + " is not empty and holds no cluster (it has " + other.get(0)
                        + "); choose a new or empty directory");
            }
            if (!held.isEmpty() && !force) {
                throw new IllegalStateException(d + " already holds " + String.join(" and ", held)
                        + "; nothing was changed: pass --force to replace it");
            }
            for (String name : held) {
                deleteTree(d.resolve(name.replace("/", "")));
            }
            replaced.addAll(held);
            if (force) {
                replaced.addAll(ClusterTlsFiles.deleteMembers(d));
            }
        }
        dir.create(cluster);
        if (cluster.binding().hasKeys()) {
            cluster.binding().writeKeys(dir, cluster, false);
        }
        if (cluster.tls() != null) {
            ClusterTlsFiles.write(d, cluster, List.of());
        }
        return replaced;
    }

    private ClusterDescriptor launchAll(ClusterDescriptor cluster, Duration timeout) throws InterruptedException {
        dir.create(cluster);
        try {
            if (metrics) {
                Files.writeString(dir.metricsMarker(), "nodes serve GET /metrics on an ephemeral port; see status/NAME.json\n");
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            if (links) {
                launchLinks(deadline);
            }
            for (ClusterNode n : cluster.nodes()) {
                launch(n);
            }
            for (ClusterNode n : cluster.nodes()) {
                awaitServing(n.name(), deadline);
            }
            awaitLeader(deadline);
        } catch (IOException e) {
            killAll();
            throw new UncheckedIOException("cannot write " + dir.metricsMarker(), e);
        } catch (RuntimeException | InterruptedException e) {
            killAll();
            throw e;
        }
        return dir.read();
    }

    /**
     * Kills node {@code name} (SIGKILL: no clean-up, as a crash), or, if {@code name} is
     * {@code coordinator}, the node that leads ({@link #leader()}).
     *
     * @return the name of the node killed
     * @throws IllegalArgumentException if there is no such node
     * @throws IllegalStateException    if it is not running, or no node coordinates within 10 s (an
     *                                  election may take a moment; its status files lag by up to a second)
     */
    public String kill(String name) throws InterruptedException {
        String target = "coordinator".equals(name) ? awaitLeader(Duration.ofSeconds(10)) : name;
        ClusterNode node = node(dir.read(), target);
        ProcessHandle ph = live(node).orElseThrow(() -> new IllegalStateException("node " + target + " is not running"));
        ph.destroyForcibly();
        awaitExit(ph, Duration.ofSeconds(10));
        dir.update(c -> c.withProcess(target, null));
        return target;
    }

    /**
     * Restarts node {@code name} from its durable state on its port (killing it first if it runs);
     * returns once it serves. Ring Paxos acceptors restart from their log, Ratis peers from their Raft
     * log and snapshots, replicas from their newest checkpoint; see {@link #requireRestartable} for those that cannot.
     *
     * @throws IllegalArgumentException for an unknown node
     * @throws IllegalStateException    for a node that cannot be restarted, or one that does not serve in time
     */
    public void restart(String name, Duration timeout) throws InterruptedException {
        ClusterDescriptor cluster = dir.read();
        ClusterNode node = node(cluster, name);
        requireRestartable(cluster, node);
        Optional<ProcessHandle> running = live(node);
        if (running.isPresent()) {
            running.get().destroyForcibly();
            awaitExit(running.get(), Duration.ofSeconds(10));
        }
        launch(dir.read().node(name).orElseThrow());
        awaitServing(name, System.nanoTime() + timeout.toNanos());
    }

    /**
     * Testing only: restarts PBFT replica {@code name} as {@link #restart} does, Byzantine in {@code mode} from
     * this start on, or correct again if {@code mode} is empty. cluster.json records the mode before the
     * replica starts, so a later {@code restart} keeps it.
     *
     * @throws IllegalArgumentException for an unknown node, or one more Byzantine replica than f
     * @throws IllegalStateException    if the cluster is not ordered by PBFT, or as {@link #restart}
     */
    public void restartAs(String name, Optional<io.psmr.ordering.pbft.byzantine.ByzantineMode> mode, Duration timeout)
            throws InterruptedException {
        node(dir.read(), name);
        dir.update(c -> c.withByzantine(name, mode));
        restart(name, timeout);
    }

    /**
     * Testing only: cues dormant Byzantine PBFT replica {@code name} ({@link ClusterSpec#withDormantByzantine}) to act
     * in its mode from now on, without a restart, and returns once its status says so. cluster.json then records it
     * awake, so a later restart keeps it Byzantine from its start.
     *
     * @throws IllegalArgumentException for an unknown node, or one that is not a dormant Byzantine replica
     * @throws IllegalStateException    naming the node, if it does not say it is awake within {@code timeout}
     */
    public void cueByzantine(String name, Duration timeout) throws InterruptedException {
        ClusterDescriptor cluster = dir.read();
        node(cluster, name);
        if (cluster.pbft() == null || !cluster.pbft().isDormant(name)) {
            throw new IllegalArgumentException(name + " is not a dormant Byzantine replica; nothing to cue");
        }
        Path cue = dir.byzantineCue(name);
        try {
            Files.createDirectories(cue.getParent());
            Files.writeString(cue, cluster.pbft().byzantineMode(name).orElseThrow().cliName() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + cue, e);
        }
        dir.update(c -> c.withByzantineAwake(name));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(name));
            if (s.isPresent() && s.get().pid() == node(dir.read(), name).pid() && s.get().detail() != null
                    && s.get().detail().startsWith("BYZANTINE")
                    && !s.get().detail().lines().findFirst().orElse("").contains(PbftStoreNode.DORMANT)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not say it acts Byzantine within " + timeout.toMillis()
                        + " ms of its cue " + cue + "; last lines of its log:\n" + tail(dir.logFile(name), 15));
            }
            Thread.sleep(POLL_MILLIS); // polling a file another process writes
        }
    }

    /**
     * Why {@link #restart} would refuse node {@code name}, or empty if it can bring it back: the one
     * rule, so that tools choosing nodes to crash (the fault campaign) follow what restart allows.
     *
     * @throws IllegalArgumentException for an unknown node
     */
    public Optional<String> restartRefusal(String name) {
        ClusterDescriptor cluster = dir.read();
        return restartRefusal(cluster, node(cluster, name));
    }

    private static Optional<String> restartRefusal(ClusterDescriptor cluster, ClusterNode node) {
        return cluster.binding().restartRefusal(cluster, node);
    }

    /**
     * Refuses a node that {@link #restartRefusal} says cannot come back: the one rule, for
     * {@link #restart} and {@link #resume} alike.
     *
     * @throws IllegalStateException naming the node and why
     */
    static void requireRestartable(ClusterDescriptor cluster, ClusterNode node) {
        Optional<String> refusal = restartRefusal(cluster, node);
        if (refusal.isPresent()) {
            throw new IllegalStateException(refusal.get());
        }
    }

    /**
     * Starts a stopped cluster again from its cluster.json and durable state, keeping every file:
     * each node goes through the restart path of {@link #restart} (so a node that cannot be restarted
     * refuses the whole resume before anything starts); returns once every node serves and a node
     * coordinates (or leads). If a node does not come up, the nodes this call started are killed.
     *
     * @return the names of the nodes started, in cluster.json order
     * @throws IllegalStateException if there is no cluster, a node of it still runs, a node cannot be
     *                               restarted, or the cluster does not serve within {@code timeout}
     */
    public List<String> resume(Duration timeout) throws InterruptedException {
        if (!dir.exists()) {
            throw new IllegalStateException("no cluster to resume in " + dir.path() + " (no " + ClusterDescriptor.FILE + ")");
        }
        ClusterDescriptor cluster = dir.read();
        List<String> running = cluster.nodes().stream().filter(n -> live(n).isPresent()).map(ClusterNode::name).toList();
        if (!running.isEmpty()) {
            throw new IllegalStateException("cannot resume the cluster in " + dir.path() + ": nodes " + running
                    + " still run; stop them first with ./psmr cluster stop --dir " + dir.path());
        }
        for (ClusterNode n : cluster.nodes()) {
            requireRestartable(cluster, n);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> started = new ArrayList<>();
        try {
            if (links().isPresent() && linkHost().isEmpty()) {
                launchLinks(deadline);
            }
            for (ClusterNode n : cluster.nodes()) {
                launch(dir.read().node(n.name()).orElseThrow());
                started.add(n.name());
            }
            for (String name : started) {
                awaitServing(name, deadline);
            }
            awaitLeader(deadline);
        } catch (RuntimeException | InterruptedException e) {
            killAll();
            throw e;
        }
        return started;
    }

    /**
     * Stops every running node (SIGTERM, then SIGKILL after {@code grace}), then the link host if the cluster has one
     * running; returns the names stopped, {@link #LINKS} last for the link host. links.json stays, so {@link #resume}
     * starts the links again.
     */
    public List<String> stop(Duration grace) throws InterruptedException {
        ClusterDescriptor cluster = dir.read();
        List<String> stopped = new ArrayList<>();
        List<ProcessHandle> handles = new ArrayList<>();
        for (ClusterNode n : cluster.nodes()) {
            Optional<ProcessHandle> ph = live(n);
            if (ph.isPresent()) {
                ph.get().destroy();
                handles.add(ph.get());
                stopped.add(n.name());
            }
        }
        for (ProcessHandle ph : handles) {
            if (!awaitExit(ph, grace)) {
                ph.destroyForcibly();
                awaitExit(ph, Duration.ofSeconds(10));
            }
        }
        dir.update(c -> {
            ClusterDescriptor d = c;
            for (ClusterNode n : c.nodes()) {
                d = d.withProcess(n.name(), null);
            }
            return d;
        });
        Optional<ProcessHandle> linkHost = linkHost();
        if (linkHost.isPresent()) {
            linkHost.get().destroy();
            if (!awaitExit(linkHost.get(), grace)) {
                linkHost.get().destroyForcibly();
            }
            stopped.add("links");
        }
        return stopped;
    }

    /**
     * Replaces a stopped cluster's keys with a new key generation ({@code DIR/keys}, owner-only), keeping its
     * data: pair keys are shared, so every replica changes generation at once, and none may run meanwhile.
     *
     * @return the new generation's id
     * @throws IllegalArgumentException if the cluster's nodes do not sign ({@link OrderingBinding#hasKeys()}: only
     *                                  PBFT's do), or names the nodes still running
     * @throws UncheckedIOException     if the key files cannot be written
     */
    public String rotateKeys() {
        ClusterDescriptor cluster = dir.read();
        if (!cluster.binding().hasKeys()) {
            throw new IllegalArgumentException("only a pbft cluster has keys; this one is ordered by "
                    + cluster.ordering().cliName());
        }
        List<String> running = new ArrayList<>();
        for (ClusterNode n : cluster.nodes()) {
            live(n).ifPresent(ph -> running.add(n.name() + " (pid " + ph.pid() + ")"));
        }
        if (!running.isEmpty()) {
            throw new IllegalArgumentException("stop the cluster first (./psmr cluster stop --dir " + dir.path()
                    + "): all replicas change keys together, and these still run: " + String.join(", ", running));
        }
        return cluster.binding().writeKeys(dir, cluster, true);
    }

    /**
     * A live PBFT replica that executed instances after its newest checkpoint: a stop now loses them, since PBFT
     * replicas keep their log in memory and a resumed cluster starts from checkpoints.
     *
     * @param node       the replica
     * @param instance   the last instance it executed
     * @param checkpoint its newest checkpoint's instance (0 if none)
     */
    public record Uncheckpointed(String node, long instance, long checkpoint) {
    }

    /**
     * Each live replica with instances after its newest checkpoint, where a stop loses those
     * ({@link OrderingBinding#losesUncheckpointedOnStop()}: PBFT); empty for the other orderings.
     */
    public List<Uncheckpointed> uncheckpointed() throws IOException {
        ClusterDescriptor cluster = dir.read();
        List<Uncheckpointed> out = new ArrayList<>();
        if (!cluster.binding().losesUncheckpointedOnStop()) {
            return out;
        }
        for (NodeView v : status()) {
            if (!v.alive() || v.status() == null) {
                continue;
            }
            long checkpoint = io.psmr.kvstore.checkpoint.CheckpointStore
                    .latestIn(dir.dataDir(v.node().name()).resolve("checkpoints")).orElse(0);
            if (v.status().instance() > checkpoint) {
                out.add(new Uncheckpointed(v.node().name(), v.status().instance(), checkpoint));
            }
        }
        return out;
    }

    /** Every node with what its process and status file say now. */
    public List<NodeView> status() {
        ClusterDescriptor cluster = dir.read();
        List<NodeView> views = new ArrayList<>();
        for (ClusterNode n : cluster.nodes()) {
            boolean alive = live(n).isPresent();
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(n.name()))
                    .filter(st -> n.pid() != null && st.pid() == n.pid());
            views.add(new NodeView(n, alive, alive ? s.orElse(null) : null));
        }
        return views;
    }

    /**
     * The live node that leads, if any: the Ring Paxos acceptor that coordinates (the lowest id if, briefly, two
     * believe it), the Ratis leader, or the PBFT primary of pillar 0 ({@link OrderingBinding#leaderRole()}).
     */
    public Optional<String> leader() {
        ClusterDescriptor cluster = dir.read();
        NodeRole role = cluster.binding().leaderRole();
        for (ClusterNode n : cluster.nodes()) {
            if (n.role() == role && live(n).isPresent()) {
                Optional<NodeStatus> s = StatusFile.read(dir.statusFile(n.name()));
                if (s.isPresent() && s.get().pid() == n.pid() && s.get().coordinator()) {
                    return Optional.of(n.name());
                }
            }
        }
        return Optional.empty();
    }

    /** Waits until a live node leads ({@link #leader()}); returns its name. */
    public String awaitLeader(Duration timeout) throws InterruptedException {
        return awaitLeader(System.nanoTime() + timeout.toNanos());
    }

    private String awaitLeader(long deadline) throws InterruptedException {
        while (true) {
            Optional<String> c = leader();
            if (c.isPresent()) {
                return c.get();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no node coordinates or leads (see the logs in " + dir.path().resolve("logs") + ")");
            }
            Thread.sleep(POLL_MILLIS); // polling files other processes write
        }
    }

    // ---------------------------------------------------------------- processes

    /**
     * The JVM options of a node of {@code role}: Chronicle Map's, the heap cap, SerialGC unless {@code extra} (a
     * {@link #NODE_JAVA_OPTS} value, null or blank for none) names a collector, then {@code extra}'s options, so that
     * a later {@code -Xmx} wins.
     */
    static List<String> jvmOptions(NodeRole role, String extra) {
        List<String> options = new ArrayList<>(ChronicleJvmFlags.CHRONICLE);
        // Caps, not reservations. An acceptor holds up to logCapacity (1,024) values of up to 1 MiB, and
        // compacting its log copies that state once more; a replica's store is off-heap.
        options.add(role == NodeRole.ACCEPTOR ? "-Xmx3g" : "-Xmx2g");
        List<String> added = extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
        if (added.stream().noneMatch(o -> o.matches("-XX:\\+Use[A-Za-z0-9]+GC"))) {
            options.add("-XX:+UseSerialGC"); // a node per core or more on small machines: no parallel GC threads
        }
        options.addAll(added);
        return options;
    }

    private void launch(ClusterNode node) {
        try {
            Files.createDirectories(dir.logFile(node.name()).getParent());
            Files.deleteIfExists(dir.statusFile(node.name()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir.path(), e);
        }
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid"); // its own session: a terminal's Ctrl-C stays with the launcher
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions(node.role(), System.getenv(NODE_JAVA_OPTS)));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NodeHost.class.getName());
        cmd.addAll(List.of("--dir", dir.path().toString(), "--name", node.name()));
        if (Files.exists(dir.metricsMarker())) {
            cmd.addAll(List.of("--metrics-port", "0"));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.logFile(node.name()).toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + node.name() + ": " + e.getMessage(), e);
        }
        dir.update(c -> c.withProcess(node.name(), process.toHandle()));
    }

    private void awaitServing(String name, long deadline) throws InterruptedException {
        ClusterNode node = node(dir.read(), name);
        while (true) {
            Optional<NodeStatus> s = StatusFile.read(dir.statusFile(name));
            if (s.isPresent() && s.get().pid() == node.pid() && s.get().serving()) {
                return;
            }
            if (live(node).isEmpty()) {
                throw new IllegalStateException("node " + name + " exited while starting; last lines of its log:\n"
                        + tail(dir.logFile(name), 15));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("node " + name + " did not start serving in time; last lines of its log:\n"
                        + tail(dir.logFile(name), 15));
            }
            Thread.sleep(POLL_MILLIS); // polling a file another process writes
        }
    }

    /** The link host's process, if the cluster has links and it runs. */
    private Optional<ProcessHandle> linkHost() {
        return links().flatMap(LinkTable::liveProcess);
    }

    /** Starts the link host and waits until it wrote a links.json of its own. */
    private void launchLinks(long deadline) throws InterruptedException {
        LinkHost.loopbackHost(dir.read()); // refused before any process starts
        List<String> cmd = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            cmd.add("/usr/bin/setsid");
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), LinkHost.class.getName(), "--dir", dir.path().toString()));
        Process process;
        try {
            Files.createDirectories(dir.logFile(LINKS).getParent());
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.logFile(LINKS).toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the links of " + dir.path() + ": " + e.getMessage(), e);
        }
        while (links().filter(t -> t.pid() == process.pid()).isEmpty()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the links of " + dir.path() + " exited while starting; last lines of"
                        + " their log:\n" + tail(dir.logFile(LINKS), 15));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("the links of " + dir.path() + " did not listen in time; last lines of"
                        + " their log:\n" + tail(dir.logFile(LINKS), 15));
            }
            Thread.sleep(POLL_MILLIS); // polling a file another process writes
        }
    }

    private void killAll() {
        try {
            linkHost().ifPresent(ProcessHandle::destroyForcibly);
            for (ClusterNode n : dir.read().nodes()) {
                live(n).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (RuntimeException e) {
            // best effort while failing: the original error matters more
        }
    }

    private static boolean awaitExit(ProcessHandle ph, Duration timeout) throws InterruptedException {
        try {
            ph.onExit().get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return !ph.isAlive();
        }
    }

    private static Optional<ProcessHandle> live(ClusterNode node) {
        return node.liveProcess();
    }

    private static ClusterNode node(ClusterDescriptor cluster, String name) {
        return cluster.node(name).orElseThrow(() -> new IllegalArgumentException("no node '" + name + "' in the cluster; nodes: "
                + cluster.nodes().stream().map(ClusterNode::name).toList()));
    }

    // ---------------------------------------------------------------- directory and ports

    /** What {@link #wipe} removes, and what makes {@link #start} refuse a directory. */
    private static final List<String> CLUSTER_FILES = List.of(ClusterDescriptor.FILE, "data", "logs", "status", "proposers",
            "sessions", "cluster.lock", "keys", "metrics", "cues", LinkTable.FILE);

    /**
     * The cluster state this directory holds, by name ({@code cluster.json}, {@code data/},
     * {@code logs/}), empty if none: what {@code cluster start} refuses to overwrite.
     */
    public List<String> holdings() {
        List<String> held = new ArrayList<>();
        for (String name : List.of(ClusterDescriptor.FILE, "data", "logs", "keys")) {
            if (Files.exists(dir.path().resolve(name))) {
                held.add(Files.isDirectory(dir.path().resolve(name)) ? name + "/" : name);
            }
        }
        return held;
    }

    /**
     * Deletes a stopped cluster's files from the directory (cluster.json, data/, logs/, status/,
     * proposers/, sessions, cluster.lock, keys/, metrics, cues/, links.json, and the member certificates in tls/), for
     * {@code cluster start --force}; other files stay, the TLS authority in tls/ among them.
     *
     * @return the names removed, empty if there was nothing
     * @throws IllegalStateException if nodes of the cluster still run
     */
    public List<String> wipe() {
        Path d = dir.path();
        if (dir.exists()) {
            ClusterDescriptor old = null;
            try {
                old = dir.read();
            } catch (IllegalArgumentException unreadable) {
                // --force removes it anyway: that is what the flag asks for; its pids cannot be checked
            }
            if (old != null) {
                requireStopped(old);
            }
        }
        List<String> removed = new ArrayList<>();
        for (String sub : CLUSTER_FILES) {
            Path p = d.resolve(sub);
            if (Files.exists(p)) {
                removed.add(Files.isDirectory(p) ? sub + "/" : sub);
                deleteTree(p);
            }
        }
        removed.addAll(ClusterTlsFiles.deleteMembers(d)); // the authority stays: it may be the operator's
        return removed;
    }

    /**
     * Deletes a stopped cluster's stores ({@code data/}), keeping cluster.json, the logs and the status files: what a
     * benchmark does once it has measured a cluster, whose stores (tens of megabytes per node) are of no use after.
     *
     * @return whether there were stores to delete
     * @throws IllegalStateException if nodes of the cluster still run
     */
    public boolean deleteStores() {
        requireStopped(dir.read());
        Path data = dir.path().resolve("data");
        boolean had = Files.exists(data);
        deleteTree(data);
        return had;
    }

    private void requireStopped(ClusterDescriptor cluster) {
        List<String> running = cluster.nodes().stream().filter(n -> live(n).isPresent()).map(ClusterNode::name).toList();
        if (!running.isEmpty()) {
            throw new IllegalStateException("a cluster is already running in " + dir.path() + " (nodes " + running
                    + "); stop it first with ./psmr cluster stop --dir " + dir.path()
                    + " (--force and --resume apply to a stopped cluster)");
        }
    }

    /** A new directory, or an existing one that holds no cluster and nothing else. */
    private void prepareDirectory() {
        Path d = dir.path();
        if (!Files.exists(d)) {
            return;
        }
        if (!Files.isDirectory(d)) {
            throw new IllegalArgumentException(d + " exists and is not a directory");
        }
        if (dir.exists()) {
            try {
                requireStopped(dir.read());
            } catch (IllegalArgumentException unreadable) {
                // refused below like any other cluster state
            }
        }
        List<String> held = holdings();
        if (!held.isEmpty()) {
            throw new IllegalStateException(d + " already holds a cluster (" + String.join(", ", held)
                    + "); nothing was changed: pass --force to delete it and start afresh, or --resume to start it again from its data");
        }
        try (Stream<Path> rest = Files.list(d)) {
            // DIR/tls may hold the operator's authority, for the cluster to issue its members' certificates with.
            List<Path> other = rest.filter(p -> !p.getFileName().toString().equals(ClusterTlsFiles.DIRECTORY)).toList();
            if (!other.isEmpty()) {
                throw new IllegalStateException(d + " is not empty and holds no cluster (it has " + other.get(0).getFileName()
                        + "); choose a new or empty directory");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + d, e);
        }
    }

    private static void deleteTree(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path q : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + p, e);
        }
    }

    /**
     * {@code n} distinct free ports on 127.0.0.1, held open together so that none repeats, chosen
     * outside the kernel's ephemeral range: a fixed port in that range can be taken by any outgoing
     * connection (a node redialling a dead peer, even a TCP self-connect) while its node is down, and
     * then a restart could not bind it. Falls back to ephemeral ports when too few others are free.
     */
    static List<Integer> freePorts(int n) {
        int[] ephemeral = ephemeralRange();
        List<int[]> ranges = new ArrayList<>();
        if (ephemeral[0] - 1 >= FIXED_PORT_FLOOR) {
            ranges.add(new int[] {FIXED_PORT_FLOOR, ephemeral[0] - 1});
        }
        if (ephemeral[1] + 1 <= 65535) {
            ranges.add(new int[] {ephemeral[1] + 1, 65535});
        }
        List<ServerSocket> sockets = new ArrayList<>();
        java.util.Random random = new java.util.Random(); // which free ports: no bearing on replica state
        try {
            for (int attempt = 0; attempt < 50 * n && sockets.size() < n && !ranges.isEmpty(); attempt++) {
                int[] range = ranges.get(random.nextInt(ranges.size()));
                int port = range[0] + random.nextInt(range[1] - range[0] + 1);
                if (sockets.stream().anyMatch(x -> x.getLocalPort() == port)) {
                    continue;
                }
                ServerSocket s = new ServerSocket();
                s.setReuseAddress(true);
                try {
                    s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                    sockets.add(s);
                } catch (IOException taken) {
                    s.close();
                }
            }
            while (sockets.size() < n) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                s.setReuseAddress(true);
                sockets.add(s);
            }
            return sockets.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find " + n + " free ports on 127.0.0.1", e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to do
                }
            }
        }
    }

    /**
     * The kernel's ephemeral port range (Linux), or where it cannot be read 32768 to 65535, which covers both Linux's
     * default and IANA's. Read line by line: some kernels hand a whole-file read of a /proc file only its first byte.
     */
    static int[] ephemeralRange() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"));
            String[] parts = lines.get(0).trim().split("\\s+");
            int low = Integer.parseInt(parts[0]);
            int high = Integer.parseInt(parts[1]);
            if (low < 1 || high > 65535 || low > high) {
                throw new IllegalArgumentException("not a port range: " + lines.get(0));
            }
            return new int[] {low, high};
        } catch (IOException | RuntimeException e) {
            return new int[] {32768, 65535};
        }
    }

    private static String tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /**
     * A node as {@code cluster status} shows it.
     *
     * @param node   what cluster.json says
     * @param alive  whether its process runs
     * @param status its status file, if it runs and wrote one
     */
    public record NodeView(ClusterNode node, boolean alive, NodeStatus status) {
    }
}
