package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.psmr.bench.cli.CliRun;
import io.psmr.kvstore.cluster.ClusterDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr cluster status} as a health check (exit 1 naming the nodes that do not serve, {@code --format json}),
 * the defaults and names of {@code cluster init|start|stop} that tell the orderings apart, and the help of the
 * commands that serve every ordering. Starts no node: the clusters here are written by {@code cluster init}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterStatusCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void statusExits1NamingTheNodesThatDoNotServe() throws Exception {
        String d = dir.toString();
        assertEquals(0, CliRun.of("cluster", "init", "--dir", d, "--hosts", "127.0.0.2", "--acceptors", "1", "--replicas", "1",
                "--base-port", "7100").exitCode());

        CliRun text = CliRun.of("cluster", "status", "--dir", d);
        assertEquals(1, text.exitCode(), text.err());
        assertEquals("psmr cluster status: not serving: acceptor-0 (stopped), replica-1 (stopped)", text.err().strip());
        assertTrue(text.out().contains("acceptor-0") && text.out().contains("stopped"), text.out());

        CliRun json = CliRun.of("cluster", "status", "--dir", d, "--format", "json");
        assertEquals(1, json.exitCode(), json.err());
        assertEquals("psmr cluster status: not serving: acceptor-0 (stopped), replica-1 (stopped)", json.err().strip());
        JsonNode status = JSON.readTree(json.out());
        assertEquals(List.of("dir", "ordering", "healthy", "leader", "nodes"), fields(status));
        assertEquals(dir.toAbsolutePath().normalize().toString(), status.get("dir").textValue());
        assertEquals("ringpaxos", status.get("ordering").textValue());
        assertEquals(false, status.get("healthy").booleanValue());
        assertTrue(status.get("leader").isNull(), json.out());
        assertEquals(2, status.get("nodes").size(), json.out());
        List<String> nodeFields = List.of("name", "role", "host", "pid", "port", "reply_port", "metrics_port", "state", "serving",
                "instance", "digest", "failure", "byzantine");
        JsonNode acceptor = status.get("nodes").get(0);
        assertEquals(nodeFields, fields(acceptor));
        assertEquals("acceptor-0", acceptor.get("name").textValue());
        assertEquals("acceptor", acceptor.get("role").textValue());
        assertEquals("127.0.0.2", acceptor.get("host").textValue());
        assertTrue(acceptor.get("pid").isNull() && acceptor.get("reply_port").isNull() && acceptor.get("instance").isNull(), json.out());
        assertEquals(7100, acceptor.get("port").intValue());
        assertEquals("stopped", acceptor.get("state").textValue());
        assertEquals(false, acceptor.get("serving").booleanValue());
        JsonNode replica = status.get("nodes").get(1);
        assertEquals(nodeFields, fields(replica));
        assertEquals("replica-1", replica.get("name").textValue());
        assertTrue(replica.get("reply_port").isInt(), json.out());
        assertTrue(replica.get("byzantine").isNull() && replica.get("failure").isNull() && replica.get("digest").isNull(), json.out());
    }

    @Test
    void nodesOnOtherMachinesAreNotJudged() throws Exception {
        String d = dir.toString();
        // 203.0.113.1 (TEST-NET-3) resolves but is no address of this machine.
        assertEquals(0, CliRun.of("cluster", "init", "--dir", d, "--hosts", "203.0.113.1", "--client-hosts", "127.0.0.1",
                "--acceptors", "1", "--replicas", "1").exitCode());
        CliRun json = CliRun.of("cluster", "status", "--dir", d, "--format", "json");
        assertEquals(0, json.exitCode(), json.err());
        assertEquals("", json.err());
        JsonNode status = JSON.readTree(json.out());
        assertEquals(true, status.get("healthy").booleanValue());
        for (JsonNode n : status.get("nodes")) {
            assertEquals("elsewhere", n.get("state").textValue(), json.out());
            assertEquals(true, n.get("serving").booleanValue(), json.out());
        }
    }

    @Test
    void statusFormatIsTextOrJson() throws Exception {
        assertEquals(0, CliRun.of("cluster", "init", "--dir", dir.toString(), "--hosts", "127.0.0.2").exitCode());
        CliRun csv = CliRun.of("cluster", "status", "--dir", dir.toString(), "--format", "csv");
        assertEquals(2, csv.exitCode(), csv.err());
        assertTrue(csv.err().startsWith("psmr cluster status: --format must be text or json for psmr cluster status, got 'csv'\n"),
                csv.err());
        assertTrue(csv.err().contains("Usage: psmr cluster status "), csv.err());
    }

    @Test
    void aRatisClusterDefaultsToThreePeers() {
        Path ratis = dir.resolve("ratis");
        CliRun init = CliRun.of("cluster", "init", "--dir", ratis.toString(), "--ordering", "ratis", "--hosts", "127.0.0.2",
                "--base-port", "7200");
        assertEquals(0, init.exitCode(), init.err());
        assertEquals(3, new ClusterDirectory(ratis).read().replicas().size(), init.out());
        assertTrue(init.out().contains("127.0.0.2: replica-1 replica-2 replica-3"), init.out());

        Path pbft = dir.resolve("pbft");
        assertEquals(0, CliRun.of("cluster", "init", "--dir", pbft.toString(), "--ordering", "pbft", "--hosts", "127.0.0.2",
                "--base-port", "7300").exitCode());
        assertEquals(4, new ClusterDirectory(pbft).read().replicas().size());

        Path ringPaxos = dir.resolve("ringpaxos");
        assertEquals(0, CliRun.of("cluster", "init", "--dir", ringPaxos.toString(), "--hosts", "127.0.0.2", "--base-port", "7400")
                .exitCode());
        assertEquals(2, new ClusterDirectory(ringPaxos).read().replicas().size());
        assertTrue(CliRun.of("cluster", "start", "--help").out().replaceAll("\\s+", " ")
                .contains("(default: 2 Ring Paxos replicas, 3 Ratis peers, 4 PBFT replicas: the fewest that tolerate one failure)"));
    }

    @Test
    void stopTakesForceNoMore() throws Exception {
        assertEquals(0, CliRun.of("cluster", "init", "--dir", dir.toString(), "--hosts", "127.0.0.2").exitCode());
        CliRun stop = CliRun.of("cluster", "stop", "--dir", dir.toString(), "--force");
        assertEquals(2, stop.exitCode(), stop.err());
        assertTrue(stop.err().startsWith("psmr cluster stop: --force was renamed --discard-uncheckpointed (cluster start --force "
                + "deletes a cluster; cluster stop deletes nothing, and this flag only lets it lose what PBFT replicas executed "
                + "after their last checkpoint)\n"), stop.err());
        assertTrue(stop.err().contains("Usage: psmr cluster stop "), stop.err());
        CliRun discard = CliRun.of("cluster", "stop", "--dir", dir.toString(), "--discard-uncheckpointed");
        assertEquals(0, discard.exitCode(), discard.err());
        assertEquals("stopped 0 nodes", discard.out().strip());
    }

    @Test
    void theHelpOfKillRestartAndStatusNamesEveryOrdering() {
        for (String command : List.of("kill", "restart", "status")) {
            String help = CliRun.of("cluster", command, "--help").out().replaceAll("\\s+", " ");
            for (String ordering : List.of("Ring Paxos", "Ratis", "PBFT")) {
                assertTrue(help.contains(ordering), "cluster " + command + " --help lacks " + ordering + ":\n" + help);
            }
        }
        assertTrue(CliRun.of("cluster", "kill", "--help").out().replaceAll("\\s+", " ")
                .contains("the primary of pillar 0 of a pbft cluster"));
    }

    private static List<String> fields(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
