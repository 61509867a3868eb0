package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.ordering.transport.ClusterMember;
import io.psmr.ordering.transport.TlsCredentials;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr cluster init} (the file of a cluster on several machines: its content, round-robin hosts, ports from
 * {@code --base-port}, refusals naming the problem, {@code --force} replacing only the file and keys) and the
 * argument errors of {@code psmr node --cluster FILE}. Starts no cluster: nothing here binds a node's port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterInitCommandTest {

    @TempDir
    Path dir;

    @Test
    void initWritesARingPaxosClusterRoundRobinOverTheHosts() throws Exception {
        String d = dir.toString();
        CliRun init = CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2,127.0.0.3,127.0.0.4", "--acceptors", "3",
                "--replicas", "2", "--max-keys", "500", "--base-port", "7000");
        assertEquals(0, init.exitCode(), init.err());
        Path file = dir.resolve("cluster.json");
        assertEquals(List.of("wrote " + file + ", " + dir.resolve("tls") + " (mutual TLS): a ringpaxos cluster, ports 7000 to 7016",
                "  127.0.0.2: acceptor-0 replica-1",
                "  127.0.0.3: acceptor-1 replica-2",
                "  127.0.0.4: acceptor-2",
                "  load processes (proposer slots) on: 127.0.0.2",
                "copy " + dir + " to every machine; on each, for each of its nodes: ./psmr node --cluster " + file + " --name NAME"),
                init.out().lines().toList());
        ClusterDescriptor c = new ClusterDirectory(dir).read();
        assertEquals(List.of("acceptor-0@127.0.0.2:7000", "acceptor-1@127.0.0.3:7001", "acceptor-2@127.0.0.4:7002",
                "replica-1@127.0.0.2:7003/7004/7005", "replica-2@127.0.0.3:7006/7007/7008"),
                c.nodes().stream().map(n -> n.name() + "@" + n.host() + ":" + n.port()
                        + (n.replyPort() > 0 ? "/" + n.replyPort() + "/" + n.checkpointPort() : "")).toList());
        assertEquals(List.of("200@127.0.0.2:7009", "201@127.0.0.2:7010", "202@127.0.0.2:7011", "203@127.0.0.2:7012",
                "204@127.0.0.2:7013", "205@127.0.0.2:7014", "206@127.0.0.2:7015", "207@127.0.0.2:7016"),
                c.proposers().stream().map(p -> p.paxosId() + "@" + p.host() + ":" + p.port()).toList());
        assertEquals(500, c.settings().maxKeys());
        assertTrue(c.nodes().stream().allMatch(n -> n.pid() == null), "nothing started");
        try (var listing = Files.list(dir)) {
            assertEquals(List.of("cluster.json", "cluster.lock", "tls"), listing.map(p -> p.getFileName().toString()).sorted().toList());
        }
        // One certificate per node and per client machine, under the cluster's authority, naming the cluster of cluster.json.
        assertEquals(List.of("acceptor-0", "acceptor-1", "acceptor-2", "replica-1", "replica-2"), members(dir.resolve("tls/nodes")));
        assertEquals(List.of("127.0.0.2"), members(dir.resolve("tls/clients")));
        TlsCredentials node = TlsCredentials.load(dir.resolve("tls/ca.pem"), dir.resolve("tls/nodes/replica-2.pem"),
                dir.resolve("tls/nodes/replica-2.key"));
        assertEquals(ClusterMember.node(c.tls().cluster(), "replica-2"), node.self());

        // Again: refused, nothing changed; --force replaces the file.
        String before = Files.readString(file);
        assertFailure(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2"),
                "psmr cluster init: " + dir + " already holds cluster.json; nothing was changed: pass --force to replace it");
        assertEquals(before, Files.readString(file));
        CliRun forced = CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--client-hosts", "127.0.0.9,127.0.0.8",
                "--acceptors", "1", "--replicas", "1", "--force");
        assertEquals(0, forced.exitCode(), forced.err());
        assertTrue(forced.out().startsWith("--force: replaced cluster.json, tls/nodes/, tls/clients/ in " + dir + "\n"),
                forced.out());
        ClusterDescriptor replaced = new ClusterDirectory(dir).read();
        assertEquals(List.of("127.0.0.8", "127.0.0.9"), members(dir.resolve("tls/clients")));
        assertTrue(TlsCredentials.load(dir.resolve("tls/ca.pem"), dir.resolve("tls/nodes/replica-1.pem"),
                dir.resolve("tls/nodes/replica-1.key")).self().cluster().equals(replaced.tls().cluster()),
                "the kept authority issued the new cluster's certificates");
        assertEquals(2, replaced.nodes().size());
        assertEquals(List.of("127.0.0.9", "127.0.0.8"), replaced.proposers().stream().map(ProposerSlot::host).distinct().toList());

        // A directory whose cluster has run keeps its data: refused even with --force.
        Files.createDirectories(dir.resolve("data/replica-1"));
        assertFailure(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--force"),
                "psmr cluster init: " + dir + " holds a cluster that has run (data/); nothing was changed: init writes only a new "
                        + "cluster's files (use ./psmr cluster start --force to delete a stopped cluster, or choose a new directory)");
        assertEquals(replaced, new ClusterDirectory(dir).read());
    }

    @Test
    void initWritesRatisAndPbftClustersAndThePbftKeys() throws Exception {
        Path ratisDir = dir.resolve("ratis");
        CliRun ratis = CliRun.of("cluster", "init", "--dir", ratisDir.toString(), "--ordering", "ratis", "--replicas", "3",
                "--hosts", "127.0.0.2,127.0.0.3,127.0.0.4", "--base-port", "9000");
        assertEquals(0, ratis.exitCode(), ratis.err());
        ClusterDescriptor r = new ClusterDirectory(ratisDir).read();
        assertEquals(List.of("127.0.0.2:9000", "127.0.0.3:9001", "127.0.0.4:9002"),
                r.raftGroup().getPeers().stream().map(p -> p.getAddress()).toList());
        assertTrue(r.proposers().isEmpty());
        assertNotNull(r.tls(), "Ratis runs mutual TLS too");
        assertTrue(ratis.out().contains(ratisDir.resolve("tls") + " (mutual TLS): a ratis cluster"), ratis.out());
        for (ClusterNode n : r.nodes()) {
            assertTrue(Files.exists(ratisDir.resolve("tls").resolve("nodes").resolve(n.name() + ".pem")), n.name());
        }

        Path pbftDir = dir.resolve("pbft");
        CliRun pbft = CliRun.of("cluster", "init", "--dir", pbftDir.toString(), "--ordering", "pbft", "--pillars", "2",
                "--hosts", "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5", "--base-port", "9100");
        assertEquals(0, pbft.exitCode(), pbft.err());
        assertTrue(pbft.out().startsWith("wrote " + pbftDir.resolve("cluster.json") + " and " + pbftDir.resolve("keys") + ", "
                + pbftDir.resolve("tls") + " (mutual TLS): a pbft cluster, ports 9100 to 9119\n"), pbft.out());
        ClusterDescriptor p = new ClusterDirectory(pbftDir).read();
        assertEquals(List.of("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"), p.nodes().stream().map(ClusterNode::host).toList());
        assertEquals(new InetSocketAddress("127.0.0.4", 9114), p.pillarAddress(2, 1));
        try (var keys = Files.list(pbftDir.resolve("keys"))) {
            assertEquals(4, keys.filter(k -> k.getFileName().toString().endsWith(".keys")).count(), "one key file per replica");
        }
        assertFailure(CliRun.of("cluster", "init", "--dir", pbftDir.toString(), "--ordering", "pbft", "--hosts", "127.0.0.2"),
                "psmr cluster init: " + pbftDir + " already holds cluster.json and keys/; nothing was changed: pass --force to replace it");
    }

    @Test
    void insecureWritesNoTlsAndWarnsBeyondLoopback() throws Exception {
        CliRun plain = CliRun.of("cluster", "init", "--dir", dir.toString(), "--hosts", "10.1.2.3,10.1.2.4", "--insecure");
        assertEquals(0, plain.exitCode(), plain.err());
        assertNull(new ClusterDirectory(dir).read().tls());
        assertFalse(Files.exists(dir.resolve("tls")));
        assertTrue(plain.err().startsWith("warning: --insecure: the links of the nodes on 10.1.2.3 run plain TCP, beyond"
                + " loopback"), plain.err());
    }

    private static List<String> members(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".pem"))
                    .map(n -> n.substring(0, n.length() - 4)).sorted().toList();
        }
    }

    @Test
    void badHostsAndOptionsAreUsageErrorsNamingTheProblem() {
        String d = dir.resolve("c").toString();
        assertUsage(CliRun.of("cluster", "init", "--dir", d), "psmr cluster init: init needs --hosts HOST,... (the machines of the nodes)");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2,127.0.0.2"),
                "psmr cluster init: --hosts: '127.0.0.2' is given twice; list each machine once (nodes are spread over the hosts round-robin)");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "localhost,127.0.0.1"),
                "psmr cluster init: --hosts: 'localhost' and '127.0.0.1' are the same address 127.0.0.1; list each machine once");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "no-such-host.invalid"),
                "psmr cluster init: --hosts: host 'no-such-host.invalid' does not resolve");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2,,127.0.0.3"),
                "psmr cluster init: --hosts: an empty host name (in 127.0.0.2,,127.0.0.3)");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "0.0.0.0"),
                "psmr cluster init: --hosts: '0.0.0.0' is the wildcard address; give an address the other nodes can dial");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--client-hosts", "127.0.0.3,localhost,127.0.0.1"),
                "psmr cluster init: --client-hosts: 'localhost' and '127.0.0.1' are the same address 127.0.0.1");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--ordering", "ratis", "--client-hosts", "127.0.0.3"),
                "psmr cluster init: --client-hosts is a Ring Paxos setting (where proposer slots are); a ratis cluster has none");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--timeout", "5s"),
                "psmr cluster init: --timeout is a cluster start option; init starts nothing");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--resume"),
                "psmr cluster init: --resume is a cluster start option; init starts nothing");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--base-port", "65530"),
                "psmr cluster init: --base-port must be from 1024 to 65519 (this cluster takes 17 ports from it), got 65530");
        assertUsage(CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--acceptors", "0"),
                "psmr cluster init: --acceptors must be from 1 to 15, got 0");
        assertUsage(CliRun.of("cluster", "start", "--dir", d, "--hosts", "203.0.113.1"),
                "psmr cluster start: --hosts: 203.0.113.1 is not an address of this machine; cluster start runs every node here (use cluster init "
                        + "for nodes on other machines)");
        assertTrue(!Files.exists(dir.resolve("c")), "nothing written");
    }

    @Test
    void nodeTakesExactlyOneOfDirAndClusterAndRefusesANodeOfAnotherMachineAtOnce() throws Exception {
        assertUsage(CliRun.of("node", "--name", "acceptor-0"), "psmr node: give the node's cluster: --dir DIR or --cluster FILE");
        assertUsage(CliRun.of("node", "--dir", dir.toString(), "--cluster", dir.resolve("cluster.json").toString(), "--name", "x"),
                "psmr node: give --dir DIR or --cluster FILE, not both");
        assertUsage(CliRun.of("node", "--cluster", dir.resolve("c.json").toString(), "--name", "acceptor-0"),
                "psmr node: --cluster: " + dir.resolve("c.json") + " is not named cluster.json (the node keeps its data/ and status/ "
                        + "next to it, as in a cluster directory)");
        assertUsage(CliRun.of("node", "--cluster", dir.resolve("cluster.json").toString(), "--name", "acceptor-0"),
                "psmr node: --cluster: " + dir.resolve("cluster.json") + " does not exist or is not a file");
        assertUsage(CliRun.of("node", "--cluster", dir.toString(), "--name", "acceptor-0"), "is not named cluster.json");

        // 203.0.113.1 (TEST-NET-3) resolves but is no address of this machine: refused at once, naming host and port.
        assertEquals(0, CliRun.of("cluster", "init", "--dir", dir.toString(), "--hosts", "203.0.113.1", "--client-hosts", "127.0.0.1",
                "--acceptors", "1", "--replicas", "1", "--base-port", "7000").exitCode());
        String file = dir.resolve("cluster.json").toString();
        assertUsage(CliRun.of("node", "--cluster", file, "--name", "replica-7"),
                "psmr node: --name: no node 'replica-7' in " + file + "; nodes: [acceptor-0, replica-1]");
        long begin = System.nanoTime();
        CliRun elsewhere = CliRun.of("node", "--cluster", file, "--name", "acceptor-0");
        assertFailure(elsewhere, "psmr node: acceptor-0 cannot bind 203.0.113.1:7000: 203.0.113.1 is not an address of this machine "
                + "(start acceptor-0 on the machine cluster.json puts it on)");
        assertTrue(System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(10), "refused within seconds");
        assertTrue(new ClusterDirectory(dir).read().nodes().stream().allMatch(n -> n.pid() == null), "no pid recorded");
        assertTrue(!Files.exists(dir.resolve("status")), "no status written");
        // A load on a machine that holds no proposer slot of the cluster is refused, naming where the slots are.
        Path other = dir.resolve("other");
        assertEquals(0, CliRun.of("cluster", "init", "--dir", other.toString(), "--hosts", "203.0.113.1", "--client-hosts", "198.51.100.2",
                "--acceptors", "1", "--replicas", "1").exitCode());
        assertFailure(CliRun.of("load", "--cluster", other.toString(), "--clients", "1", "--duration", "1s"),
                "psmr load: no proposer slot of the cluster in " + other + " is on this machine (slots are on [198.51.100.2]); run the"
                        + " load on one of those hosts, or name this machine with cluster init --client-hosts");
    }

    private static void assertFailure(CliRun run, String message) {
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(!run.err().contains("Usage:"), "a state error is not a usage error:\n" + run.err());
    }

    private static void assertUsage(CliRun run, String message) {
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains(message), "expected '" + message + "' in:\n" + run.err());
        assertTrue(run.err().contains("Usage:"), run.err());
    }
}
