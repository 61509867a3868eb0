package io.psmr.kvstore.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One scrape of a node's Prometheus endpoint ({@code GET /metrics}), as {@code cluster status} reads
 * it: each sample's value by series name, labels ignored (a node's meters have one series per name,
 * apart from the {@code node} and {@code role} tags every series carries).
 *
 * <p>Immutable; {@link #fetch} blocks its caller for at most the timeout.
 *
 * @param url     what was scraped
 * @param samples value by Prometheus series name (for example {@code psmr_store_entries})
 */
public record MetricsScrape(String url, Map<String, Double> samples) {

    /** Copies the samples. */
    public MetricsScrape {
        samples = Collections.unmodifiableMap(new LinkedHashMap<>(samples));
    }

    /**
     * Scrapes {@code http://host:port/metrics}.
     *
     * @throws IOException saying why there is no answer: refused, timed out after {@code timeout}, or an HTTP
     *                     status other than 200
     */
    public static MetricsScrape fetch(String host, int port, Duration timeout) throws IOException, InterruptedException {
        String url = "http://" + host + ":" + port + "/metrics";
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET().build();
        HttpResponse<String> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new IOException(url + " did not answer within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            throw new IOException(url + " did not answer: " + (e.getMessage() != null ? e.getMessage() : e.toString()), e);
        }
        if (response.statusCode() != 200) {
            throw new IOException(url + " answered HTTP " + response.statusCode());
        }
        return parse(url, response.body());
    }

    /** Reads Prometheus text format: {@code name{labels} value [timestamp]} lines; comments skipped. */
    public static MetricsScrape parse(String url, String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = brace >= 0 ? line.indexOf(' ', line.lastIndexOf('}')) : line.indexOf(' ');
            if (space < 0) {
                continue;
            }
            String name = line.substring(0, brace >= 0 && brace < space ? brace : space);
            String[] rest = line.substring(space + 1).trim().split(" ");
            try {
                samples.put(name, Double.parseDouble(rest[0]));
            } catch (NumberFormatException e) {
                // NaN and infinities parse; anything else is not a sample we show
            }
        }
        return new MetricsScrape(url, samples);
    }

    /** The sample named {@code name}, if the node reported it. */
    public Optional<Double> value(String name) {
        return Optional.ofNullable(samples.get(name));
    }
}
