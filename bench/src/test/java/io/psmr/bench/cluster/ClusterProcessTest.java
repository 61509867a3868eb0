package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterNode;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.net.ReplyProtocol;

import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 6's integration test, with real processes: {@code cluster start} of 3 Ring Paxos acceptors
 * and 2 replicas (5 JVMs on 127.0.0.1), replies over TCP, and {@link KillUnderLoad}: the
 * coordinator's process killed under load, restarted from its acceptor log, then needed in the quorum.
 * The cluster runs mutual TLS, cluster start's default: a plain TCP client is refused first.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterProcessTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    @Test
    void loadSurvivesAKilledCoordinatorAndARestartedAcceptorRejoins() throws Exception {
        long seed = ProcessCluster.seed("ClusterProcessTest", dir); // re-run a failure with -Dpsmr.seed=SEED
        String context = "seed " + seed + ", cluster in " + dir;
        ClusterLauncher launcher = processes.in(dir);
        ClusterDescriptor cluster = launcher.start(ClusterSpec.ringPaxos(3, 2, ProcessCluster.settings(2)), Duration.ofSeconds(90));
        assertPlainClientRefused(launcher, cluster.replicas().get(0), context);
        KillUnderLoad.run("ClusterProcessTest", launcher, "acceptor-", seed, context,
                restarted -> assertRestoredFromItsLog(launcher.directory().logFile(restarted), context));
    }

    /**
     * A proxy's hello over plain TCP to a replica's reply port gets no welcome: the replica, under TLS, closes the
     * connection and logs why.
     */
    static void assertPlainClientRefused(ClusterLauncher launcher, ClusterNode replica, String context) throws Exception {
        assertTrue(launcher.directory().read().tls() != null, "cluster start runs mutual TLS by default, " + context);
        try (Socket plain = new Socket(replica.host(), replica.replyPort())) {
            plain.setSoTimeout(10_000);
            byte[] hello = ReplyProtocol.encodeHandshake(77);
            plain.getOutputStream().write(ByteBuffer.allocate(4 + hello.length).putInt(hello.length).put(hello).array());
            assertEquals(-1, plain.getInputStream().read(), "a plain TCP hello must be closed unanswered, " + context);
        }
        Path log = launcher.directory().logFile(replica.name());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.readAllLines(log).stream().noneMatch(l -> l.contains("TLS handshake failed: not an SSL/TLS record"))) {
            assertTrue(System.nanoTime() < deadline, "no TLS refusal logged in " + log + ", " + context);
            Thread.sleep(20); // polling the log for the line, with a deadline
        }
    }

    /**
     * The restarted acceptor's start line must show the state its log gave back (a fresh one holds
     * nothing): without this, a restart that ignored its data directory would pass, since the third
     * acceptor alone still holds every vote.
     */
    static void assertRestoredFromItsLog(Path log, String context) throws IOException {
        List<String> starts = Files.readAllLines(log).stream().filter(l -> l.contains(" listening on ")).toList();
        assertEquals(2, starts.size(), "two starts of the acceptor in " + log + ", " + context);
        Matcher m = Pattern.compile("trimmed to (\\d+), (\\d+) instances held").matcher(starts.get(1));
        assertTrue(m.find(), starts.get(1));
        assertTrue(Long.parseLong(m.group(1)) + Long.parseLong(m.group(2)) > 0,
                "the restarted acceptor restored nothing: " + starts.get(1) + ", " + context);
        assertTrue(!starts.get(1).contains("round=0,"), "the restarted acceptor lost its promise: " + starts.get(1));
    }
}
