package io.psmr.bench.cli;

import io.psmr.kvstore.pbft.PbftBinding;
import io.psmr.kvstore.ratis.RatisBinding;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.pbft.PbftStopCheckpoint;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterLayout;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterTlsFiles;
import io.psmr.kvstore.cluster.OrderingBinding;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.metrics.MetricsScrape;
import io.psmr.ordering.node.NodeStatus;
import java.time.Duration;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.kvstore.StoreSizing;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code psmr cluster init|start|status|kill|restart|stop}: a Ring Paxos (or Apache Ratis, or PBFT) cluster of
 * separate processes, on 127.0.0.1 by default, described by {@code DIR/cluster.json}; {@code init} only writes the
 * file for nodes on other machines. Drive it with {@code ./psmr load --cluster DIR}.
 */
@Command(name = "cluster",
        mixinStandardHelpOptions = true,
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n",
        description = {
            "Run a replicated key-value store as separate processes (on 127.0.0.1, or --hosts): Ring Paxos acceptors and replicas, Apache Ratis peers, or PBFT replicas.",
            "cluster init writes the cluster.json of a cluster on several machines, each running ./psmr node --cluster FILE --name NAME (docs/deployment.md).",
            "Drive it with ./psmr load --cluster DIR. Docs: docs/ringpaxos.md (Running a cluster of processes), docs/integration.md (Ratis), docs/pbft.md (PBFT)."},
        subcommands = {ClusterCommand.Init.class, ClusterCommand.Start.class, ClusterCommand.Status.class, ClusterCommand.Kill.class,
            ClusterCommand.Restart.class, ClusterCommand.Stop.class, ClusterCommand.RotateKeys.class})
public final class ClusterCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: init, start, status, kill, restart, stop or rotate-keys");
    }

    /** {@code --dir}, shared by every subcommand. */
    static final class DirOption {
        @Option(names = "--dir", paramLabel = "DIR", required = true, description = "The cluster directory (holds cluster.json).")
        Path dir;
    }

    /**
     * {@code cluster init}: the cluster.json (and for PBFT the keys) of a cluster whose nodes run on other machines,
     * laid out by {@link ClusterLayout} with ports from {@code --base-port}; starts nothing.
     */
    @Command(name = "init", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Write DIR/cluster.json (and DIR/keys for pbft) of a cluster on the machines --hosts names; start nothing.",
                "Copy DIR to every machine and run ./psmr node --cluster DIR/cluster.json --name NAME there (docs/deployment.md).",
                "Takes start's sizing options; refuses (exit 1) a DIR with a cluster.json unless --force, and always one whose cluster has run."})
    static final class Init extends Start {

        @Option(names = "--client-hosts", paramLabel = "HOST,...", split = ",",
                description = "Ring Paxos only: the machines load processes run on; the 8 proposer slots go round-robin on them "
                        + "(default: the first of --hosts). Session numbers are counted per copy of DIR: keep loads to one machine.")
        List<String> clientHosts;

        @Option(names = "--base-port", paramLabel = "PORT", defaultValue = "7000",
                description = "The first port; the cluster takes consecutive ports from it, the same on every machine "
                        + "(default: ${DEFAULT-VALUE}).")
        int basePort;

        @Override
        public Integer call() throws Exception {
            CommandLine cl = spec.commandLine();
            for (String flag : new String[] {"--resume", "--timeout", "--metrics", "--links"}) {
                require(cl, !cl.getParseResult().hasMatchedOption(flag), flag + " is a cluster start option; init starts nothing"
                        + ("--metrics".equals(flag) ? " (give each node --metrics-port PORT: ./psmr node --help)" : ""));
            }
            require(cl, cl.getParseResult().hasMatchedOption("--hosts"), "init needs --hosts HOST,... (the machines of the nodes)");
            require(cl, clientHosts == null || takes(ordering, "--client-hosts"),
                    "--client-hosts is a Ring Paxos setting (where proposer slots are); a " + ordering.cliName() + " cluster has none");
            return super.call();
        }

        @Override
        int run(CommandLine cl, int n, java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> liars,
                ClusterSettings settings, List<String> where) {
            List<String> clients;
            try {
                clients = clientHosts == null ? where.subList(0, 1) : ClusterLayout.checkHosts("--client-hosts", clientHosts);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, e.getMessage());
            }
            ClusterSpec shape = spec(n, liars, settings, where).withClientHosts(clients);
            int count = shape.portCount();
            require(cl, basePort >= 1024 && basePort + count - 1 <= 65535, "--base-port must be from 1024 to " + (65536 - count)
                    + " (this cluster takes " + count + " ports from it), got " + basePort);
            int[] next = {basePort};
            java.util.function.IntSupplier ports = () -> next[0]++;
            ClusterLauncher launcher = new ClusterLauncher(dir.dir).insecure(insecure);
            ClusterDescriptor cluster = shape.layout(ports);
            if (launcher.secures()) {
                cluster = cluster.withTls(io.psmr.kvstore.cluster.ClusterTls.fresh());
            }
            PrintWriter out = cl.getOut();
            warnInsecure(cl, where);
            List<String> replaced = launcher.init(cluster, force);
            if (!replaced.isEmpty()) {
                out.println("--force: replaced " + String.join(", ", replaced) + " in " + launcher.directory().path());
            }
            Path file = launcher.directory().path().resolve(ClusterDescriptor.FILE);
            out.println("wrote " + file + (cluster.binding().hasKeys() ? " and " + launcher.directory().keysDir() : "")
                    + (cluster.tls() != null ? ", " + ClusterTlsFiles.tlsDir(launcher.directory().path()) + " (mutual TLS)" : "")
                    + ": a " + ordering.cliName() + " cluster, ports " + basePort + " to " + (basePort + count - 1));
            java.util.Map<String, List<String>> byHost = new java.util.LinkedHashMap<>();
            for (ClusterNode node : cluster.nodes()) {
                byHost.computeIfAbsent(node.host(), h -> new java.util.ArrayList<>()).add(node.name());
            }
            for (var e : byHost.entrySet()) {
                out.println("  " + e.getKey() + ": " + String.join(" ", e.getValue()));
            }
            if (!cluster.proposers().isEmpty()) {
                out.println("  load processes (proposer slots) on: " + String.join(" ",
                        cluster.proposers().stream().map(p -> p.host()).distinct().toList()));
            }
            out.println("copy " + launcher.directory().path() + " to every machine; on each, for each of its nodes: "
                    + "./psmr node --cluster " + file + " --name NAME");
            out.flush();
            return 0;
        }
    }

    /** {@code cluster start}. */
    @Command(name = "start", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Start a cluster: each acceptor and replica in its own JVM; returns once it serves.",
                "Refuses (exit 1) a DIR that already holds a cluster: --force deletes it first, --resume starts it again from its data."})
    static class Start implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Option(names = "--ordering", paramLabel = "ORDERING", defaultValue = "ringpaxos", converter = OrderingConverter.class,
                description = "ringpaxos (acceptors and replicas), ratis (Apache Ratis peers, psmr executing their log) or pbft "
                        + "(3f+1 PBFT replicas with COP pillars, keys generated into DIR/keys) (default: ${DEFAULT-VALUE}).")
        OrderingProtocol ordering;

        @Option(names = "--acceptors", paramLabel = "N", defaultValue = "3",
                description = "Ring Paxos acceptors, 2f+1 tolerate f crashes, 1 to 15 (default: ${DEFAULT-VALUE}); not with ratis.")
        int acceptors;

        @Option(names = "--replicas", paramLabel = "N", defaultValue = "2",
                description = "Replicas, 1 to 16 (with ratis: Raft peers, 2f+1 tolerate f crashes; with pbft: 3f+1 PBFT replicas, 4 to 64, "
                        + "tolerate f Byzantine ones) (default: 2 Ring Paxos replicas, " + RatisBinding.DEFAULT_PEERS + " Ratis peers, "
                        + PbftBinding.DEFAULT_REPLICAS + " PBFT replicas: the fewest that tolerate one failure).")
        int replicas;

        @Option(names = "--mode", paramLabel = "MODE", defaultValue = "bitmap-indexed", converter = SchedulerModeConverter.class,
                description = "Scheduler of the replicas (and conflict detection of every proxy): sequential, cbase, keys-pairwise, "
                        + "keys-hashed, bitmap-monitor, bitmap-indexed or rw-bitmap (default: ${DEFAULT-VALUE}).")
        SchedulerMode mode;

        @Option(names = "--workers", paramLabel = "N", defaultValue = "2", description = "Worker threads per replica, " + OptionRanges.WORKERS + " (default: ${DEFAULT-VALUE}).")
        int workers;

        @Option(names = "--max-keys", paramLabel = "N", defaultValue = "100000",
                description = "Replicated store capacity in entries, 1 to 10^9: every replica refuses, with status FULL, "
                        + "the same writes that could take the store past it, decided in log order (default: ${DEFAULT-VALUE}).")
        long maxKeys;

        @Option(names = "--max-bytes", paramLabel = "BYTES",
                description = "Replicated store capacity in key-plus-value bytes, 1 to max-keys x (1024 + 16384), the "
                        + "largest key and value; writes that could exceed it are refused FULL (default: max-keys x ("
                        + StoreSizing.KEY_BYTES + " + --value-size), so that the entry count binds first for keys up to "
                        + StoreSizing.KEY_BYTES + " bytes).")
        Long maxBytes;

        @Option(names = "--value-size", paramLabel = "BYTES", defaultValue = "64",
                description = "Value size the default --max-bytes allows per entry, 1 to 16384 (default: ${DEFAULT-VALUE}); "
                        + "larger values are accepted while the byte capacity has room.")
        int valueSize;

        @Option(names = "--tick", paramLabel = "TIME", defaultValue = "10ms", converter = DurationConverter.class,
                description = "Ring Paxos tick, 1ms to 1s; a coordinator is suspected after 10 ticks (default: ${DEFAULT-VALUE}); not with ratis.")
        Duration tick;

        @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
                description = "How long the cluster may take to serve, 1s to 10m (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Option(names = "--pillars", paramLabel = "N", defaultValue = "2",
                description = "PBFT only: COP pillars per replica, " + OptionRanges.PILLARS + " (default: ${DEFAULT-VALUE}).")
        int pillars;

        @Option(names = "--leader-rotation", paramLabel = "MODE", defaultValue = "rotating", converter = RotationConverter.class,
                description = "PBFT only: rotating (COP's block-wise rotation) or fixed leaders (default: ${DEFAULT-VALUE}); "
                        + "fixed gives up COP's spreading of the leaders' work.")
        io.psmr.ordering.pbft.LeaderRotation rotation;

        @Option(names = "--leader-selection", paramLabel = "POLICY", defaultValue = "blacklist",
                converter = LeaderSelectionConverter.class,
                description = "PBFT only: blacklist (a leader that f+1 replicas blame for a view change is kept from leading "
                        + "for a backoff counted in instances, doubling if blamed again) or all (every replica leads in "
                        + "turn, a faulty one too) (default: ${DEFAULT-VALUE}). Docs: docs/pbft.md (Leader selection).")
        io.psmr.ordering.pbft.LeaderSelection leaderSelection;

        @Option(names = "--byzantine", paramLabel = "replica-N=MODE",
                description = "PBFT only, TESTING AND DEMONSTRATION ONLY: run replica N as a Byzantine replica on purpose, "
                        + "at most f of them (repeat the flag); MODE: silent, equivocating-leader, forged-macs, wrong-digests, "
                        + "replays, lying-view-change, wrong-checkpoints, foreign-empties, slow-leader or wrong-replies. Kept in "
                        + "cluster.json (restart keeps it); shown by cluster status.")
        List<String> byzantine = List.of();

        @Option(names = "--metrics",
                description = "Each node serves Prometheus metrics at GET /metrics on an ephemeral port (in status/NAME.json; "
                        + "restarts keep serving them); cluster status then shows a few of them. Docs: docs/metrics.md.")
        boolean metrics;

        @Option(names = "--links",
                description = "Run the cluster behind fault-injecting links: a process of their own through which every "
                        + "node and load process dials the others, one link per directed pair, each of which can be cut, "
                        + "delayed, throttled and reset over the links' control port (links.json; restarts and --resume "
                        + "keep them). One loopback address only. Docs: docs/recovery.md (Network faults).")
        boolean links;

        @Option(names = "--insecure",
                description = "Run plain TCP: nothing authenticated or encrypted. Without it every link of the cluster runs "
                        + "mutual TLS under a cluster authority written to DIR/tls (or the operator's, if DIR/tls/ca.pem and "
                        + "ca.key are there). Docs: docs/security.md.")
        boolean insecure;

        @Option(names = "--hosts", paramLabel = "HOST,...", split = ",",
                description = "Addresses the nodes bind, round-robin in node order (acceptor i on host i mod k, replica r on host "
                        + "(r-1) mod k); with start, addresses of this machine such as 127.0.0.2,127.0.0.3 (default: 127.0.0.1).")
        List<String> hosts;

        @Option(names = "--force",
                description = "If DIR holds a stopped cluster, delete its cluster.json, data/, logs/ and keys/ first and start a new one.")
        boolean force;

        @Option(names = "--resume",
                description = "Start the stopped cluster in DIR again from its cluster.json and data, keeping every file "
                        + "(each node as cluster restart would); other flags given must match cluster.json.")
        boolean resume;

        /** The flags of a new cluster, which --resume takes from cluster.json instead. */
        private static final List<String> SHAPE = List.of("--ordering", "--acceptors", "--replicas", "--mode", "--workers",
                "--max-keys", "--max-bytes", "--value-size", "--tick");

        @Override
        public Integer call() throws Exception {
            CommandLine cl = spec.commandLine();
            require(cl, !(force && resume), "--force and --resume cannot be combined: --force deletes the cluster that --resume would start");
            require(cl, !resume || byzantine.isEmpty(), "--byzantine cannot be combined with --resume: the Byzantine replicas"
                    + " are those cluster.json names");
            requireTimeout(cl, timeout);
            if (resume) {
                return resume(cl);
            }
            require(cl, ordering != OrderingProtocol.MLBFT, "--ordering mlbft runs in one JVM only: use ./psmr load "
                    + "--ordering mlbft or ./psmr bench e2e --ordering mlbft (docs/mlbft.md)");
            require(cl, OrderingBinding.find(ordering).isPresent(), "--ordering must be ringpaxos, ratis or pbft, got '"
                    + ordering.cliName() + "' (a cluster of processes needs a replicated ordering)");
            OrderingBinding binding = OrderingBinding.of(ordering);
            for (String flag : new String[] {"--acceptors", "--tick"}) {
                require(cl, takes(ordering, flag) || !cl.getParseResult().hasMatchedOption(flag), flag + " is a Ring Paxos setting; a "
                        + ordering.cliName() + " cluster has none");
            }
            for (String flag : new String[] {"--pillars", "--leader-rotation", "--leader-selection", "--byzantine"}) {
                require(cl, takes(ordering, flag) || !cl.getParseResult().hasMatchedOption(flag), flag + " is a PBFT setting; a "
                        + ordering.cliName() + " cluster has none");
            }
            int n = cl.getParseResult().hasMatchedOption("--replicas") ? replicas : binding.defaultReplicas();
            Optional<String> replicasProblem = binding.replicaCountProblem(n);
            require(cl, replicasProblem.isEmpty(), "--replicas " + replicasProblem.orElse(""));
            OptionRanges.pillars(cl, pillars);
            java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> liars = byzantineModes(cl, n);
            require(cl, acceptors >= 1 && acceptors <= 15, "--acceptors must be from 1 to 15, got " + acceptors);
            OptionRanges.workers(cl, workers);
            require(cl, maxKeys >= 1 && maxKeys <= 1_000_000_000L, "--max-keys must be from 1 to 1000000000, got " + maxKeys);
            require(cl, valueSize >= 1 && valueSize <= 16384, "--value-size must be from 1 to 16384, got " + valueSize);
            long bytes = maxBytes != null ? maxBytes : StoreSizing.defaultMaxBytes(maxKeys, valueSize);
            require(cl, bytes >= 1 && bytes <= StoreSizing.maxUsefulBytes(maxKeys), "--max-bytes must be from 1 to "
                    + StoreSizing.maxUsefulBytes(maxKeys) + " (--max-keys " + maxKeys + " times the largest key and value), got " + bytes);
            require(cl, tick.toMillis() >= 1 && tick.toMillis() <= 1000,
                    "--tick must be from 1ms to 1s, got " + DurationConverter.format(tick));
            ClusterSettings settings = new ClusterSettings(mode, workers, maxKeys, valueSize, bytes, (int) tick.toMillis());
            List<String> where;
            try {
                where = ClusterLayout.checkHosts("--hosts", hosts == null ? ClusterLauncher.LOCAL : hosts);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(cl, e.getMessage());
            }
            return run(cl, n, liars, settings, where);
        }

        /** Starts the checked cluster ({@code init} writes it instead). */
        int run(CommandLine cl, int n, java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> liars,
                ClusterSettings settings, List<String> where) throws Exception {
            for (String h : where) {
                require(cl, ClusterLayout.isLocal(h), "--hosts: " + h + " is not an address of this machine; cluster start runs "
                        + "every node here (use cluster init for nodes on other machines)");
            }
            require(cl, !links || (where.size() == 1 && InetAddress.getByName(where.get(0)).isLoopbackAddress()),
                    "--links needs one loopback address in --hosts (the links listen beside the nodes), got " + where);
            ClusterLauncher launcher = new ClusterLauncher(dir.dir).serveMetrics(metrics).serveLinks(links).insecure(insecure);
            PrintWriter out = cl.getOut();
            warnInsecure(cl, where);
            if (force) {
                List<String> removed = launcher.wipe();
                if (!removed.isEmpty()) {
                    out.println("--force: deleted the old cluster in " + launcher.directory().path() + " ("
                            + String.join(", ", removed) + ")");
                    out.flush();
                }
            }
            ClusterDescriptor started = launcher.start(spec(n, liars, settings, where), timeout);
            out.println("cluster serving in " + launcher.directory().path() + " (" + launcher.directory().path()
                    .resolve(ClusterDescriptor.FILE) + "); store capacity " + settings.maxKeys() + " entries, "
                    + settings.maxBytes() + " key and value bytes (writes beyond it are refused FULL)");
            out.println(started.tls() != null ? "links: mutual TLS as members of cluster " + started.tls().cluster()
                    + " (certificates in " + ClusterTlsFiles.tlsDir(launcher.directory().path()) + ")"
                    : "links: plain TCP (--insecure)");
            printStatus(out, launcher);
            out.flush();
            return 0;
        }

        /**
         * Warns on stderr when the cluster's links run plain TCP beyond loopback, where anyone on the network can
         * read and forge them.
         */
        void warnInsecure(CommandLine cl, List<String> where) {
            for (String h : where) {
                if (insecure && !isLoopback(h)) {
                    cl.getErr().println("warning: --insecure: the links of the nodes on "
                            + h + " run plain TCP, beyond loopback; anyone on that network can read them and, for ringpaxos and"
                            + " ratis, forge commands (docs/security.md)");
                    cl.getErr().flush();
                    return;
                }
            }
        }

        private static boolean isLoopback(String host) {
            try {
                return InetAddress.getByName(host).isLoopbackAddress();
            } catch (java.net.UnknownHostException e) {
                return false;
            }
        }

        /** The cluster the flags describe: its binding takes the settings of its protocol and ignores the others. */
        ClusterSpec spec(int n, java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> liars,
                         ClusterSettings settings, List<String> where) {
            return ClusterSpec.of(ordering, n, settings).withAcceptors(acceptors).withHosts(where).withPillars(pillars)
                    .withRotation(rotation).withByzantine(liars).withLeaderSelection(leaderSelection);
        }

        /** {@code --byzantine replica-N=MODE...} of a cluster of {@code n} PBFT replicas, checked: node, mode, at most f. */
        private java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> byzantineModes(CommandLine cl, int n) {
            java.util.Map<String, io.psmr.ordering.pbft.byzantine.ByzantineMode> modes = new java.util.TreeMap<>();
            for (String spec : byzantine) {
                int eq = spec.indexOf('=');
                require(cl, eq > 0, "--byzantine must be replica-N=MODE, got '" + spec + "'");
                String node = spec.substring(0, eq);
                String mode = spec.substring(eq + 1);
                boolean known = node.matches("replica-[1-9][0-9]{0,2}") && Integer.parseInt(node.substring(8)) <= n;
                require(cl, known, "--byzantine: no replica '" + node + "' in a cluster of " + n + " (replica-1 to replica-" + n + ")");
                try {
                    require(cl, modes.put(node, io.psmr.ordering.pbft.byzantine.ByzantineMode.fromCliName(mode)) == null,
                            "--byzantine names " + node + " twice");
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(cl, "--byzantine " + node + ": " + e.getMessage());
                }
            }
            int f = (n - 1) / 3;
            require(cl, modes.size() <= f, "--byzantine names " + modes.size() + " replicas, but " + n + " replicas tolerate f = "
                    + f + " Byzantine ones");
            return modes;
        }

        /** {@code --resume}: every shape flag given must agree with cluster.json; then each node restarts. */
        private int resume(CommandLine cl) throws InterruptedException {
            ClusterLauncher launcher = new ClusterLauncher(dir.dir);
            if (!launcher.directory().exists()) {
                throw new IllegalStateException("--resume: no cluster in " + launcher.directory().path() + " (no "
                        + ClusterDescriptor.FILE + "); start one without --resume");
            }
            ClusterDescriptor c;
            try {
                c = launcher.directory().read();
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("--resume: " + e.getMessage());
            }
            List<String> contradictions = new java.util.ArrayList<>();
            for (String flag : SHAPE) {
                if (!cl.getParseResult().hasMatchedOption(flag)) {
                    continue;
                }
                Object value = cl.getParseResult().matchedOptionValue(flag, (Object) null);
                String given = value instanceof SchedulerMode m ? m.cliName()
                        : value instanceof OrderingProtocol o ? o.cliName()
                        : value instanceof Duration d ? DurationConverter.format(d) : String.valueOf(value);
                String held = switch (flag) {
                    case "--ordering" -> c.ordering().cliName();
                    case "--acceptors" -> Integer.toString(c.acceptors().size());
                    case "--replicas" -> Integer.toString(c.replicas().size());
                    case "--mode" -> c.settings().mode().cliName();
                    case "--workers" -> Integer.toString(c.settings().workers());
                    case "--max-keys" -> Long.toString(c.settings().maxKeys());
                    case "--max-bytes" -> Long.toString(c.settings().maxBytes());
                    case "--value-size" -> Integer.toString(c.settings().valueBytes());
                    default -> DurationConverter.format(Duration.ofMillis(c.settings().tickMillis()));
                };
                if (!given.equals(held)) {
                    contradictions.add(flag + " " + given + " (cluster.json: " + held + ")");
                }
            }
            require(cl, contradictions.isEmpty(), "--resume starts the cluster that " + launcher.directory().path()
                    .resolve(ClusterDescriptor.FILE) + " describes, but " + String.join(", ", contradictions)
                    + " contradicts it; leave those flags out");
            List<String> started = launcher.resume(timeout);
            PrintWriter out = cl.getOut();
            out.println("resumed " + started.size() + " nodes from " + launcher.directory().path() + " (" + String.join(", ", started)
                    + "); every file kept");
            printStatus(out, launcher);
            out.flush();
            return 0;
        }
    }

    /** {@code cluster status}: the table or JSON, and a health check's exit code. */
    @Command(name = "status", mixinStandardHelpOptions = true,
            description = {"Show every node (process, ports, state) of a Ring Paxos, Ratis or PBFT cluster, and which acceptor "
                    + "coordinates, which Ratis peer leads or which PBFT replica is the primary of pillar 0.",
                "A health check: exits 1, naming the nodes on stderr, when a node of this machine is not serving (dead, stopped, "
                    + "starting, catching up or failed). Nodes on other machines (state elsewhere) are not judged: run status there."},
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {
                "0:every node of this machine serves",
                "1:a node of this machine is dead, stopped, starting, catching up or failed",
                "2:usage error (no cluster in --dir, bad option)"})
    static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "text", converter = OutputFormat.Converter.class,
                description = "What goes to stdout: text (a table) or json (one object: dir, ordering, healthy, leader (the node that orders), "
                        + "and nodes, each with name, role, host, pid, port, reply_port, metrics_port, state, serving, "
                        + "instance, digest, failure, byzantine) (default: ${DEFAULT-VALUE}).")
        OutputFormat format;

        @Override
        public Integer call() {
            CommandLine cl = spec.commandLine();
            require(cl, format == OutputFormat.TEXT || format == OutputFormat.JSON,
                    "--format must be text or json for " + spec.qualifiedName() + ", got '" + format.cliName() + "'");
            ClusterLauncher launcher = launcher(spec, dir.dir);
            PrintWriter out = cl.getOut();
            List<String> down;
            if (format == OutputFormat.JSON) {
                ClusterStatusJson status = ClusterStatusJson.of(launcher);
                out.println(status.toJson());
                down = status.notServing();
            } else {
                down = printStatus(out, launcher);
            }
            out.flush();
            if (!down.isEmpty()) {
                cl.getErr().println(spec.qualifiedName() + ": not serving: " + String.join(", ", down));
                cl.getErr().flush();
                return PsmrMain.EXIT_FAILURE;
            }
            return 0;
        }
    }

    /** {@code cluster kill}. */
    @Command(name = "kill", mixinStandardHelpOptions = true,
            description = "Kill one node's process with SIGKILL, as a crash: a Ring Paxos acceptor or replica, a Ratis peer or a "
                    + "PBFT replica.")
    static final class Kill implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Option(names = "--node", paramLabel = "NAME", required = true,
                description = "The node, such as acceptor-0 or replica-1, or 'coordinator': the acceptor that coordinates, the "
                        + "leader of a ratis cluster, the primary of pillar 0 of a pbft cluster.")
        String node;

        @Override
        public Integer call() throws Exception {
            ClusterLauncher launcher = launcher(spec, dir.dir);
            String killed;
            try {
                killed = launcher.kill(node);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--node: " + e.getMessage());
            }
            spec.commandLine().getOut().println("killed " + killed);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code cluster restart}. */
    @Command(name = "restart", mixinStandardHelpOptions = true,
            description = "Restart a node from its durable state on its port (killing it first if it runs): a Ring Paxos acceptor "
                    + "or replica, a Ratis peer, or a PBFT replica; a replica catches up from its latest checkpoint and the others.")
    static final class Restart implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Option(names = "--node", paramLabel = "NAME", required = true, description = "The node, such as acceptor-0 or replica-2.")
        String node;

        @Option(names = "--timeout", paramLabel = "TIME", defaultValue = "60s", converter = DurationConverter.class,
                description = "How long it may take to serve again, 1s to 10m (default: ${DEFAULT-VALUE}).")
        Duration timeout;

        @Override
        public Integer call() throws Exception {
            requireTimeout(spec.commandLine(), timeout);
            ClusterLauncher launcher = launcher(spec, dir.dir);
            try {
                launcher.restart(node, timeout);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--node: " + e.getMessage());
            }
            spec.commandLine().getOut().println("restarted " + node);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    /** {@code cluster stop}. */
    @Command(name = "stop", mixinStandardHelpOptions = true,
            description = "Stop every node (SIGTERM, then SIGKILL after 10 s). The directory keeps the logs. A PBFT cluster whose"
                    + " replicas executed instances after their last checkpoint is first brought to its next checkpoint (the stop"
                    + " orders reads up to it and waits for 2f+1 replicas to hold it, at most 30 s), so that nothing is lost.")
    static final class Stop implements Callable<Integer> {
        /** How long the stop waits for 2f+1 replicas to hold its checkpoint. */
        static final Duration CHECKPOINT_TIMEOUT = Duration.ofSeconds(30);

        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Option(names = "--discard-uncheckpointed", description = "Stop a PBFT cluster at once, without first bringing its "
                + "replicas to the next checkpoint: what they executed after their last checkpoint is lost (PBFT replicas keep "
                + "their log in memory, and a resumed cluster starts from checkpoints).")
        boolean discardUncheckpointed;

        @Override
        public Integer call() throws Exception {
            ClusterLauncher launcher = launcher(spec, dir.dir);
            PrintWriter out = spec.commandLine().getOut();
            List<ClusterLauncher.Uncheckpointed> unsaved = launcher.uncheckpointed();
            if (!unsaved.isEmpty() && !discardUncheckpointed) {
                out.println("checkpointing first: PBFT replicas keep their log in memory, and a stopped cluster resumes from"
                        + " its checkpoints; " + describe(unsaved));
                out.flush();
                PbftStopCheckpoint.Outcome o = PbftStopCheckpoint.run(launcher, CHECKPOINT_TIMEOUT, line -> {
                    out.println("  " + line);
                    out.flush();
                });
                if (!o.agreed()) {
                    PrintWriter err = spec.commandLine().getErr();
                    err.println(spec.qualifiedName() + ": not stopping: the replicas did not agree a checkpoint to stop at: "
                            + o.refusal());
                    List<ClusterLauncher.Uncheckpointed> still = launcher.uncheckpointed();
                    if (!still.isEmpty()) {
                        err.println("stopping now would lose what these replicas executed after their last checkpoint:");
                        for (ClusterLauncher.Uncheckpointed u : still) {
                            err.println("  " + u.node() + ": instances " + (u.checkpoint() + 1) + " to " + u.instance()
                                    + " (last checkpoint " + u.checkpoint() + ")");
                        }
                    }
                    err.println("run ./psmr cluster stop again once that is resolved, or pass --discard-uncheckpointed to stop anyway");
                    err.flush();
                    return 1;
                }
                out.println("checkpoint " + o.instance() + " held by " + String.join(", ", o.holding())
                        + (o.note() == null ? "" : "; " + o.note()));
                out.flush();
            }
            List<String> stopped = launcher.stop(Duration.ofSeconds(10));
            boolean links = stopped.remove(ClusterLauncher.LINKS);
            out.println("stopped " + stopped.size() + " nodes" + (stopped.isEmpty() ? "" : ": " + String.join(", ", stopped))
                    + (links ? "; and the links" : ""));
            out.flush();
            return 0;
        }

        private static String describe(List<ClusterLauncher.Uncheckpointed> unsaved) {
            List<String> parts = new ArrayList<>();
            for (ClusterLauncher.Uncheckpointed u : unsaved) {
                parts.add(u.node() + " executed " + u.instance() + " (last checkpoint " + u.checkpoint() + ")");
            }
            return String.join(", ", parts);
        }
    }

    /** {@code cluster rotate-keys}. */
    @Command(name = "rotate-keys", mixinStandardHelpOptions = true,
            description = "Replace a stopped PBFT cluster's keys (DIR/keys) with a new key generation, keeping its data; then start it with --resume.")
    static final class RotateKeys implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @CommandLine.Mixin
        DirOption dir;

        @Override
        public Integer call() {
            ClusterLauncher launcher = launcher(spec, dir.dir);
            String generation;
            try {
                generation = launcher.rotateKeys();
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--dir: " + e.getMessage());
            }
            spec.commandLine().getOut().println("wrote key generation " + generation + " into "
                    + launcher.directory().keysDir() + "; start the cluster with: ./psmr cluster start --resume --dir " + dir.dir);
            spec.commandLine().getOut().flush();
            return 0;
        }
    }

    private static ClusterLauncher launcher(CommandSpec spec, Path dir) {
        ClusterLauncher launcher = new ClusterLauncher(dir);
        try {
            launcher.directory().read();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--dir: " + e.getMessage());
        }
        return launcher;
    }

    /** The settings that only some orderings take, by flag. */
    private static final java.util.Map<String, OrderingBinding.Setting> PROTOCOL_SETTINGS = java.util.Map.of(
            "--acceptors", OrderingBinding.Setting.ACCEPTORS, "--tick", OrderingBinding.Setting.TICK,
            "--client-hosts", OrderingBinding.Setting.CLIENT_HOSTS, "--pillars", OrderingBinding.Setting.PILLARS,
            "--leader-rotation", OrderingBinding.Setting.LEADER_ROTATION, "--leader-selection",
            OrderingBinding.Setting.LEADER_SELECTION, "--byzantine", OrderingBinding.Setting.BYZANTINE);

    /** Whether a cluster of {@code ordering} takes the setting of {@code flag} (none does if it has no binding). */
    private static boolean takes(OrderingProtocol ordering, String flag) {
        return OrderingBinding.find(ordering).map(b -> b.takes(PROTOCOL_SETTINGS.get(flag))).orElse(false);
    }

    private static void requireTimeout(CommandLine cl, Duration timeout) {
        require(cl, timeout.compareTo(Duration.ofSeconds(1)) >= 0 && timeout.compareTo(Duration.ofMinutes(10)) <= 0,
                "--timeout must be from 1s to 10m, got " + DurationConverter.format(timeout));
    }

    private static void require(CommandLine cl, boolean ok, String problem) {
        if (!ok) {
            throw new CommandLine.ParameterException(cl, problem);
        }
    }

    /** Prints the status table of the cluster; returns the nodes of this machine that do not serve, as "NAME (STATE)". */
    static List<String> printStatus(PrintWriter out, ClusterLauncher launcher) {
        ClusterDescriptor described = launcher.directory().read();
        OrderingBinding binding = described.binding();
        List<ClusterLauncher.NodeView> views = launcher.status();
        List<String> down = new java.util.ArrayList<>();
        out.printf(Locale.ROOT, "%-12s %-9s %-8s %-6s %-6s %-9s %-12s %s%n", "node", "role", "pid", "port", "reply", "state",
                "instance", "digest");
        for (ClusterLauncher.NodeView v : views) {
            ClusterNode n = v.node();
            NodeStatus s = v.status();
            String state = state(v, binding);
            if (!serving(state)) {
                down.add(n.name() + " (" + state + ")");
            }
            out.printf(Locale.ROOT, "%-12s %-9s %-8s %-6d %-6s %-9s %-12s %s%n", n.name(), n.role().cliName(),
                    n.pid() == null ? "-" : n.pid(), n.port(), n.replyPort() > 0 ? Integer.toString(n.replyPort()) : "-",
                    state, n.role() == NodeRole.REPLICA && s != null ? Long.toString(s.instance()) : "-",
                    s != null && s.digest() != null ? String.format(Locale.ROOT, "%016x", s.digest()) : "-");
            binding.statusNote(described, n).ifPresent(note -> out.println("  " + note));
            if (s != null && s.failure() != null) {
                out.println("  " + n.name() + " failed: " + s.failure());
            }
            if (s != null && s.detail() != null) {
                for (String line : s.detail().split("\n")) {
                    out.println("  " + line);
                }
            }
        }
        java.util.Map<String, List<String>> byHost = new java.util.LinkedHashMap<>();
        for (ClusterLauncher.NodeView v : views) {
            byHost.computeIfAbsent(v.node().host(), h -> new java.util.ArrayList<>()).add(v.node().name());
        }
        if (!byHost.keySet().equals(java.util.Set.of("127.0.0.1"))) { // "elsewhere": on another machine, see its status there
            out.println("hosts: " + String.join("; ", byHost.entrySet().stream()
                    .map(e -> e.getKey() + " " + String.join(" ", e.getValue())).toList()));
        }
        printMetrics(out, described, views);
        Optional<String> c = launcher.leader();
        boolean candidates = views.stream().anyMatch(v -> v.alive() && v.node().role() == binding.leaderRole());
        out.println(binding.leaderTitle() + ": " + c.orElse(candidates ? "none (an election or view change may be under way)"
                : "none (no " + binding.leaderCandidate() + " runs)"));
        return down;
    }

    /**
     * A node's state as status shows it: stopped, elsewhere (on another machine), dead, starting (no
     * status yet), failed, catch-up (alive but not serving: between incarnations or catching up),
     * serving, or the binding's word for the node that orders (coord, leader or primary).
     */
    static String state(ClusterLauncher.NodeView v, OrderingBinding binding) {
        ClusterNode n = v.node();
        NodeStatus s = v.status();
        return !v.alive() ? (n.pid() == null ? (ClusterLayout.isLocal(n.host()) ? "stopped" : "elsewhere") : "dead")
                : s == null ? "starting" : s.failure() != null ? "failed" : !s.serving() ? "catch-up"
                : s.coordinator() ? binding.leaderState() : "serving";
    }

    /** Whether a node in {@code state} counts as healthy; a node elsewhere is not judged from this machine. */
    static boolean serving(String state) {
        return switch (state) {
            case "serving", "coord", "leader", "primary", "elsewhere" -> true;
            default -> false;
        };
    }

    /** How long {@code cluster status} waits for one node's metrics endpoint. */
    static final Duration SCRAPE_TIMEOUT = Duration.ofSeconds(1);

    /**
     * A line of meters per live node that publishes a metrics port, scraped over HTTP (at most
     * {@link #SCRAPE_TIMEOUT} each); a node that does not answer gets a line saying why.
     */
    static void printMetrics(PrintWriter out, ClusterDescriptor described, List<ClusterLauncher.NodeView> views) {
        boolean header = false;
        for (ClusterLauncher.NodeView v : views) {
            NodeStatus s = v.status();
            if (!v.alive() || s == null || s.metricsPort() <= 0) {
                continue;
            }
            if (!header) {
                out.println("metrics (GET /metrics on each node's port):");
                header = true;
            }
            String name = v.node().name();
            try {
                MetricsScrape m = MetricsScrape.fetch(v.node().host(), s.metricsPort(), SCRAPE_TIMEOUT);
                out.println("  " + name + " :" + s.metricsPort() + " " + summary(v.node(), m));
            } catch (java.io.IOException e) {
                out.println("  " + name + " :" + s.metricsPort() + " no answer: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.println("  " + name + " :" + s.metricsPort() + " interrupted");
                return;
            }
        }
    }

    /** The few figures status shows of a node's scrape; "?" for one the node did not report. */
    static String summary(ClusterNode node, MetricsScrape m) {
        if (node.role() == NodeRole.ACCEPTOR) {
            return "log " + figure(m, "psmr_ordering_acceptor_log_size") + "/"
                    + figure(m, "psmr_ordering_acceptor_log_capacity") + " instances, leader changes "
                    + figure(m, "psmr_ordering_leader_changes_total");
        }
        return "delivered " + figure(m, "psmr_ordering_instances_delivered_total") + " instances, pending "
                + figure(m, "psmr_scheduler_batches_pending") + " batches, workers busy "
                + m.value("psmr_scheduler_worker_busy_fraction").map(x -> String.format(Locale.ROOT, "%.2f", x)).orElse("?")
                + ", store " + figure(m, "psmr_store_entries") + "/" + figure(m, "psmr_store_entries_capacity")
                + " entries, " + figure(m, "psmr_store_used_bytes") + "/" + figure(m, "psmr_store_capacity_bytes") + " bytes";
    }

    private static String figure(MetricsScrape m, String name) {
        return m.value(name).map(x -> Double.isNaN(x) ? "-" : String.format(Locale.ROOT, "%.0f", x)).orElse("?");
    }
}
