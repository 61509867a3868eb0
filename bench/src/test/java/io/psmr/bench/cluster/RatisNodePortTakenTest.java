package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.kvstore.cluster.NodeRole;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.scheduler.SchedulerMode;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code psmr node} for a Ratis peer whose port is taken: exit 1 with one line naming the node, the
 * Ratis peer, its address and the cause; Ratis' own reaction (System.exit) would end this test's JVM.
 * ({@code psmr load --ordering ratis} picks free ports itself, so it has no port to take in advance.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RatisNodePortTakenTest {

    @TempDir
    Path dir;

    @Test
    void aRatisNodeWhosePortIsTakenExits1NamingThePeerItsAddressAndTheCause() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            new ClusterDirectory(dir).create(new ClusterDescriptor(ClusterDescriptor.VERSION, OrderingProtocol.RATIS,
                    "127.0.0.1", new ClusterSettings(SchedulerMode.KEYS_HASHED, 1, 100, 8, 10),
                    List.of(new ClusterNode("replica-1", NodeRole.REPLICA, 1, 1, port, 0, 0, null, null)),
                    List.of(), UUID.randomUUID().toString()));

            CliRun node = CliRun.of("node", "--dir", dir.toString(), "--name", "replica-1");

            // Still here: the JVM survived the failed start.
            assertEquals(1, node.exitCode(), node.err());
            String prefix = "psmr node: replica replica-1: Ratis peer p1 could not start on 127.0.0.1:" + port + ": ";
            String line = node.err().strip();
            assertTrue(line.startsWith(prefix) && line.endsWith("Address already in use") && line.lines().count() == 1,
                    "stderr: " + node.err());
        }
    }
}
