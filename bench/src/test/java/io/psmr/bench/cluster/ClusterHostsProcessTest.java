package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.bench.cli.PsmrMain;
import io.psmr.bench.load.JsonLinesHistory;
import io.psmr.bench.load.LinearizabilityChecker;
import io.psmr.kvstore.ChronicleJvmFlags;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.StatusFile;
import io.psmr.ordering.node.NodeStatus;
import java.io.File;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, beyond one machine, on one: nodes on different loopback addresses (Linux routes all of 127/8 to lo), so
 * that no address is assumed twice. A Ring Paxos cluster (3 acceptors, 3 replicas on 127.0.0.2/.3/.4, proposer slots
 * on 127.0.0.5) made by {@code cluster init} and run node by node with {@code node --cluster FILE}, each its own
 * process; a Ratis cluster (3 peers) by {@code cluster start --hosts}. A load through each answers every operation
 * (its history linearizable per key), the replicas end with equal digests, and every port a node serves answers on
 * the node's own address and not on 127.0.0.1.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterHostsProcessTest {

    private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        if (Files.exists(dir.resolve("cluster.json"))) {
            CliRun.of("cluster", "stop", "--dir", dir.toString());
        }
        for (Process p : started) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRingPaxosClusterInitialisedForThreeHostsRunsNodeByNode() throws Exception {
        String d = dir.toString();
        int base = freeRange(3 + 3 * 3 + 8);
        CliRun init = CliRun.of("cluster", "init", "--dir", d, "--hosts", String.join(",", HOSTS), "--client-hosts", "127.0.0.5",
                "--acceptors", "3", "--replicas", "3", "--workers", "2", "--max-keys", "1000", "--base-port", Integer.toString(base));
        assertEquals(0, init.exitCode(), init.err());
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor cluster = cd.read();
        assertEquals(List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.2", "127.0.0.3", "127.0.0.4"),
                cluster.nodes().stream().map(ClusterNode::host).toList());
        for (ClusterNode n : cluster.nodes()) {
            started.add(node(n.name()));
        }
        awaitServing(cd, "acceptor-");
        assertAllPortsOnTheirOwnAddress(cd.read());

        // Status sees the hand-started nodes (each recorded its pid) and names the hosts.
        CliRun status = CliRun.of("cluster", "status", "--dir", d);
        assertEquals(0, status.exitCode(), status.err());
        assertTrue(status.out().contains("hosts: 127.0.0.2 acceptor-0 replica-1; 127.0.0.3 acceptor-1 replica-2; "
                + "127.0.0.4 acceptor-2 replica-3"), status.out());

        loadAndCheck(d, 3);

        CliRun stop = CliRun.of("cluster", "stop", "--dir", d);
        assertEquals(0, stop.exitCode(), stop.err());
        for (Process p : started) {
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "a node did not end on SIGTERM");
        }
        assertTrue(cd.read().nodes().stream().allMatch(n -> n.pid() == null), "pids cleared: " + cd.read().nodes());
    }

    @Test
    void aRatisClusterStartedOnThreeLoopbackAddressesServesEachPeerOnItsOwn() throws Exception {
        String d = dir.toString();
        CliRun start = CliRun.of("cluster", "start", "--dir", d, "--ordering", "ratis", "--replicas", "3", "--workers", "2",
                "--max-keys", "1000", "--hosts", String.join(",", HOSTS));
        assertEquals(0, start.exitCode(), start.err());
        ClusterDescriptor cluster = new ClusterDirectory(dir).read();
        assertEquals(HOSTS, cluster.nodes().stream().map(ClusterNode::host).toList());
        assertEquals(HOSTS.stream().map(h -> h + ":").toList(), cluster.raftGroup().getPeers().stream()
                .map(p -> p.getAddress().substring(0, p.getAddress().lastIndexOf(':') + 1)).toList());
        assertAllPortsOnTheirOwnAddress(cluster);
        loadAndCheck(d, 3);
    }

    /** A load with conflicts through the cluster: every operation answered, linearizable per key, equal digests. */
    private void loadAndCheck(String d, int replicas) throws Exception {
        Path history = dir.getParent().resolve(dir.getFileName() + "-history.jsonl");
        try {
            CliRun load = CliRun.of("load", "--cluster", d, "--clients", "4", "--keys", "20", "--conflict", "30",
                    "--read-fraction", "0.3", "--duration", "1s", "--format", "json", "--history", history.toString());
            assertEquals(0, load.exitCode(), load.out() + load.err());
            JsonNode report = new ObjectMapper().readTree(load.out().strip());
            assertEquals(replicas, report.get("digests").size(), load.out());
            assertEquals(1, java.util.stream.StreamSupport.stream(report.get("digests").spliterator(), false)
                    .map(JsonNode::asText).distinct().count(), load.out());
            var ops = JsonLinesHistory.read(history);
            assertTrue(ops.size() > 20 && ops.stream().allMatch(o -> o.acknowledged()), "every operation answered: " + ops.size());
            LinearizabilityChecker.Verdict v = LinearizabilityChecker.check(ops, null);
            assertTrue(v.linearizable(), () -> String.join("\n", v.violations()));
        } finally {
            Files.deleteIfExists(history);
        }
    }

    /** Every port of every node accepts a connection on the node's host and refuses one on 127.0.0.1. */
    private static void assertAllPortsOnTheirOwnAddress(ClusterDescriptor cluster) throws IOException {
        for (ClusterNode n : cluster.nodes()) {
            List<Integer> ports = new ArrayList<>(List.of(n.port()));
            if (n.replyPort() > 0) {
                ports.add(n.replyPort());
            }
            if (n.checkpointPort() > 0) {
                ports.add(n.checkpointPort());
            }
            for (int port : ports) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(n.host(), port), 2000);
                }
                assertThrows(ConnectException.class, () -> {
                    try (Socket s = new Socket()) {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                    }
                }, n.name() + " answers on 127.0.0.1:" + port + ", not only on " + n.host());
            }
        }
    }

    /** {@code ./psmr node --cluster DIR/cluster.json --name NAME} as its own process, its output in logs/NAME.log. */
    private Process node(String name) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(ChronicleJvmFlags.CHRONICLE);
        cmd.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), PsmrMain.class.getName(),
                "node", "--cluster", dir.resolve("cluster.json").toString(), "--name", name));
        Files.createDirectories(dir.resolve("logs"));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("logs").resolve(name + ".log").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    }

    /** Waits until every node's status (written by the pid cluster.json records) says it serves, and one coordinates. */
    private void awaitServing(ClusterDirectory cd, String coordinatorPrefix) throws Exception {
        NodeFiles.awaitCondition("every node serving, one " + coordinatorPrefix + " coordinating", () -> {
            ClusterDescriptor c = cd.read();
            boolean coordinator = false;
            for (ClusterNode n : c.nodes()) {
                Optional<NodeStatus> s = StatusFile.read(cd.statusFile(n.name()));
                if (n.pid() == null || s.isEmpty() || s.get().pid() != n.pid() || !s.get().serving()) {
                    return false;
                }
                coordinator |= n.name().startsWith(coordinatorPrefix) && s.get().coordinator();
            }
            for (Process p : started) {
                assertTrue(p.isAlive(), () -> "a node exited: " + logs());
            }
            return coordinator;
        }, 90, this::logs);
    }

    private String logs() {
        Map<String, String> tails = new TreeMap<>();
        try (var files = Files.list(dir.resolve("logs"))) {
            files.forEach(f -> tails.put(f.getFileName().toString(), NodeFiles.tail(f, 8)));
        } catch (IOException e) {
            return e.toString();
        }
        return tails.toString();
    }

    /** A base port from which {@code n} consecutive ports are free on every address used here (held open together). */
    static int freeRange(int n) throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20000 + (int) (Math.random() * 30000); // not replica state: only where the test's ports start
            List<ServerSocket> held = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    ServerSocket s = new ServerSocket();
                    held.add(s);
                    s.bind(new InetSocketAddress("0.0.0.0", base + i), 1);
                }
                return base;
            } catch (IOException taken) {
                // try another range
            } finally {
                for (ServerSocket s : held) {
                    s.close();
                }
            }
        }
        throw new IOException("no " + n + " consecutive free ports found");
    }
}
