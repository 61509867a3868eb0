package io.psmr.kvstore.cluster;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.node.NodeStatus;
import io.psmr.scheduler.SchedulerMode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cluster.json}: round trip, derived Ring Paxos membership, refusals naming the problem, sessions and slots. */
class ClusterDescriptorTest {

    @TempDir
    Path dir;

    static ClusterDescriptor sample() {
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10),
                List.of(new ClusterNode("acceptor-0", NodeRole.ACCEPTOR, 0, 0, 41000, 0, 0, 123L, null),
                        new ClusterNode("acceptor-1", NodeRole.ACCEPTOR, 1, 0, 41001, 0, 0, null, null),
                        new ClusterNode("acceptor-2", NodeRole.ACCEPTOR, 2, 0, 41002, 0, 0, null, null),
                        new ClusterNode("replica-1", NodeRole.REPLICA, 100, 1, 41003, 41004, 0, 456L, null)),
                List.of(new ProposerSlot(200, 41005), new ProposerSlot(201, 41006)), null);
    }

    @Test
    void roundTripsThroughTheFileAndDerivesTheMembership() {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor c = sample();
        cd.create(c);
        assertEquals(c, cd.read());
        RingPaxosConfig rp = c.ringPaxosConfig();
        assertEquals(List.of(0, 1, 2), rp.acceptors());
        assertEquals(List.of(100), rp.learners());
        assertEquals(List.of(200, 201), rp.proposers());
        assertEquals(41004, c.replyAddresses().get(1).getPort());
        assertEquals(41006, c.peers().get(201).getPort());
        assertEquals(6, c.peers().size());
        ClusterDescriptor updated = cd.update(d -> d.withProcess("acceptor-1", ProcessHandle.current()));
        ClusterNode me = cd.read().node("acceptor-1").orElseThrow();
        assertEquals(ProcessHandle.current().pid(), me.pid());
        assertTrue(me.liveProcess().isPresent());
        ClusterNode impostor = new ClusterNode("x", NodeRole.ACCEPTOR, 9, 0, 40000, 0, 0, me.pid(), me.started() - 60_000);
        assertTrue(impostor.liveProcess().isEmpty(), "a reused pid is not the node");
        assertEquals(updated, cd.read());
        assertEquals(1, cd.read().settings().replicaConfig(1).replicaId());
    }

    @Test
    void refusesBadFilesNamingTheProblem() throws Exception {
        ClusterDirectory cd = new ClusterDirectory(dir);
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(missing.getMessage().contains("does not exist"), missing.getMessage());

        String json = sample().toJson();
        assertTrue(json.contains("\"mode\" : \"bitmap-indexed\""), json);
        assertTrue(json.contains("\"ordering\" : \"ringpaxos\""), json);
        Files.writeString(dir.resolve("cluster.json"), json.replace("\"bitmap-indexed\"", "\"fast\""));
        IllegalArgumentException mode = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(mode.getMessage().contains("unknown mode 'fast'; modes: sequential, cbase, keys-pairwise"), mode.getMessage());
        Files.writeString(dir.resolve("cluster.json"), json.replace("\"bitmap-indexed\"", "\"bitmap\""));
        IllegalArgumentException old = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(old.getMessage().contains("mode 'bitmap' is no longer a name; use bitmap-indexed"), old.getMessage());

        Files.writeString(dir.resolve("cluster.json"), json.replace("41002", "41001"));
        IllegalArgumentException port = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(port.getMessage().contains("port 41001 appears twice"), port.getMessage());

        Files.writeString(dir.resolve("cluster.json"), json.replace("\"version\" : 2", "\"version\" : 9"));
        IllegalArgumentException version = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(version.getMessage().contains("format version 9"), version.getMessage());

        Files.writeString(dir.resolve("cluster.json"), "{ not json");
        IllegalArgumentException garbage = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(garbage.getMessage().contains("is not a valid cluster file"), garbage.getMessage());

        Files.writeString(dir.resolve("cluster.json"), json.replace("\"replica\"", "\"witness\""));
        IllegalArgumentException role = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(role.getMessage().contains("witness"), role.getMessage());
    }

    /**
     * Format 2 names a host per node and proposer slot, and every address derived from the file is on that host; a
     * version-1 file (one top-level host) still reads, each node and slot on that host, and is written back as version 2.
     */
    @Test
    void everyNodeHasItsOwnHostAndAVersionOneFileStillReads() throws Exception {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor c = new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, null,
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10),
                List.of(new ClusterNode("acceptor-0", NodeRole.ACCEPTOR, "10.0.0.1", 0, 0, 41000, 0, 0, null, null),
                        new ClusterNode("replica-1", NodeRole.REPLICA, "10.0.0.2", 100, 1, 41003, 41004, 41005, null, null),
                        new ClusterNode("replica-2", NodeRole.REPLICA, "10.0.0.3", 101, 2, 41006, 41007, 41008, null, null)),
                List.of(new ProposerSlot(200, 41009, "10.0.0.9")), null);
        cd.create(c);
        String json = Files.readString(dir.resolve("cluster.json"));
        assertTrue(json.contains("\"version\" : 2"), json);
        assertTrue(!new com.fasterxml.jackson.databind.ObjectMapper().readTree(json).has("host"), "no top-level host: " + json);
        assertTrue(json.contains("\"host\" : \"10.0.0.2\""), json);
        assertEquals(c, cd.read());
        assertEquals("10.0.0.1:41000", hostPort(c.peers().get(0)));
        assertEquals("10.0.0.3:41006", hostPort(c.peers().get(101)));
        assertEquals("10.0.0.9:41009", hostPort(c.peers().get(200)));
        assertEquals("10.0.0.2:41004", hostPort(c.replyAddresses().get(1)));
        assertEquals(List.of("10.0.0.3:41008"), c.checkpointPeers(c.replicas().get(0)).stream().map(ClusterDescriptorTest::hostPort).toList());

        // A node without a host in a version-2 file is refused by name.
        Files.writeString(dir.resolve("cluster.json"), json.replace("\"host\" : \"10.0.0.3\",", ""));
        IllegalArgumentException noHost = assertThrows(IllegalArgumentException.class, cd::read);
        assertEquals(dir.resolve("cluster.json") + " is not a valid cluster file: cluster.json: node replica-2 names no host",
                noHost.getMessage());
        Files.writeString(dir.resolve("cluster.json"), json.replace("\"10.0.0.3\"", "\" \""));
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(empty.getMessage().endsWith("node replica-2: host is empty"), empty.getMessage());

        // Version 1: one top-level host, none per node.
        String v1 = """
                {
                  "version" : 1,
                  "ordering" : "ratis",
                  "host" : "127.0.0.1",
                  "settings" : { "mode" : "keys-hashed", "workers" : 1, "maxKeys" : 100, "valueBytes" : 8, "tickMillis" : 10 },
                  "nodes" : [
                    { "name" : "replica-1", "role" : "replica", "paxosId" : 1, "replicaId" : 1, "port" : 42001, "replyPort" : 0,
                      "checkpointPort" : 0, "pid" : null, "started" : null },
                    { "name" : "replica-2", "role" : "replica", "paxosId" : 2, "replicaId" : 2, "port" : 42002, "replyPort" : 0,
                      "checkpointPort" : 0, "pid" : null, "started" : null } ],
                  "proposers" : [ ],
                  "ratisGroup" : "02511d47-d67c-49a3-9011-abb3109a44c1"
                }
                """;
        Files.writeString(dir.resolve("cluster.json"), v1);
        ClusterDescriptor old = cd.read();
        assertEquals(ClusterDescriptor.VERSION, old.version());
        assertEquals(List.of("127.0.0.1", "127.0.0.1"), old.nodes().stream().map(ClusterNode::host).toList());
        assertEquals("127.0.0.1:42002", hostPort(old.raftGroup().getPeer(ClusterDescriptor.raftPeerId(old.replicas().get(1))).getAddress()));
        cd.update(d -> d); // rewritten in the current format
        assertTrue(Files.readString(dir.resolve("cluster.json")).contains("\"version\" : 2"));
        assertEquals(old, cd.read());
        Files.writeString(dir.resolve("cluster.json"), v1.replace("\"host\" : \"127.0.0.1\",", ""));
        IllegalArgumentException v1NoHost = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(v1NoHost.getMessage().endsWith("cluster.json: a version 1 file names one top-level host for every node, and this one has none"),
                v1NoHost.getMessage());
    }

    private static String hostPort(Object address) {
        if (address instanceof java.net.InetSocketAddress a) {
            return a.getHostString() + ":" + a.getPort();
        }
        return address.toString();
    }

    /** The capacity every replica gets; a cluster.json from before maxBytes existed reads with the default. */
    @Test
    void theStoreCapacityIsReplicatedAndOlderFilesGetTheDefault() throws Exception {
        ClusterDirectory cd = new ClusterDirectory(dir);
        ClusterDescriptor c = sample();
        assertEquals(1000L * (16 + 16), c.settings().maxBytes(), "default: maxKeys x (16 + valueBytes)");
        cd.create(c);
        assertEquals(new io.psmr.kvstore.StoreCapacity(1000, 32_000), cd.read().settings().replicaConfig(2).capacity());
        assertTrue(cd.read().settings().replicaConfig(2).store().entries() > 1000, "Chronicle Map is sized above the capacity");

        String json = c.toJson();
        assertTrue(json.contains("\"maxBytes\" : 32000"), json);
        Files.writeString(dir.resolve("cluster.json"), json.replaceAll("\\s*\"maxBytes\" : 32000,", ""));
        assertTrue(!Files.readString(dir.resolve("cluster.json")).contains("maxBytes"));
        assertEquals(c, cd.read());

        Files.writeString(dir.resolve("cluster.json"), json.replace("\"maxBytes\" : 32000", "\"maxBytes\" : 0"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(bad.getMessage().contains("settings.maxBytes must be from 1 to 17408000"), bad.getMessage());

        ClusterSettings small = new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 50, 64, 123, 10);
        assertEquals(new io.psmr.kvstore.StoreCapacity(50, 123), small.replicaConfig(1).capacity());
    }

    @Test
    void aRatisClusterHasPeersOnlyAndARaftGroup() throws Exception {
        ClusterDirectory cd = new ClusterDirectory(dir);
        String group = "02511d47-d67c-49a3-9011-abb3109a44c1";
        ClusterDescriptor c = new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS, "127.0.0.1",
                new ClusterSettings(SchedulerMode.KEYS_HASHED, 1, 100, 8, 10),
                List.of(new ClusterNode("replica-1", NodeRole.REPLICA, 1, 1, 42001, 0, 0, null, null),
                        new ClusterNode("replica-2", NodeRole.REPLICA, 2, 2, 42002, 0, 0, null, null)),
                List.of(), group);
        cd.create(c);
        assertEquals(c, cd.read());
        assertEquals(OrderingProtocol.RATIS, c.ordering());
        assertEquals(2, c.raftGroup().getPeers().size());
        assertEquals(group, c.raftGroup().getGroupId().getUuid().toString());
        assertEquals("p2", ClusterDescriptor.raftPeerId(c.replicas().get(1)).toString());
        Files.writeString(dir.resolve("cluster.json"), c.toJson().replace(group, "not-a-uuid"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(bad.getMessage().contains("ratisGroup must be a UUID"), bad.getMessage());
        Files.writeString(dir.resolve("cluster.json"), c.toJson().replace("\"ratis\"", "\"bft\""));
        IllegalArgumentException ordering = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(ordering.getMessage().contains("unknown ordering 'bft'; orderings: local, ringpaxos, ratis, pbft"), ordering.getMessage());
        Files.writeString(dir.resolve("cluster.json"), c.toJson().replace("\"ratis\"", "\"pbft\""));
        IllegalArgumentException embedded = assertThrows(IllegalArgumentException.class, cd::read);
        assertTrue(embedded.getMessage().contains("replica replica-1 has no replyPort"), embedded.getMessage());
    }

    @Test
    void statusFilesRoundTripAndAMissingOneIsEmpty() {
        Path f = new ClusterDirectory(dir).statusFile("replica-1");
        assertTrue(StatusFile.read(f).isEmpty());
        NodeStatus s = new NodeStatus("replica-1", ProcessHandle.current().pid(), true, false, 42, 7L, null, 1L);
        StatusFile.write(f, s);
        assertEquals(s, StatusFile.read(f).orElseThrow());
        assertTrue(s.alive());
    }
}
