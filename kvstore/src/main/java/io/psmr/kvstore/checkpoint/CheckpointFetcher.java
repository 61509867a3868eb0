package io.psmr.kvstore.checkpoint;

import io.psmr.kvstore.StateDigest;
import io.psmr.ordering.transport.LinkSecurity;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Fetches a checkpoint from a live peer's {@link CheckpointServer} into the local
 * {@link CheckpointStore}, verifying it before it becomes visible there.
 *
 * <p>Peers are tried in the given order; the first that has a checkpoint at or after the minimum
 * instance and sends it intact wins. A peer that has none is skipped; one that is unreachable,
 * slow, oversized or sends a damaged checkpoint is reported and the next is tried. Verification:
 * the zip's CRC-32 of each entry, each file's length and CRC-32C against the manifest, the manifest's
 * instance and digest against the response headers, and the store digest recomputed by opening the
 * received Chronicle Map file. The checkpoint is received into a temporary directory and renamed
 * only when everything matches.
 *
 * <p><b>Limits.</b> {@code connectTimeout} for the connection, {@code readTimeout} both for the
 * response headers and as the longest silence while the body streams (a watchdog closes a stalled
 * transfer), {@code maxBytes} for the whole body.
 *
 * <p><b>Threads.</b> {@link #fetch} blocks its caller for the transfer; calls may run concurrently
 * (each receives into its own temporary directory). Close the fetcher to stop its watchdog thread.
 */
public final class CheckpointFetcher implements AutoCloseable {

    private final CheckpointStore local;
    private final Duration readTimeout;
    private final long maxBytes;
    private final HttpClient client;
    private final String scheme;
    private final ScheduledExecutorService watchdog;

    /**
     * @param local          where fetched checkpoints go
     * @param connectTimeout the longest wait for a connection
     * @param readTimeout    the longest wait for the response headers, and the longest silence in the body
     * @param maxBytes       the largest body accepted
     */
    public CheckpointFetcher(CheckpointStore local, Duration connectTimeout, Duration readTimeout, long maxBytes) {
        this(local, connectTimeout, readTimeout, maxBytes, LinkSecurity.plain());
    }

    /**
     * Like {@link #CheckpointFetcher(CheckpointStore, Duration, Duration, long)}; under TLS it fetches over HTTPS,
     * presenting this node's certificate and accepting only the certificate of the node at the address it dials.
     */
    public CheckpointFetcher(CheckpointStore local, Duration connectTimeout, Duration readTimeout, long maxBytes,
                             LinkSecurity security) {
        this.local = Objects.requireNonNull(local, "local");
        this.readTimeout = Objects.requireNonNull(readTimeout, "readTimeout");
        if (connectTimeout.isNegative() || connectTimeout.isZero() || readTimeout.isNegative() || readTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive, got " + connectTimeout + " and " + readTimeout);
        }
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
        HttpClient.Builder http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout);
        if (security.isTls()) {
            http.sslContext(security.httpsContext(LinkSecurity.Admit.NODES));
        }
        this.client = http.build();
        this.scheme = security.isTls() ? "https" : "http";
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "psmr-checkpoint-fetch-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Fetches the newest checkpoint at or after {@code minInstance} from the first of {@code peers}
     * that has one and sends it intact; if the local store holds that instance already, returns it
     * without transferring it again.
     *
     * @return the checkpoint, complete and verified in the local store
     * @throws CheckpointFetchException naming every peer tried and what went wrong with each
     */
    public Checkpoint fetch(List<InetSocketAddress> peers, long minInstance) throws CheckpointFetchException {
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("no peers to fetch a checkpoint from");
        }
        List<String> reasons = new ArrayList<>();
        for (InetSocketAddress peer : peers) {
            String name = "peer " + peer.getHostString() + ":" + peer.getPort();
            try {
                Checkpoint c = fetchFrom(peer, name, minInstance);
                if (c != null) {
                    return c;
                }
                reasons.add(name + " has no checkpoint at or after instance " + minInstance);
            } catch (HttpTimeoutException e) {
                reasons.add(name + ": no answer within " + readTimeout.toMillis() + " ms (" + e.getMessage() + ")");
            } catch (IOException e) {
                reasons.add(e.getMessage() != null && e.getMessage().startsWith(name) ? e.getMessage()
                        : name + ": " + describe(e));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reasons.add(name + ": interrupted");
                break;
            }
        }
        throw new CheckpointFetchException(minInstance, reasons);
    }

    private static String describe(Throwable e) {
        StringBuilder b = new StringBuilder(e.getClass().getSimpleName());
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c.getMessage() != null) {
                b.append(c == e ? ": " : " (").append(c.getMessage()).append(c == e ? "" : ")");
            } else if (c != e) {
                b.append(" (").append(c.getClass().getSimpleName()).append(")");
            }
        }
        return b.toString();
    }

    /** @return the checkpoint, or null if the peer has none at or after {@code min} */
    private Checkpoint fetchFrom(InetSocketAddress peer, String name, long min) throws IOException, InterruptedException {
        URI uri = URI.create(scheme + "://" + peer.getHostString() + ":" + peer.getPort() + CheckpointServer.PATH + "?min=" + min);
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(readTimeout).GET().build();
        HttpResponse<InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = resp.body()) {
            if (resp.statusCode() == 404) {
                return null;
            }
            if (resp.statusCode() != 200) {
                byte[] text = body.readNBytes(512);
                throw new IOException(name + " answered HTTP " + resp.statusCode() + ": "
                        + new String(text, StandardCharsets.UTF_8).trim());
            }
            long instance = headerNumber(resp, CheckpointServer.INSTANCE_HEADER, name, 10);
            long declaredDigest = headerNumber(resp, CheckpointServer.DIGEST_HEADER, name, 16);
            if (instance < min) {
                throw new IOException(name + " sent checkpoint " + instance + ", older than the requested " + min);
            }
            long length = resp.headers().firstValueAsLong("Content-Length").orElse(-1);
            if (length > maxBytes) {
                throw new IOException(name + " offers checkpoint " + instance + " of " + length + " bytes; the limit is " + maxBytes);
            }
            if (local.list().contains(instance)) {
                return local.open(instance);
            }
            return receive(body, name, instance, declaredDigest);
        }
    }

    private Checkpoint receive(InputStream body, String name, long instance, long declaredDigest) throws IOException {
        String where = name + ", checkpoint " + instance;
        Guarded in = new Guarded(body, where);
        long period = Math.max(10, readTimeout.toMillis() / 4);
        ScheduledFuture<?> watch = watchdog.scheduleAtFixedRate(in::checkProgress, period, period, TimeUnit.MILLISECONDS);
        CheckpointStore.Staged staged = local.stage(instance);
        try {
            CheckpointManifest m = CheckpointArchive.read(in, where, manifest -> {
                if (manifest.instance() != instance) {
                    throw new IOException(where + ": the manifest names instance " + manifest.instance());
                }
                if (manifest.storeDigest() != declaredDigest) {
                    throw new IOException(where + ": the manifest's store digest " + StateDigest.hex(manifest.storeDigest())
                            + " differs from the declared " + StateDigest.hex(declaredDigest));
                }
            }, staged.storeFile(), staged.stateFile());
            StoreFiles.Summary s;
            try {
                s = StoreFiles.summarize(staged.storeFile());
            } catch (RuntimeException e) {
                throw new IOException(where + ": " + CheckpointStore.STORE_FILE + " is not a readable Chronicle Map: " + describe(e), e);
            }
            if (s.digest() != m.storeDigest() || s.entries() != m.entries()) {
                throw new IOException(where + ": the received store's digest is " + StateDigest.hex(s.digest())
                        + " (" + s.entries() + " entries) but the peer declared " + StateDigest.hex(m.storeDigest())
                        + " (" + m.entries() + " entries)");
            }
            return staged.commitChecked(m);
        } catch (IOException | RuntimeException e) {
            staged.abort();
            if (in.stalled) {
                throw new IOException(where + ": no data for " + readTimeout.toMillis() + " ms", e);
            }
            throw e;
        } finally {
            watch.cancel(false);
        }
    }

    private static long headerNumber(HttpResponse<?> resp, String header, String name, int radix) throws IOException {
        String v = resp.headers().firstValue(header).orElseThrow(() -> new IOException(name + " sent no " + header + " header"));
        try {
            return radix == 16 ? Long.parseUnsignedLong(v, 16) : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IOException(name + " sent a malformed " + header + " header: '" + v + "'");
        }
    }

    /** Stops the watchdog thread. */
    @Override
    public void close() {
        watchdog.shutdownNow();
    }

    /** Counts the body's bytes against {@code maxBytes}, and lets the watchdog close it when it stalls. */
    private final class Guarded extends FilterInputStream {
        private final String where;
        private final AtomicLong count = new AtomicLong();
        private long seenAtLastCheck = -1;
        private long silentSinceNanos = System.nanoTime();
        volatile boolean stalled;

        Guarded(InputStream in, String where) {
            super(in);
            this.where = where;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                add(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                add(n);
            }
            return n;
        }

        private void add(long n) throws IOException {
            if (count.addAndGet(n) > maxBytes) {
                throw new IOException(where + ": the body exceeds the limit of " + maxBytes + " bytes");
            }
        }

        /** On the watchdog thread: closes the stream after {@code readTimeout} without progress. */
        void checkProgress() {
            long c = count.get();
            long now = System.nanoTime();
            if (c != seenAtLastCheck) {
                seenAtLastCheck = c;
                silentSinceNanos = now;
            } else if (now - silentSinceNanos > readTimeout.toNanos() && !stalled) {
                stalled = true;
                try {
                    in.close(); // unblocks the reading thread with an IOException
                } catch (IOException ignored) {
                    // closing is all we can do
                }
            }
        }
    }
}
