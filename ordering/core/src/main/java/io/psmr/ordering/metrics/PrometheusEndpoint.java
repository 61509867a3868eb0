package io.psmr.ordering.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP endpoint that serves a {@link PrometheusMeterRegistry}'s scrape at {@code GET /metrics}
 * (Prometheus text format), on the JDK's {@link HttpServer}. Anything else gets 404 (other paths)
 * or 405 (other methods).
 *
 * <p><b>Threads.</b> Requests are answered one at a time on the endpoint's own daemon thread (at most
 * {@value #QUEUED} waiting; past that the server's dispatcher answers the next itself), so a
 * scraper never competes with the node's threads for more than one core; the meters it reads are
 * snapshots that do not block the hot path. {@link #start}, {@link #port} and {@link #close} from any thread.
 */
public final class PrometheusEndpoint implements AutoCloseable {

    /** The path scraped. */
    public static final String PATH = "/metrics";
    /** Scrapes that may wait for the endpoint's thread. */
    private static final int QUEUED = 16;
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private PrometheusEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Checks a port given on a command line: 0 (ephemeral) to 65535.
     *
     * @throws IllegalArgumentException naming the port, if out of range
     */
    public static int checkPort(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--metrics-port must be between 0 (any free port) and 65535, got " + port);
        }
        return port;
    }

    /**
     * Serves {@code registry} on {@code host:port} ({@code port} 0: an ephemeral port, see {@link #port}).
     *
     * @throws IllegalArgumentException if the port is out of range
     * @throws UncheckedIOException     naming the address, if it cannot be bound (the port is taken)
     */
    public static PrometheusEndpoint start(String host, int port, PrometheusMeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        checkPort(port);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 8);
        } catch (BindException e) {
            throw new UncheckedIOException("metrics port " + port + " on " + host + " is taken or not bindable: "
                    + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        server.createContext("/", exchange -> answer(exchange, registry));
        // Bounded: past QUEUED waiting scrapes the server's dispatcher answers the next one itself, and so
        // stops accepting connections until it has.
        ExecutorService executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(QUEUED), r -> {
            Thread t = new Thread(r, "psmr-metrics-http");
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.CallerRunsPolicy());
        server.setExecutor(executor);
        server.start();
        return new PrometheusEndpoint(server, executor);
    }

    private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            int code;
            byte[] body;
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                code = 404;
                body = ("not found; metrics are at " + PATH + "\n").getBytes(StandardCharsets.UTF_8);
            } else if (!"GET".equals(exchange.getRequestMethod())) {
                code = 405;
                body = "only GET\n".getBytes(StandardCharsets.UTF_8);
            } else {
                code = 200;
                body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            }
            exchange.sendResponseHeaders(code, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The port actually bound (the ephemeral one if started with 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    /** Stops serving and releases the port. Idempotent. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
