package io.psmr.proxy.load;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.KvRequestException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop load: {@link WorkloadSpec#clients()} threads, each a {@link KvClient} of one
 * {@link ClientProxy}, each with one request outstanding at a time (see {@link WorkloadSpec} for the
 * operation mix). Latency is recorded per client in an HdrHistogram (microseconds, 3 significant
 * digits, up to one hour) and merged at the end. Every operation is also handed to a
 * {@link HistorySink}. The conflict rate is not the generator's business: it is a property of
 * batches, which only the proxy forms ({@link io.psmr.proxy.ProxyConfig#hotBatchFraction()}).
 *
 * <p>{@link #run} is called from one thread and returns when every client has finished.
 */
public final class LoadGenerator {

    /** The largest latency recorded, in microseconds (longer ones are recorded as this). */
    static final long MAX_LATENCY_MICROS = 3_600_000_000L;

    private LoadGenerator() {
    }

    /** The key of index {@code k}: {@code "k<k>"}. */
    public static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs the clients against {@code proxy} and waits for them.
     *
     * @throws InterruptedException if interrupted while waiting (the clients are interrupted too)
     */
    public static LoadResult run(ClientProxy proxy, WorkloadSpec spec, HistorySink history) throws InterruptedException {
        int n = spec.clients();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        long[] startAt = new long[1];
        List<Client> clients = new ArrayList<>(n);
        List<Thread> threads = new ArrayList<>(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 1; i <= n; i++) {
            Client c = new Client(i, proxy.newClient(), spec, history);
            clients.add(c);
            Thread t = new Thread(() -> {
                try {
                    ready.countDown();
                    go.await();
                    c.run(startAt[0]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                }
            }, "psmr-load-client-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        try {
            ready.await();
            startAt[0] = System.nanoTime(); // published to the clients by the latch
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            threads.forEach(Thread::interrupt);
            throw e;
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a load client failed: " + failure.get(), failure.get());
        }
        Histogram all = new Histogram(MAX_LATENCY_MICROS, 3);
        Map<KvStatus, Long> byStatus = new EnumMap<>(KvStatus.class);
        long acknowledged = 0;
        long unanswered = 0;
        long end = startAt[0];
        for (Client c : clients) {
            all.add(c.latency);
            acknowledged += c.acknowledged;
            unanswered += c.unanswered;
            for (KvStatus s : KvStatus.values()) {
                if (c.byStatus[s.ordinal()] > 0) {
                    byStatus.merge(s, c.byStatus[s.ordinal()], Long::sum);
                }
            }
            end = Math.max(end, c.lastCompleteNs);
        }
        return new LoadResult(acknowledged, unanswered, byStatus, all, end - startAt[0]);
    }

    /** One closed-loop client; its fields are read by {@link #run} after the thread is joined. */
    private static final class Client {
        final int index;
        final KvClient client;
        final WorkloadSpec spec;
        final HistorySink history;
        final Random random;
        final Histogram latency = new Histogram(MAX_LATENCY_MICROS, 3);
        final long[] byStatus = new long[KvStatus.values().length];
        long acknowledged;
        long unanswered;
        long lastCompleteNs;
        long opCount;

        Client(int index, KvClient client, WorkloadSpec spec, HistorySink history) {
            this.index = index;
            this.client = client;
            this.spec = spec;
            this.history = history;
            this.random = new Random(spec.seed() * 0x9E3779B97F4A7C15L + index);
        }

        void run(long startNs) throws InterruptedException {
            long deadline = startNs + spec.duration().toNanos();
            lastCompleteNs = startNs;
            while ((spec.opsPerClient() == 0 || opCount < spec.opsPerClient()) && System.nanoTime() - deadline < 0) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                one();
            }
        }

        private void one() throws InterruptedException {
            opCount++;
            double u = random.nextDouble();
            KvOp op;
            byte[][] keys;
            byte[][] values = null;
            if (u < spec.multiPutFraction()) {
                op = KvOp.MULTI_PUT;
                keys = distinctKeys(spec.multiPutKeys());
                values = new byte[keys.length][];
                for (int i = 0; i < keys.length; i++) {
                    values[i] = value(i);
                }
            } else {
                keys = new byte[][] {key(random.nextInt(spec.keys()))};
                if (u < spec.multiPutFraction() + spec.readFraction()) {
                    op = KvOp.READ;
                } else {
                    int w = random.nextInt(100);
                    op = w < 35 ? KvOp.CREATE : w < 80 ? KvOp.UPDATE : KvOp.DELETE;
                    if (op != KvOp.DELETE) {
                        values = new byte[][] {value(0)};
                    }
                }
            }
            long invoke = System.nanoTime();
            CompletableFuture<KvResult> f = switch (op) {
                case CREATE -> client.create(keys[0], values[0]);
                case READ -> client.read(keys[0]);
                case UPDATE -> client.update(keys[0], values[0]);
                case DELETE -> client.delete(keys[0]);
                case MULTI_PUT -> client.multiPut(keys, values);
                case OPEN_SESSION -> throw new IllegalStateException("the load never sends OPEN_SESSION itself");
            };
            KvResult r = null;
            String error = null;
            try {
                r = f.get();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (!(c instanceof KvRequestException)) {
                    throw new IllegalStateException("request failed unexpectedly: " + c, c);
                }
                error = c.getMessage();
            }
            long complete = System.nanoTime();
            lastCompleteNs = complete;
            if (r != null) {
                acknowledged++;
                byStatus[r.status().ordinal()]++;
                latency.recordValue(Math.min(MAX_LATENCY_MICROS, Math.max(0, (complete - invoke) / 1000)));
            } else {
                unanswered++;
            }
            history.record(new OpRecord(index, client.clientId(), op, keys, values, invoke, complete,
                    r == null ? null : r.status(), r == null || op != KvOp.READ ? null : r.value(), error));
        }

        private byte[][] distinctKeys(int count) {
            int[] chosen = new int[count];
            byte[][] keys = new byte[count][];
            for (int i = 0; i < count; i++) {
                int k;
                do {
                    k = random.nextInt(spec.keys());
                } while (contains(chosen, i, k));
                chosen[i] = k;
                keys[i] = key(k);
            }
            return keys;
        }

        private static boolean contains(int[] a, int n, int k) {
            for (int i = 0; i < n; i++) {
                if (a[i] == k) {
                    return true;
                }
            }
            return false;
        }

        private byte[] value(int pair) {
            byte[] tag = ("c" + index + "." + opCount + (pair > 0 ? "." + pair : "")).getBytes(StandardCharsets.US_ASCII);
            byte[] v = new byte[spec.valueSize()];
            Arrays.fill(v, (byte) '.');
            System.arraycopy(tag, 0, v, 0, Math.min(tag.length, v.length));
            return v;
        }
    }
}
