package io.psmr.kvstore.checkpoint;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.kvstore.StateDigest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a replica's newest checkpoint to peers over HTTP (the JDK's {@link HttpServer}), or HTTPS with client
 * certificates under mutual TLS.
 *
 * <h2>Protocol</h2>
 * {@code GET /checkpoints/latest?min=N} ({@code min} optional, default 0):
 * <ul>
 *   <li>200 with headers {@value #INSTANCE_HEADER} (decimal) and {@value #DIGEST_HEADER} (16 hex
 *       digits, {@link StateDigest}) and a {@link CheckpointArchive zip with STORED entries} as body;</li>
 *   <li>404 with a text body when the newest complete checkpoint is older than {@code N}, or there is none;</li>
 *   <li>400 for a malformed {@code min}, 405 for another method, 503 when {@code maxTransfers} run already.</li>
 * </ul>
 * The server does not verify CRCs before sending (that would read every file twice); the fetcher
 * verifies everything.
 *
 * <h2>Threads</h2>
 * {@code maxTransfers} transfers at a time, on a pool of {@code maxTransfers + 2} threads (the two
 * spare answer 503 and 404 quickly) with a queue of {@value #QUEUE} connections; a connection
 * beyond that is dropped (logged) and its client times out. The files of a transfer are opened
 * before the first byte is sent, so retention deleting the checkpoint meanwhile does not cut the stream.
 */
public final class CheckpointServer implements AutoCloseable {

    /** The response header naming the checkpoint's instance. */
    public static final String INSTANCE_HEADER = "X-Psmr-Checkpoint-Instance";
    /** The response header with the checkpoint's store digest. */
    public static final String DIGEST_HEADER = "X-Psmr-Checkpoint-Digest";
    /** The path served. */
    public static final String PATH = "/checkpoints/latest";

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointServer.class);
    private static final int QUEUE = 64;

    private final CheckpointStore store;
    private final HttpServer server;
    private final ThreadPoolExecutor pool;
    private final Semaphore transfers;

    private CheckpointServer(CheckpointStore store, InetSocketAddress address, int maxTransfers, LinkSecurity security)
            throws IOException {
        this.store = store;
        this.transfers = new Semaphore(maxTransfers);
        AtomicInteger n = new AtomicInteger();
        this.pool = new ThreadPoolExecutor(maxTransfers + 2, maxTransfers + 2, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), r -> {
                    Thread t = new Thread(r, "psmr-checkpoint-server-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, (r, e) -> LOG.warn("checkpoint server: {} connections queued already; dropping one", QUEUE));
        if (security.isTls()) {
            HttpsServer https = HttpsServer.create(address, 16);
            SSLContext context = security.httpsContext(LinkSecurity.Admit.NODES);
            https.setHttpsConfigurator(new HttpsConfigurator(context) {
                @Override
                public void configure(HttpsParameters params) {
                    SSLParameters p = context.getDefaultSSLParameters();
                    p.setNeedClientAuth(true); // only the cluster's nodes fetch checkpoints
                    params.setSSLParameters(p);
                }
            });
            this.server = https;
        } else {
            this.server = HttpServer.create(address, 16);
        }
        server.setExecutor(pool);
        server.createContext(PATH, this::handle);
        server.start();
    }

    /**
     * Starts serving {@code store} on {@code address} (port 0 picks a free port: see {@link #address()}).
     *
     * @param maxTransfers how many transfers may run at once, at least 1
     */
    public static CheckpointServer start(CheckpointStore store, InetSocketAddress address, int maxTransfers) throws IOException {
        return start(store, address, maxTransfers, LinkSecurity.plain());
    }

    /**
     * Like {@link #start(CheckpointStore, InetSocketAddress, int)}; under TLS it serves HTTPS to the cluster's nodes
     * only (each presenting its node certificate).
     */
    public static CheckpointServer start(CheckpointStore store, InetSocketAddress address, int maxTransfers,
                                         LinkSecurity security) throws IOException {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(address, "address");
        if (maxTransfers < 1) {
            throw new IllegalArgumentException("maxTransfers must be at least 1, got " + maxTransfers);
        }
        return new CheckpointServer(store, address, maxTransfers, security);
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!"GET".equals(ex.getRequestMethod())) {
                text(ex, 405, "only GET is served here, not " + ex.getRequestMethod());
                return;
            }
            long min;
            try {
                min = minimum(ex.getRequestURI());
            } catch (IllegalArgumentException e) {
                text(ex, 400, e.getMessage());
                return;
            }
            if (!transfers.tryAcquire()) {
                text(ex, 503, "busy: " + (pool.getMaximumPoolSize() - 2) + " transfers are running");
                return;
            }
            try {
                serve(ex, min);
            } finally {
                transfers.release();
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("checkpoint server: a transfer to {} failed: {}", ex.getRemoteAddress(), e.toString());
        }
    }

    private void serve(HttpExchange ex, long min) throws IOException {
        for (int attempt = 0; ; attempt++) {
            OptionalLong latest = store.latest();
            if (latest.isEmpty() || latest.getAsLong() < min) {
                text(ex, 404, "no checkpoint at or after instance " + min
                        + (latest.isEmpty() ? "; there is none" : "; the newest is " + latest.getAsLong()));
                return;
            }
            long instance = latest.getAsLong();
            Path dir = store.directory(instance);
            List<FileChannel> files = new ArrayList<>();
            try {
                for (String name : CheckpointArchive.ENTRIES) {
                    files.add(FileChannel.open(dir.resolve(name), StandardOpenOption.READ));
                }
            } catch (NoSuchFileException e) {
                closeAll(files);
                if (attempt < 3) {
                    continue; // deleted by retention between latest() and open: a newer one exists
                }
                throw e;
            }
            try {
                FileChannel m = files.get(0);
                if (m.size() > CheckpointArchive.MAX_MANIFEST_BYTES) {
                    throw new IOException(dir + ": the manifest has " + m.size() + " bytes");
                }
                java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate((int) m.size());
                while (b.hasRemaining() && m.read(b, b.position()) > 0) {
                    // read it whole
                }
                CheckpointManifest manifest = CheckpointManifest.parse(b.array(), dir.toString());
                ex.getResponseHeaders().set("Content-Type", "application/zip");
                ex.getResponseHeaders().set(INSTANCE_HEADER, Long.toString(manifest.instance()));
                ex.getResponseHeaders().set(DIGEST_HEADER, StateDigest.hex(manifest.storeDigest()));
                ex.sendResponseHeaders(200, 0);
                try (OutputStream out = ex.getResponseBody()) {
                    CheckpointArchive.write(out, files);
                }
                return;
            } finally {
                closeAll(files);
            }
        }
    }

    private static long minimum(URI uri) {
        String q = uri.getRawQuery();
        if (q == null || q.isEmpty()) {
            return 0;
        }
        for (String part : q.split("&")) {
            if (part.startsWith("min=")) {
                try {
                    long v = Long.parseLong(part.substring(4));
                    if (v < 0) {
                        throw new NumberFormatException();
                    }
                    return v;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("min must be a non-negative instance, got '" + part.substring(4) + "'");
                }
            }
        }
        return 0;
    }

    private static void text(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = (body + "\n").getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    private static void closeAll(List<FileChannel> files) {
        for (FileChannel f : files) {
            try {
                f.close();
            } catch (IOException ignored) {
                // read-only handles: nothing to lose
            }
        }
    }

    /** Stops accepting, cuts transfers in flight, and stops the threads. */
    @Override
    public void close() {
        server.stop(0); // transfers in flight are cut; fetchers verify and retry elsewhere
        pool.shutdownNow();
    }

    @Override
    public String toString() {
        return "CheckpointServer[" + address() + ", " + store + "]";
    }
}
