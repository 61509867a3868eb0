package io.psmr.proxy;

import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvResult;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * One client of the replicated key-value store, talking through a {@link ClientProxy}. Each client
 * has a {@link #clientId()} and numbers its requests 1, 2, 3, … ({@code requestSeq}); the pair
 * identifies a request for the replicas' exactly-once rule, and the proxy's retries reuse it.
 *
 * <p>The asynchronous methods return a future of the command's {@link KvResult}; the
 * {@link #blocking()} view waits for it. A result's status may be an error status (NOT_FOUND,
 * TOO_LARGE, REJECTED, …): that is an answer. A future fails only when there is no answer (a
 * {@link KvRequestException}: overload, timeout, proxy closed).
 *
 * <p><b>Bound.</b> At most {@link ProxyConfig#maxOutstandingPerClient()} requests of one client are
 * unanswered at once; beyond it a call blocks or fails with {@link ProxyOverloadedException}, as
 * {@link ProxyConfig#overflow()} says. Keeping the bound within the replicas' reply-cache window
 * guarantees that a retried request is always recognised as a duplicate.
 *
 * <p><b>Threads.</b> Thread-safe: any number of threads may share a client. Requests issued
 * concurrently get sequence numbers in the order they reach the client, and may be batched and
 * executed in another order; requests issued one after another (each after the previous completed)
 * execute in that order. Futures complete on the proxy's or a replica's thread (see
 * {@link ClientProxy}): do not block in dependent stages.
 */
public final class KvClient {

    private final ClientProxy proxy;
    private final long clientId;
    private final AtomicLong lastSeq = new AtomicLong();
    private final Semaphore permits;
    private final Blocking blocking = new Blocking();

    KvClient(ClientProxy proxy, long clientId) {
        this.proxy = proxy;
        this.clientId = clientId;
        this.permits = new Semaphore(proxy.config().maxOutstandingPerClient());
    }

    /** The client's id. */
    public long clientId() {
        return clientId;
    }

    /** The last request sequence number used (0 before the first request). */
    public long lastRequestSeq() {
        return lastSeq.get();
    }

    /** CREATE(key, value): OK, or EXISTS if present. */
    public CompletableFuture<KvResult> create(byte[] key, byte[] value) {
        return submit(s -> KvCommand.create(clientId, s, key, value));
    }

    /** READ(key): OK with the value, or NOT_FOUND. */
    public CompletableFuture<KvResult> read(byte[] key) {
        return submit(s -> KvCommand.read(clientId, s, key));
    }

    /** UPDATE(key, value): OK, or NOT_FOUND if absent. */
    public CompletableFuture<KvResult> update(byte[] key, byte[] value) {
        return submit(s -> KvCommand.update(clientId, s, key, value));
    }

    /** DELETE(key): OK, or NOT_FOUND if absent. */
    public CompletableFuture<KvResult> delete(byte[] key) {
        return submit(s -> KvCommand.delete(clientId, s, key));
    }

    /** MULTI_PUT(keys[i] = values[i], …): OK; the pairs are applied in order, atomically with respect to other commands. */
    public CompletableFuture<KvResult> multiPut(byte[][] keys, byte[][] values) {
        return submit(s -> KvCommand.multiPut(clientId, s, keys, values));
    }

    /** The blocking view of this client. */
    public Blocking blocking() {
        return blocking;
    }

    private CompletableFuture<KvResult> submit(LongFunction<KvCommand> make) {
        if (proxy.config().overflow() == OverflowPolicy.REJECT) {
            if (!permits.tryAcquire()) {
                return CompletableFuture.failedFuture(new ProxyOverloadedException("client " + clientId + " has "
                        + proxy.config().maxOutstandingPerClient() + " requests unanswered, its limit"));
            }
        } else {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return CompletableFuture.failedFuture(new KvRequestException("interrupted while client " + clientId
                        + " waited for one of its outstanding requests to complete", e));
            }
        }
        KvCommand command;
        try {
            command = make.apply(lastSeq.incrementAndGet());
        } catch (RuntimeException e) {
            permits.release();
            return CompletableFuture.failedFuture(e);
        }
        // The returned stage completes after the permit is back, so a caller that issues its next
        // request as soon as this one completes never waits for its own permit.
        return proxy.submit(command).whenComplete((r, e) -> permits.release());
    }

    @Override
    public String toString() {
        return "KvClient[" + clientId + ", last request " + lastSeq.get() + "]";
    }

    /**
     * Thin blocking wrappers: each waits for the result. They throw {@link KvRequestException} (or
     * a subclass) when the request got no answer, and {@link InterruptedException} if the waiting
     * thread is interrupted (the request may still execute).
     */
    public final class Blocking {

        private Blocking() {
        }

        /** See {@link KvClient#create}. */
        public KvResult create(byte[] key, byte[] value) throws InterruptedException {
            return await(KvClient.this.create(key, value));
        }

        /** See {@link KvClient#read}. */
        public KvResult read(byte[] key) throws InterruptedException {
            return await(KvClient.this.read(key));
        }

        /** See {@link KvClient#update}. */
        public KvResult update(byte[] key, byte[] value) throws InterruptedException {
            return await(KvClient.this.update(key, value));
        }

        /** See {@link KvClient#delete}. */
        public KvResult delete(byte[] key) throws InterruptedException {
            return await(KvClient.this.delete(key));
        }

        /** See {@link KvClient#multiPut}. */
        public KvResult multiPut(byte[][] keys, byte[][] values) throws InterruptedException {
            return await(KvClient.this.multiPut(keys, values));
        }
    }

    /** Waits for {@code f}; unwraps its failure. */
    static KvResult await(CompletableFuture<KvResult> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof KvRequestException k) {
                throw k;
            }
            if (c instanceof IllegalArgumentException i) {
                throw i;
            }
            throw new KvRequestException("request failed: " + c, c);
        }
    }
}
