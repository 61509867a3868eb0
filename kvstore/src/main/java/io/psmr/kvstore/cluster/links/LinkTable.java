package io.psmr.kvstore.cluster.links;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.kvstore.pbft.PbftClusterSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code DIR/links.json}: the fault-injecting links of a cluster, written by its {@link LinkHost} once every link
 * listens, read by each node and load process at its start. A process named {@code from} dials port {@code port} of
 * {@code to} at port {@code via} instead, on the same host, and so through the link {@code from → to}. The load
 * processes are one source, {@value #CLIENTS}; they are also the target of the acceptors' links to the proposer slots.
 * Immutable.
 *
 * @param pid         the link host's process
 * @param started     when it started, in epoch milliseconds as the kernel counts it (0 if unknown): a process that
 *                    reuses the pid later is not it
 * @param controlPort where the link host takes commands ({@link LinkControl}), on {@code host}
 * @param host        the loopback address every link listens on
 * @param links       one entry per port of a target, per source
 */
public record LinkTable(long pid, long started, int controlPort, String host, List<Entry> links) {

    /** The file name inside the cluster directory. */
    public static final String FILE = "links.json";
    /** The source name of every load process, and the target name of the proposer slots they hold. */
    public static final String CLIENTS = "clients";
    /**
     * The source name of load clients that a fault campaign cuts off with the minority side of a partition; they dial
     * the nodes through links of their own, and hold proposer slots as {@value #CLIENTS} do.
     */
    public static final String CLIENTS_MINORITY = "clients-minority";
    /** How far apart two readings of one process's start time may be (the kernel counts in ticks). */
    private static final long START_TOLERANCE_MILLIS = 1000;

    static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    /**
     * One port of a link.
     *
     * @param from the process that dials
     * @param to   the process dialed
     * @param port the port of {@code to} it stands for
     * @param via  where the link listens
     */
    public record Entry(String from, String to, int port, int via) {
        /** Checks the fields. */
        public Entry {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (port < 1 || port > 65535 || via < 1 || via > 65535) {
                throw new IllegalArgumentException("link " + from + " → " + to + ": ports must be 1..65535, got " + port
                        + " via " + via);
            }
        }
    }

    /** Copies the list and checks the fields. */
    public LinkTable {
        Objects.requireNonNull(host, "host");
        links = List.copyOf(links);
        if (controlPort < 1 || controlPort > 65535) {
            throw new IllegalArgumentException("links.json: controlPort must be 1..65535, got " + controlPort);
        }
    }

    /** The link host's process, if it runs: the recorded pid, alive, and started when recorded. */
    public Optional<ProcessHandle> liveProcess() {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(ph -> started == 0 || ph.info().startInstant()
                .map(i -> Math.abs(i.toEpochMilli() - started) <= START_TOLERANCE_MILLIS).orElse(true));
    }

    /** Where {@code from} dials port {@code port} of {@code to}: the link's port, or empty if no link stands for it. */
    public OptionalInt via(String from, String to, int port) {
        for (Entry e : links) {
            if (e.from.equals(from) && e.to.equals(to) && e.port == port) {
                return OptionalInt.of(e.via);
            }
        }
        return OptionalInt.empty();
    }

    /** For source {@code from}: target → (port → link port). */
    public Map<String, Map<Integer, Integer>> dialMap(String from) {
        Map<String, Map<Integer, Integer>> m = new HashMap<>();
        for (Entry e : links) {
            if (e.from.equals(from)) {
                m.computeIfAbsent(e.to, t -> new HashMap<>()).put(e.port, e.via);
            }
        }
        return m;
    }

    /**
     * {@code cluster} as process {@code from} dials it: every port of every other node, of the PBFT pillars of every
     * other replica and (for a node) of the proposer slots is the port of the link from {@code from} that stands for
     * it; {@code from}'s own entry is unchanged, since it binds those ports. A port no link stands for is left as is.
     */
    public ClusterDescriptor dialedBy(String from, ClusterDescriptor cluster) {
        Map<String, Map<Integer, Integer>> map = dialMap(from);
        java.util.function.BiFunction<String, Integer, Integer> via = (to, port) ->
                port == 0 ? 0 : map.getOrDefault(to, Map.of()).getOrDefault(port, port);
        List<ClusterNode> nodes = cluster.nodes().stream().map(n -> n.name().equals(from) ? n
                : new ClusterNode(n.name(), n.role(), n.host(), n.paxosId(), n.replicaId(), via.apply(n.name(), n.port()),
                        via.apply(n.name(), n.replyPort()), via.apply(n.name(), n.checkpointPort()), n.pid(), n.started()))
                .toList();
        List<ProposerSlot> slots = isClients(from) ? cluster.proposers() : cluster.proposers().stream()
                .map(s -> new ProposerSlot(s.paxosId(), via.apply(CLIENTS, s.port()), s.host())).toList();
        PbftClusterSettings pbft = cluster.pbft();
        if (pbft != null) {
            List<ClusterNode> replicas = cluster.replicas();
            List<List<Integer>> ports = new java.util.ArrayList<>();
            for (int r = 0; r < pbft.pillarPorts().size(); r++) {
                String name = replicas.get(r).name();
                ports.add(name.equals(from) ? pbft.pillarPorts().get(r)
                        : pbft.pillarPorts().get(r).stream().map(p -> via.apply(name, p)).toList());
            }
            pbft = new PbftClusterSettings(pbft.f(), pbft.pillars(), pbft.rotation(), ports, pbft.checkpointInterval(),
                    pbft.byzantine(), pbft.leaderSelection(), pbft.dormant());
        }
        return new ClusterDescriptor(ClusterDescriptor.VERSION, cluster.ordering(), null, cluster.settings(), nodes, slots,
                cluster.ratisGroup(), pbft, cluster.tls());
    }

    /** Whether {@code source} is a load process's source name ({@value #CLIENTS} or {@value #CLIENTS_MINORITY}). */
    public static boolean isClients(String source) {
        return CLIENTS.equals(source) || CLIENTS_MINORITY.equals(source);
    }

    /** Whether these links have a source named {@code from} (a cluster started before a source was added has not). */
    public boolean hasSource(String from) {
        return links.stream().anyMatch(e -> e.from.equals(from));
    }

    /** The links.json of the cluster in {@code dir}, if there is one. */
    public static Optional<LinkTable> read(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), LinkTable.class));
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes it to {@code dir}/links.json, whole or not at all. */
    public void write(Path dir) {
        Path file = dir.resolve(FILE);
        Path tmp = dir.resolve(FILE + ".tmp");
        try {
            JSON.writeValue(tmp.toFile(), this);
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
