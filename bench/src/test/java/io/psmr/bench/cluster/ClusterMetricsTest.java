package io.psmr.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.StatusFile;
import io.psmr.kvstore.metrics.MetricsScrape;
import io.psmr.ordering.node.NodeStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cluster start --metrics} on a real cluster of processes (1 acceptor, 1 Ring Paxos replica): each node
 * publishes its endpoint's port in its status; a load moves the replica's counters between two scrapes over
 * HTTP; the load process serves its proxy's meters; {@code cluster status} shows the scraped figures; bad and
 * taken ports are refused with messages naming them.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterMetricsTest {

    private static final Duration SCRAPE = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (Files.exists(dir.resolve("cluster.json"))) {
            CliRun.of("cluster", "stop", "--dir", dir.toString());
        }
    }

    @Test
    void nodesServeMetricsThatMoveWithALoadAndStatusShowsThem() throws Exception {
        String d = dir.toString();
        CliRun start = CliRun.of("cluster", "start", "--dir", d, "--acceptors", "1", "--replicas", "1", "--workers", "1",
                "--max-keys", "100", "--metrics");
        assertEquals(0, start.exitCode(), start.err());
        int replicaPort = metricsPort("replica-1");
        int acceptorPort = metricsPort("acceptor-0");

        String raw = get(replicaPort);
        assertTrue(raw.contains("psmr_scheduler_batches_pending{node=\"replica-1\",role=\"replica\"}"), raw);
        assertTrue(raw.contains("psmr_store_capacity_bytes{node=\"replica-1\",role=\"replica\"}"), raw);
        MetricsScrape before = MetricsScrape.fetch("127.0.0.1", replicaPort, SCRAPE);
        assertEquals(100.0, before.value("psmr_store_entries_capacity").orElseThrow());

        // The load process serves its proxy's meters while it runs.
        int loadPort = freePort();
        CompletableFuture<CliRun> load = CompletableFuture.supplyAsync(() -> CliRun.of("load", "--cluster", d, "--clients", "4",
                "--keys", "20", "--duration", "2s", "--metrics-port", Integer.toString(loadPort)));
        double proposed = 0;
        String loadRaw = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (proposed == 0 && !load.isDone() && System.nanoTime() < deadline) {
            try {
                loadRaw = get(loadPort);
                proposed = MetricsScrape.parse("load", loadRaw).value("psmr_proxy_batches_proposed_total").orElse(0.0);
            } catch (IOException notYet) {
                // the endpoint opens once the load has validated its flags
            }
            if (proposed == 0) {
                Thread.sleep(50); // polling another component's HTTP endpoint
            }
        }
        CliRun finished = load.get(60, TimeUnit.SECONDS);
        assertEquals(0, finished.exitCode(), finished.err());
        assertTrue(finished.err().contains("psmr load: metrics at http://127.0.0.1:" + loadPort + "/metrics"), finished.err());
        assertTrue(proposed > 0, "the load's proxy never reported a proposed batch:\n" + loadRaw);
        assertTrue(loadRaw.contains("role=\"load\""), loadRaw);
        assertTrue(loadRaw.contains("psmr_proxy_batches_outstanding{"), loadRaw);
        assertTrue(loadRaw.contains("psmr_proxy_proposal_seconds_count{"), loadRaw);

        MetricsScrape after = MetricsScrape.fetch("127.0.0.1", replicaPort, SCRAPE);
        for (String counter : new String[] {"psmr_ordering_instances_delivered_total", "psmr_scheduler_batches_executed_total",
                "psmr_scheduler_commands_executed_total", "psmr_scheduler_worker_busy_seconds_total"}) {
            assertTrue(after.value(counter).orElseThrow() > before.value(counter).orElseThrow(),
                    counter + " did not grow: " + before.value(counter) + " then " + after.value(counter));
        }
        double entries = after.value("psmr_store_entries").orElseThrow();
        assertTrue(entries > 0 && entries <= 20, "store entries " + entries);
        MetricsScrape acceptor = MetricsScrape.fetch("127.0.0.1", acceptorPort, SCRAPE);
        assertEquals(1.0, acceptor.value("psmr_ordering_leader").orElseThrow());
        assertTrue(acceptor.value("psmr_ordering_acceptor_log_size").orElseThrow() >= 0);

        // The load has settled (equal idle digests): status shows the same store figures it scrapes.
        CliRun status = CliRun.of("cluster", "status", "--dir", d);
        assertEquals(0, status.exitCode(), status.err());
        assertTrue(status.out().contains("metrics (GET /metrics on each node's port):"), status.out());
        assertTrue(status.out().contains("  replica-1 :" + replicaPort + " delivered "), status.out());
        assertTrue(status.out().contains(String.format(Locale.ROOT, ", store %.0f/100 entries, ", entries)), status.out());
        assertTrue(status.out().contains("  acceptor-0 :" + acceptorPort + " log "), status.out());

        // Bad ports are usage errors naming the flag; a taken one fails naming the port.
        CliRun bad = CliRun.of("node", "--dir", d, "--name", "replica-1", "--metrics-port", "70000");
        assertEquals(2, bad.exitCode(), bad.err());
        assertTrue(bad.err().contains("--metrics-port must be between 0 (any free port) and 65535, got 70000"), bad.err());
        CliRun badLoad = CliRun.of("load", "--cluster", d, "--metrics-port", "-1");
        assertEquals(2, badLoad.exitCode(), badLoad.err());
        assertTrue(badLoad.err().contains("--metrics-port must be between 0 (any free port) and 65535, got -1"), badLoad.err());
        CliRun takenLoad = CliRun.of("load", "--cluster", d, "--duration", "100ms", "--metrics-port", Integer.toString(replicaPort));
        assertEquals(1, takenLoad.exitCode(), takenLoad.err());
        assertTrue(takenLoad.err().contains("psmr load: metrics port " + replicaPort + " on 127.0.0.1 is taken"), takenLoad.err());

        // An endpoint that does not answer says so (status prints that line for a live node's silent endpoint).
        assertEquals(0, CliRun.of("cluster", "kill", "--dir", d, "--node", "acceptor-0").exitCode());
        IOException silent = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> MetricsScrape.fetch("127.0.0.1", acceptorPort, Duration.ofSeconds(1)));
        assertTrue(silent.getMessage().startsWith("http://127.0.0.1:" + acceptorPort + "/metrics did not answer"),
                silent.getMessage());
        // The killed acceptor's own port is free again: run it by hand with a metrics port another node holds.
        CliRun taken = CliRun.of("node", "--dir", d, "--name", "acceptor-0", "--metrics-port", Integer.toString(replicaPort));
        assertEquals(1, taken.exitCode(), taken.err());
        assertTrue(taken.err().contains("metrics port " + replicaPort + " on 127.0.0.1 is taken"), taken.err());
    }

    private int metricsPort(String node) {
        NodeStatus s = StatusFile.read(new ClusterDirectory(dir).statusFile(node)).orElseThrow();
        assertTrue(s.metricsPort() > 0, node + " published no metrics port: " + s);
        return s.metricsPort();
    }

    private static String get(int port) throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/metrics")).timeout(SCRAPE).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    /** A port free a moment ago (the load binds it next; another process could take it first, failing the test loudly). */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
