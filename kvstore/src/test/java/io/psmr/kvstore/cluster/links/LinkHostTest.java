package io.psmr.kvstore.cluster.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.kvstore.cluster.ProposerSlot;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The link host of a cluster: a link per port per directed pair of processes, the cluster as each process dials it
 * through them, links.json round trip, and its control port's answers and refusals.
 */
class LinkHostTest {

    @TempDir
    Path dir;

    static ClusterDescriptor ringPaxos() {
        return new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RING_PAXOS, "127.0.0.1",
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10),
                List.of(new ClusterNode("acceptor-0", NodeRole.ACCEPTOR, 0, 0, 41000, 0, 0, null, null),
                        new ClusterNode("acceptor-1", NodeRole.ACCEPTOR, 1, 0, 41001, 0, 0, null, null),
                        new ClusterNode("acceptor-2", NodeRole.ACCEPTOR, 2, 0, 41002, 0, 0, null, null),
                        new ClusterNode("replica-1", NodeRole.REPLICA, 100, 1, 41003, 41004, 41007, null, null)),
                List.of(new ProposerSlot(200, 41005), new ProposerSlot(201, 41006)), null);
    }

    @Test
    void eachProcessDialsEveryOtherThroughItsOwnLinks() throws Exception {
        ClusterDescriptor cluster = ringPaxos();
        try (LinkHost host = new LinkHost(cluster, 7)) {
            LinkTable t = host.table();
            // 8 ports to dial (acceptors 1 each, the replica 3, the clients' slots 2), from every process but their own:
            // 3 acceptors × 7, the replica 5, the clients 6, the minority clients 6 (load processes bind the slots).
            assertEquals(38, t.links().size(), "links: " + t.links());

            ClusterDescriptor seen = t.dialedBy("acceptor-0", cluster);
            ClusterNode self = seen.node("acceptor-0").orElseThrow();
            assertEquals(41000, self.port(), "a process binds its own ports: its entry is unchanged");
            ClusterNode other = seen.node("acceptor-1").orElseThrow();
            assertEquals(t.via("acceptor-0", "acceptor-1", 41001).getAsInt(), other.port());
            ClusterNode replica = seen.node("replica-1").orElseThrow();
            assertEquals(t.via("acceptor-0", "replica-1", 41004).getAsInt(), replica.replyPort());
            assertEquals(t.via("acceptor-0", "replica-1", 41007).getAsInt(), replica.checkpointPort());
            assertEquals(t.via("acceptor-0", LinkTable.CLIENTS, 41005).getAsInt(), seen.proposers().get(0).port(),
                    "acceptors reach the proposer slots through links too");
            assertNotEquals(t.via("acceptor-0", "acceptor-1", 41001), t.via("acceptor-2", "acceptor-1", 41001),
                    "each directed pair has links of its own");

            ClusterDescriptor clients = t.dialedBy(LinkTable.CLIENTS, cluster);
            assertEquals(cluster.proposers(), clients.proposers(), "load processes bind their slots' own ports");
            assertEquals(t.via(LinkTable.CLIENTS, "replica-1", 41004).getAsInt(),
                    clients.node("replica-1").orElseThrow().replyPort());
            ClusterDescriptor minority = t.dialedBy(LinkTable.CLIENTS_MINORITY, cluster);
            assertEquals(cluster.proposers(), minority.proposers(), "minority clients bind their slots' own ports too");
            assertEquals(t.via(LinkTable.CLIENTS_MINORITY, "replica-1", 41004).getAsInt(),
                    minority.node("replica-1").orElseThrow().replyPort());
            assertNotEquals(t.via(LinkTable.CLIENTS, "replica-1", 41004), t.via(LinkTable.CLIENTS_MINORITY, "replica-1", 41004),
                    "the minority clients dial through links of their own");
            assertTrue(t.via(LinkTable.CLIENTS_MINORITY, LinkTable.CLIENTS, 41005).isEmpty(),
                    "no link between the load processes' sources");

            host.table().write(dir);
            assertEquals(host.table(), LinkTable.read(dir).orElseThrow());
        }
    }

    @Test
    void aPbftReplicaDialsTheOthersPillarsThroughLinks() throws Exception {
        ClusterSpec spec = ClusterSpec.pbft(4, 2, LeaderRotation.ROTATING,
                new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 16, 10));
        AtomicInteger port = new AtomicInteger(42000);
        ClusterDescriptor cluster = spec.binding().layout(spec, port::getAndIncrement);
        try (LinkHost host = new LinkHost(cluster, 7)) {
            LinkTable t = host.table();
            String self = cluster.replicas().get(0).name();
            String other = cluster.replicas().get(1).name();
            ClusterDescriptor seen = t.dialedBy(self, cluster);
            assertEquals(cluster.pbft().pillarPorts().get(0), seen.pbft().pillarPorts().get(0));
            int pillar = cluster.pbft().pillarPorts().get(1).get(1);
            assertEquals(t.via(self, other, pillar).getAsInt(), seen.pbft().pillarPorts().get(1).get(1));
            assertEquals(t.via(self, other, pillar).getAsInt(), seen.pillarAddress(1, 1).getPort());
        }
    }

    @Test
    void theControlPortSetsConditionsAndNamesWhatItRefuses() throws Exception {
        try (LinkHost host = new LinkHost(ringPaxos(), 7)) {
            LinkControl control = new LinkControl(host.table());
            control.condition("acceptor-0", "acceptor-1", LinkCondition.BLACKHOLE);
            control.condition("replica-1", "acceptor-2", LinkCondition.delay(20, 5));
            control.reset("acceptor-0", "acceptor-1");
            List<LinkControl.LinkState> states = control.states();
            assertEquals(LinkCondition.BLACKHOLE, state(states, "acceptor-0", "acceptor-1").condition());
            assertEquals(LinkCondition.delay(20, 5), state(states, "replica-1", "acceptor-2").condition());
            assertEquals(LinkCondition.PASS, state(states, "acceptor-1", "acceptor-0").condition(),
                    "the other direction is a link of its own");

            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> control.condition("acceptor-0", "nobody", LinkCondition.BLACKHOLE));
            assertTrue(e.getMessage().startsWith("the link host refused: no link acceptor-0 → nobody; processes: "),
                    e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> control.reset("acceptor-0", "acceptor-0"));
            assertTrue(e.getMessage().contains("no link acceptor-0 → acceptor-0"), e.getMessage());

            // Several at once; an unknown link among them changes none.
            control.conditions(List.of(new LinkControl.LinkSetting("acceptor-0", "acceptor-1", LinkCondition.PASS),
                    new LinkControl.LinkSetting("acceptor-2", "replica-1", LinkCondition.throttle(1000))));
            assertEquals(LinkCondition.PASS, state(control.states(), "acceptor-0", "acceptor-1").condition());
            assertEquals(LinkCondition.throttle(1000), state(control.states(), "acceptor-2", "replica-1").condition());
            e = assertThrows(IllegalStateException.class, () -> control.conditions(List.of(
                    new LinkControl.LinkSetting("acceptor-2", "replica-1", LinkCondition.PASS),
                    new LinkControl.LinkSetting("acceptor-2", "nobody", LinkCondition.PASS))));
            assertTrue(e.getMessage().contains("no link acceptor-2 → nobody"), e.getMessage());
            assertEquals(LinkCondition.throttle(1000), state(control.states(), "acceptor-2", "replica-1").condition(),
                    "nothing changed");

            // By hand, as docs/recovery.md shows: fields left out are 0; a bad one is refused, naming it.
            assertEquals(200, put(host, "acceptor-1/acceptor-2", "{\"delayMicros\":20000}").statusCode());
            assertEquals(new LinkCondition(false, 20_000, 0, 0), state(control.states(), "acceptor-1", "acceptor-2").condition());
            var bad = put(host, "acceptor-1/acceptor-2", "{\"delayMicros\":-5}");
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body().contains("delay, jitter and rate must be at least 0"), bad.body());
            bad = put(host, "acceptor-1/acceptor-2", "{\"blackhole\":true,\"colour\":\"red\"}");
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body().contains("colour"), bad.body());
        }
    }

    @Test
    void refusesAClusterNotOnOneLoopbackAddress() {
        ClusterDescriptor c = ringPaxos();
        ClusterDescriptor spread = new ClusterDescriptor(ClusterDescriptor.VERSION, c.ordering(), null, c.settings(),
                c.nodes().stream().map(n -> n.name().equals("replica-1") ? n.onHost("127.0.0.2") : n).toList(),
                c.proposers(), null);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LinkHost(spread, 1));
        assertEquals("fault-injecting links need every node and proposer slot on one loopback address; this cluster's"
                + " are on [127.0.0.1, 127.0.0.2]", e.getMessage());
    }

    private static java.net.http.HttpResponse<String> put(LinkHost host, String link, String body) throws Exception {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + host.table().controlPort() + "/links/" + link))
                        .PUT(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static LinkControl.LinkState state(List<LinkControl.LinkState> states, String from, String to) {
        return states.stream().filter(s -> s.from().equals(from) && s.to().equals(to)).findFirst().orElseThrow();
    }
}
