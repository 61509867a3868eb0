package io.psmr.ordering.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.psmr.scheduler.Batch;
import io.psmr.scheduler.Command;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.Scheduler;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A real scheduler's meters, scraped over HTTP twice around a run of batches: the counters move by
 * exactly what was delivered, every series carries the node and role tags, and a scheduler that is
 * gone leaves gauges at NaN and counters at their last value.
 */
class SchedulerMetersTest {

    record Put(String key) implements Command {
        @Override
        public int keyCount() {
            return 1;
        }

        @Override
        public byte[] key(int i) {
            return key.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public boolean writes(int i) {
            return true;
        }
    }

    private static final String TAGS = "{node=\"replica-1\",role=\"replica\"}";

    @Test
    void metersMoveWithTheBatchesExecuted() throws Exception {
        Scheduler<Put, String> scheduler = Scheduler.<Put, String>builder(c -> c.key())
                .detection(ConflictDetection.keysHashed()).workers(2).start();
        AtomicReference<Scheduler<Put, String>> current = new AtomicReference<>(scheduler);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("node", "replica-1", "role", "replica");
        SchedulerMeters.bind(registry, () -> {
            Scheduler<Put, String> s = current.get();
            return s == null ? null : s.metrics();
        });
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, registry)) {
            deliver(scheduler, 1, 40);
            assertTrue(scheduler.awaitIdle(10, TimeUnit.SECONDS));
            Map<String, String> first = scrape(endpoint.port());
            deliver(scheduler, 41, 100);
            assertTrue(scheduler.awaitIdle(10, TimeUnit.SECONDS));
            Map<String, String> second = scrape(endpoint.port());

            assertEquals(40.0, value(first, "psmr_scheduler_batches_executed_total" + TAGS));
            assertEquals(100.0, value(second, "psmr_scheduler_batches_executed_total" + TAGS));
            assertEquals(100.0, value(second, "psmr_scheduler_batches_delivered_total" + TAGS));
            assertEquals(200.0, value(second, "psmr_scheduler_commands_executed_total" + TAGS));
            assertEquals(100.0, value(second, "psmr_scheduler_batch_execution_seconds_count" + TAGS));
            assertTrue(value(second, "psmr_scheduler_conflict_checks_total" + TAGS)
                    > value(first, "psmr_scheduler_conflict_checks_total" + TAGS), second.toString());
            assertTrue(value(second, "psmr_scheduler_conflicts_total" + TAGS) > 0, second.toString());
            assertTrue(value(second, "psmr_scheduler_worker_busy_seconds_total" + TAGS)
                    > value(first, "psmr_scheduler_worker_busy_seconds_total" + TAGS), second.toString());
            assertEquals(0.0, value(second, "psmr_scheduler_batches_pending" + TAGS));
            assertEquals(2.0, value(second, "psmr_scheduler_workers" + TAGS));
            double busy = value(second, "psmr_scheduler_worker_busy_fraction" + TAGS);
            assertTrue(busy > 0 && busy <= 1, "busy fraction " + busy);

            // No scheduler (a replica catching up): gauges NaN, counters keep their last value.
            current.set(null);
            Map<String, String> gone = scrape(endpoint.port());
            assertEquals("NaN", gone.get("psmr_scheduler_batches_pending" + TAGS), gone.toString());
            assertEquals(100.0, value(gone, "psmr_scheduler_batches_executed_total" + TAGS));
        } finally {
            scheduler.close();
        }
    }

    /** Batches {@code from..to}, two commands each; every third batch writes key "hot", so conflicts occur. */
    private static void deliver(Scheduler<Put, String> scheduler, int from, int to) throws InterruptedException {
        for (int i = from; i <= to; i++) {
            List<Put> commands = new ArrayList<>();
            commands.add(new Put(i % 3 == 0 ? "hot" : "k" + i));
            commands.add(new Put("other" + i));
            scheduler.deliver(Batch.of(i, commands, ConflictDetection.keysHashed()));
        }
    }

    /** Series (name with labels) to value text, read over HTTP. */
    static Map<String, String> scrape(int port) throws Exception {
        HttpResponse<String> r = PrometheusEndpointTest.get(port, "/metrics");
        assertEquals(200, r.statusCode());
        Map<String, String> series = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.startsWith("#") && !line.isBlank()) {
                int space = line.lastIndexOf(' ');
                series.put(line.substring(0, space), line.substring(space + 1));
            }
        }
        return series;
    }

    private static double value(Map<String, String> series, String name) {
        String v = series.get(name);
        assertTrue(v != null, "no series " + name + " in " + new java.util.TreeMap<>(series).keySet());
        return Double.parseDouble(v);
    }
}
