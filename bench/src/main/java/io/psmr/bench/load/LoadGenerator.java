package io.psmr.bench.load;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.KvRequestException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop load: {@link WorkloadSpec#clients()} threads, each a {@link KvClient} of one
 * {@link ClientProxy}, each with one request outstanding at a time (see {@link WorkloadSpec} for the
 * operation mix). Latency is recorded per client in an HdrHistogram (microseconds, 3 significant
 * digits, up to one hour) and merged at the end. Every operation is also handed to a
 * {@link HistorySink}. The conflict rate is not the clients' business: it is a property of
 * batches, which only the proxy forms; the run's {@link HotKeyDecorator} adds it as they are sealed.
 *
 * <p>With {@link RunControls} the run is watched: if no operation completes within the stall
 * timeout (or the drain after the duration outlasts it), the clients are interrupted, their
 * outstanding operations recorded as UNKNOWN, and {@link LoadStalledException} is thrown with what
 * completed. With {@link RunControls#initialReads()} the clients first read every key.
 *
 * <p>{@link #run} is called from one thread and returns when every client has finished.
 */
public final class LoadGenerator {

    /** The largest latency recorded, in microseconds (longer ones are recorded as this). */
    static final long MAX_LATENCY_MICROS = 3_600_000_000L;
    /** How often the calling thread looks at the clients' progress. */
    private static final long POLL_MILLIS = 100;
    /** How long the drain may last before the run says what it waits for. */
    private static final long DRAIN_NOTICE_NANOS = 1_000_000_000L;
    /** How long interrupted clients get to record their outstanding operation and end. */
    private static final long JOIN_MILLIS = 10_000;
    /** The error of an operation cut off by a stall. */
    static final String STALLED = "no answer: the load stalled and stopped waiting";

    private LoadGenerator() {
    }

    /** The key of index {@code k}: {@code "k<k>"}. */
    public static byte[] key(int k) {
        return ("k" + k).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs the clients against {@code proxy} and waits for them, unwatched (session 0, no initial
     * reads, no stall bound): {@link #run(ClientProxy, WorkloadSpec, HistorySink, RunControls)} with
     * {@link RunControls#NONE}.
     */
    public static LoadResult run(ClientProxy proxy, WorkloadSpec spec, HistorySink history) throws InterruptedException {
        return run(proxy, spec, history, RunControls.NONE);
    }

    /**
     * Runs the clients against {@code proxy} and waits for them, watched by {@code controls}.
     *
     * @throws LoadStalledException if no operation completed within the stall timeout, or the
     *                              drain after the duration took longer than it
     * @throws InterruptedException if interrupted while waiting (the clients are interrupted too)
     */
    public static LoadResult run(ClientProxy proxy, WorkloadSpec spec, HistorySink history, RunControls controls)
            throws InterruptedException {
        controls.proxyStarted().accept(proxy);
        int n = spec.clients();
        Progress progress = new Progress();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(n);
        long[] startAt = new long[1];
        List<Client> clients = new ArrayList<>(n);
        List<Thread> threads = new ArrayList<>(n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 1; i <= n; i++) {
            Client c = new Client(i, proxy.newClient(), spec, history, controls.session(), progress);
            clients.add(c);
            Thread t = new Thread(() -> {
                try {
                    if (controls.initialReads()) {
                        c.readInitialValues(n);
                    }
                    ready.countDown();
                    go.await();
                    c.run(startAt[0]);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    failure.compareAndSet(null, e);
                } finally {
                    finished.countDown();
                }
            }, "psmr-load-client-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        long phaseStart = System.nanoTime();
        progress.lastCompleteNs.set(phaseStart);
        threads.forEach(Thread::start);
        String stall;
        try {
            stall = watch(ready, null, progress, controls, "while reading every key's initial value");
            if (stall == null) {
                startAt[0] = System.nanoTime(); // published to the clients by the latch
                progress.lastCompleteNs.set(startAt[0]);
                go.countDown();
                stall = watch(finished, startAt[0] + spec.duration().toNanos(), progress, controls, "");
            }
        } catch (InterruptedException e) {
            threads.forEach(Thread::interrupt);
            throw e;
        }
        if (stall != null) {
            threads.forEach(Thread::interrupt); // each records its outstanding operation as UNKNOWN and ends
            go.countDown();
            for (Thread t : threads) {
                t.join(JOIN_MILLIS);
            }
            throw new LoadStalledException(stall, result(clients, startAt[0] == 0 ? phaseStart : startAt[0]));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a load client failed: " + failure.get(), failure.get());
        }
        return result(clients, startAt[0]);
    }

    /**
     * Waits for {@code latch}, watching progress; returns null when it opens, or the stall message.
     *
     * @param drainFrom when the duration ends (from then on the wait is the drain), or null
     */
    private static String watch(CountDownLatch latch, Long drainFrom, Progress progress, RunControls controls,
                                String phase) throws InterruptedException {
        Duration timeout = controls.stallTimeout();
        boolean noticed = false;
        while (!latch.await(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            int outstanding = progress.outstanding.get();
            if (drainFrom != null && now - drainFrom >= 0) {
                if (!noticed && outstanding > 0 && now - drainFrom > DRAIN_NOTICE_NANOS) {
                    noticed = true;
                    controls.notices().accept("the duration is over; waiting " + (timeout == null ? "without a bound"
                            : "up to " + text(timeout)) + " for " + outstanding + " outstanding operation"
                            + (outstanding == 1 ? "" : "s") + " to be answered");
                }
                if (timeout != null && now - drainFrom > timeout.toNanos()) {
                    return "stalled: the duration ended " + seconds(now - drainFrom) + " ago and " + outstanding
                            + " operation" + (outstanding == 1 ? " is" : "s are") + " still outstanding (stall timeout "
                            + text(timeout) + "); " + silent(controls);
                }
            }
            long quiet = now - progress.lastCompleteNs.get();
            if (timeout != null && quiet > timeout.toNanos()) {
                return "stalled" + (phase.isEmpty() ? "" : " " + phase) + ": no operation completed for " + seconds(quiet)
                        + " (stall timeout " + text(timeout) + "); " + outstanding + " operation"
                        + (outstanding == 1 ? "" : "s") + " outstanding; " + silent(controls);
            }
        }
        return null;
    }

    private static String silent(RunControls controls) {
        String s;
        try {
            s = controls.probe().silent();
        } catch (RuntimeException e) {
            s = "";
        }
        return s == null || s.isEmpty() ? "cannot tell which node is silent" : "cannot hear from: " + s;
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private static String text(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private static LoadResult result(List<Client> clients, long startNs) {
        Histogram all = new Histogram(MAX_LATENCY_MICROS, 3);
        Map<KvStatus, Long> byStatus = new EnumMap<>(KvStatus.class);
        long acknowledged = 0;
        long unanswered = 0;
        long initialReads = 0;
        long end = startNs;
        for (Client c : clients) {
            synchronized (c) {
                all.add(c.latency);
                acknowledged += c.acknowledged;
                unanswered += c.unanswered;
                initialReads += c.initialReads;
                for (KvStatus s : KvStatus.values()) {
                    if (c.byStatus[s.ordinal()] > 0) {
                        byStatus.merge(s, c.byStatus[s.ordinal()], Long::sum);
                    }
                }
                end = Math.max(end, c.lastCompleteNs);
            }
        }
        return new LoadResult(acknowledged, unanswered, byStatus, all, end - startNs, initialReads);
    }

    /** What the clients share with the watching thread. */
    private static final class Progress {
        final AtomicLong lastCompleteNs = new AtomicLong();
        final AtomicInteger outstanding = new AtomicInteger();
    }

    /**
     * One closed-loop client. Its counters are written under its own lock, so that the watching
     * thread can read them after a stall even if the thread did not end.
     */
    private static final class Client {
        final int index;
        final KvClient client;
        final WorkloadSpec spec;
        final HistorySink history;
        final long session;
        final Progress progress;
        final CommandMix mix;
        final Histogram latency = new Histogram(MAX_LATENCY_MICROS, 3);
        final long[] byStatus = new long[KvStatus.values().length];
        long acknowledged;
        long unanswered;
        long initialReads;
        long lastCompleteNs;
        long opCount;

        Client(int index, KvClient client, WorkloadSpec spec, HistorySink history, long session, Progress progress) {
            this.index = index;
            this.client = client;
            this.spec = spec;
            this.history = history;
            this.session = session;
            this.progress = progress;
            this.mix = new CommandMix(spec, new Random(spec.seed() * 0x9E3779B97F4A7C15L + index), index);
        }

        void run(long startNs) throws InterruptedException {
            long deadline = startNs + spec.duration().toNanos();
            synchronized (this) {
                lastCompleteNs = startNs;
            }
            while ((spec.opsPerClient() == 0 || opCount < spec.opsPerClient()) && System.nanoTime() - deadline < 0) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                one();
            }
        }

        /** Reads keys {@code k<i>} with {@code i % clients == index - 1}, one at a time, into the history only. */
        void readInitialValues(int clients) throws InterruptedException {
            for (int k = index - 1; k < spec.keys(); k += clients) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedException();
                }
                byte[][] keys = {key(k)};
                long invoke = System.nanoTime();
                progress.outstanding.incrementAndGet();
                Outcome o = await(client.read(keys[0]), invoke);
                synchronized (this) {
                    initialReads++;
                }
                o.record(this, KvOp.READ, keys, null, true);
                if (o.interrupted) {
                    throw new InterruptedException();
                }
            }
        }

        private void one() throws InterruptedException {
            opCount++;
            CommandMix.Command c = mix.next();
            KvOp op = c.op();
            byte[][] keys = new byte[c.keys().length][];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = key(c.keys()[i]);
            }
            byte[][] values = null;
            if (op == KvOp.MULTI_PUT) {
                values = new byte[keys.length][];
                for (int i = 0; i < keys.length; i++) {
                    values[i] = value(i);
                }
            } else if (op == KvOp.CREATE || op == KvOp.UPDATE) {
                values = new byte[][] {value(0)};
            }
            long invoke = System.nanoTime();
            progress.outstanding.incrementAndGet();
            CompletableFuture<KvResult> f = switch (op) {
                case CREATE -> client.create(keys[0], values[0]);
                case READ -> client.read(keys[0]);
                case UPDATE -> client.update(keys[0], values[0]);
                case DELETE -> client.delete(keys[0]);
                case MULTI_PUT -> client.multiPut(keys, values);
                case OPEN_SESSION -> throw new IllegalStateException("the load never sends OPEN_SESSION itself");
            };
            Outcome o = await(f, invoke);
            synchronized (this) {
                lastCompleteNs = o.complete;
                if (o.result != null) {
                    acknowledged++;
                    byStatus[o.result.status().ordinal()]++;
                    latency.recordValue(Math.min(MAX_LATENCY_MICROS, Math.max(0, (o.complete - invoke) / 1000)));
                } else {
                    unanswered++;
                }
            }
            o.record(this, op, keys, values, false);
            if (o.interrupted) {
                throw new InterruptedException();
            }
        }

        /** Waits for {@code f}; an interrupt (a stall) ends the wait with no answer. */
        private Outcome await(CompletableFuture<KvResult> f, long invoke) {
            KvResult r = null;
            String error = null;
            boolean interrupted = false;
            try {
                r = f.get();
            } catch (InterruptedException e) {
                error = STALLED;
                interrupted = true;
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                if (!(c instanceof KvRequestException)) {
                    progress.outstanding.decrementAndGet();
                    throw new IllegalStateException("request failed unexpectedly: " + c, c);
                }
                error = c.getMessage();
                interrupted = Thread.currentThread().isInterrupted();
            }
            long complete = System.nanoTime();
            progress.outstanding.decrementAndGet();
            if (r != null) {
                // Only an answer is progress: a cluster that lets every request time out is stalled too.
                progress.lastCompleteNs.accumulateAndGet(complete, Math::max);
            }
            return new Outcome(invoke, complete, r, error, interrupted);
        }

        /** One operation's end: its answer, or why there was none. */
        private record Outcome(long invoke, long complete, KvResult result, String error, boolean interrupted) {
            void record(Client c, KvOp op, byte[][] keys, byte[][] values, boolean initial) {
                KvResult r = result;
                c.history.record(new OpRecord(c.index, c.client.clientId(), op, keys, values, invoke, complete,
                        r == null ? null : r.status(), r == null || op != KvOp.READ ? null : r.value(), error,
                        r == null || r.detail().isEmpty() ? null : r.detail(), initial));
            }
        }

        /** {@code s<session>.c<client>.<op>[.<pair>]}, padded with dots to the value size (cut if longer). */
        private byte[] value(int pair) {
            byte[] tag = ("s" + session + ".c" + index + "." + opCount + (pair > 0 ? "." + pair : "")).getBytes(StandardCharsets.US_ASCII);
            byte[] v = new byte[spec.valueSize()];
            Arrays.fill(v, (byte) '.');
            System.arraycopy(tag, 0, v, 0, Math.min(tag.length, v.length));
            return v;
        }
    }
}
