package io.psmr.kvstore.cluster.links;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Commands to a cluster's {@link LinkHost}, over its HTTP control port on loopback. Any thread; each call waits for
 * the host's answer, at most {@value #TIMEOUT_SECONDS} s.
 */
public final class LinkControl {

    static final int TIMEOUT_SECONDS = 5;

    /**
     * One link as the host reports it.
     *
     * @param from        the dialing process
     * @param to          the dialed process
     * @param condition   what it does to bytes
     * @param bytes       bytes relayed so far, both directions, all ports
     * @param connections connections open now
     */
    public record LinkState(String from, String to, LinkCondition condition, long bytes, int connections) {
    }

    /**
     * One link's condition, for {@link #conditions}.
     *
     * @param from      the dialing process
     * @param to        the dialed process
     * @param condition what the link does to bytes
     */
    public record LinkSetting(String from, String to, LinkCondition condition) {
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build();
    private final URI base;

    /** The control of the links {@code table} describes. */
    public LinkControl(LinkTable table) {
        this.base = URI.create("http://" + (table.host().indexOf(':') >= 0 ? "[" + table.host() + "]" : table.host())
                + ":" + table.controlPort() + "/links");
    }

    /**
     * Sets link {@code from → to}'s condition.
     *
     * @throws IllegalStateException with the host's message if it refuses (an unknown link), or naming the control
     *                               port if the host does not answer
     */
    public void condition(String from, String to, LinkCondition c) {
        String body;
        try {
            body = LinkTable.JSON.writeValueAsString(c);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        send(HttpRequest.newBuilder(URI.create(base + "/" + from + "/" + to))
                .PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)));
    }

    /**
     * Sets several links at once (one request; the host checks every link before it changes any). Errors as
     * {@link #condition}.
     */
    public void conditions(List<LinkSetting> settings) {
        String body;
        try {
            body = LinkTable.JSON.writeValueAsString(settings);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        send(HttpRequest.newBuilder(base).PUT(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)));
    }

    /** Closes every connection of link {@code from → to} with a TCP reset. Errors as {@link #condition}. */
    public void reset(String from, String to) {
        send(HttpRequest.newBuilder(URI.create(base + "/" + from + "/" + to + "/reset"))
                .POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** Every link's state. Errors as {@link #condition}. */
    public List<LinkState> states() {
        String body = send(HttpRequest.newBuilder(base).GET());
        try {
            return LinkTable.JSON.readValue(body, new TypeReference<List<LinkState>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the link host answered what is not a link list: " + e.getMessage(), e);
        }
    }

    private String send(HttpRequest.Builder request) {
        HttpResponse<String> r;
        try {
            r = http.send(request.timeout(Duration.ofSeconds(TIMEOUT_SECONDS)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("the link host at " + base + " does not answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while commanding the link host at " + base, e);
        }
        if (r.statusCode() != 200) {
            throw new IllegalStateException("the link host refused: " + r.body().strip());
        }
        return r.body();
    }
}
