package io.psmr.ordering.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The endpoint on a real loopback socket: what it serves, and the ports it refuses, by their messages. */
class PrometheusEndpointTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheRegistryAtMetricsAndNothingElse() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("node", "n1", "role", "replica");
        Counter c = Counter.builder("psmr.test.events").baseUnit("events").register(registry);
        c.increment(3);
        try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, registry)) {
            assertTrue(endpoint.port() > 0);
            HttpResponse<String> r = get(endpoint.port(), "/metrics");
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), r.headers().toString());
            assertTrue(r.body().contains("psmr_test_events_total{node=\"n1\",role=\"replica\"} 3.0"), r.body());
            assertEquals(404, get(endpoint.port(), "/other").statusCode());
        }
    }

    @Test
    void refusesAPortOutOfRange() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PrometheusEndpoint.start("127.0.0.1", 65536, registry));
        assertEquals("--metrics-port must be between 0 (any free port) and 65535, got 65536", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> PrometheusEndpoint.checkPort(-1));
        assertEquals("--metrics-port must be between 0 (any free port) and 65535, got -1", e.getMessage());
    }

    @Test
    void aTakenPortFailsNamingIt() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            UncheckedIOException e = assertThrows(UncheckedIOException.class,
                    () -> PrometheusEndpoint.start("127.0.0.1", port, registry));
            assertTrue(e.getMessage().startsWith("metrics port " + port + " on 127.0.0.1 is taken or not bindable: "),
                    e.getMessage());
        }
    }
}
