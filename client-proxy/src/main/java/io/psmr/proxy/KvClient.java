package io.psmr.proxy;

import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One client of the replicated key-value store, talking through a {@link ClientProxy}. Each client
 * has a {@link #clientId()} and numbers its requests 1, 2, 3, … ({@code requestSeq}).
 *
 * <p><b>Sessions.</b> Before its first request the client opens a session: an OPEN_SESSION command,
 * ordered like any other, whose answer carries the session id the log assigned. Every request then
 * travels under that id, and the pair (session, requestSeq) identifies it for the replicas'
 * exactly-once rule; the proxy's retries reuse it. Requests made while the session is being opened
 * wait for it without blocking their caller, and are then submitted on the proxy's session thread, in
 * the order they were made; a request made after them is handed to the proxy after them.
 * A session that the replicas have let expire
 * answers {@link KvStatus#SESSION_EXPIRED}: that request did not execute then, and whether an earlier
 * copy of it executed is unknown; the client opens a new session for its next request.
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
    private final AtomicReference<CompletableFuture<Long>> session = new AtomicReference<>();
    private final Blocking blocking = new Blocking();
    /** Completes when the last request that waited for a session has been handed to the proxy. */
    private CompletableFuture<Void> waitingTail = CompletableFuture.completedFuture(null); // guarded by this

    KvClient(ClientProxy proxy, long clientId) {
        this.proxy = proxy;
        this.clientId = clientId;
        this.permits = new Semaphore(proxy.config().maxOutstandingPerClient());
    }

    /** The client's own id (it names the client in histories and in its OPEN_SESSION commands). */
    public long clientId() {
        return clientId;
    }

    /** The id of the client's open session, or 0 while it has none. */
    public long sessionId() {
        CompletableFuture<Long> s = session.get();
        return s != null && s.isDone() && !s.isCompletedExceptionally() ? s.join() : 0;
    }

    /** The last request sequence number used (0 before the first request). */
    public long lastRequestSeq() {
        return lastSeq.get();
    }

    /** CREATE(key, value): OK, or EXISTS if present. */
    public CompletableFuture<KvResult> create(byte[] key, byte[] value) {
        return submit((session, s) -> KvCommand.create(session, s, key, value));
    }

    /** READ(key): OK with the value, or NOT_FOUND. */
    public CompletableFuture<KvResult> read(byte[] key) {
        return submit((session, s) -> KvCommand.read(session, s, key));
    }

    /** UPDATE(key, value): OK, or NOT_FOUND if absent. */
    public CompletableFuture<KvResult> update(byte[] key, byte[] value) {
        return submit((session, s) -> KvCommand.update(session, s, key, value));
    }

    /** DELETE(key): OK, or NOT_FOUND if absent. */
    public CompletableFuture<KvResult> delete(byte[] key) {
        return submit((session, s) -> KvCommand.delete(session, s, key));
    }

    /** MULTI_PUT(keys[i] = values[i], …): OK; the pairs are applied in order, atomically with respect to other commands. */
    public CompletableFuture<KvResult> multiPut(byte[][] keys, byte[][] values) {
        return submit((session, s) -> KvCommand.multiPut(session, s, keys, values));
    }

    /** The blocking view of this client. */
    public Blocking blocking() {
        return blocking;
    }

    /** Makes a request from its session id and sequence number. */
    @FunctionalInterface
    private interface Request {
        KvCommand make(long session, long seq);
    }

    private CompletableFuture<KvResult> submit(Request make) {
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
        CompletableFuture<KvResult> result;
        try {
            CompletableFuture<Long> open = openSession();
            long seq;
            boolean direct;
            synchronized (this) {
                seq = lastSeq.incrementAndGet();
                direct = open.isDone() && !open.isCompletedExceptionally() && waitingTail.isDone();
                if (!direct) {
                    // Not on the thread that completes the session's opening (a replica's): submit may block.
                    // Each waiting request is submitted after the one before it, so they reach the proxy in order.
                    CompletableFuture<CompletableFuture<KvResult>> submitted = waitingTail.thenCompose(v -> open)
                            .thenApplyAsync(id -> submitUnder(open, make.make(id, seq)), proxy.sessionOpenedExecutor());
                    waitingTail = submitted.handle((f, e) -> null);
                    result = submitted.thenCompose(f -> f);
                } else {
                    result = null;
                }
            }
            if (direct) {
                result = submitUnder(open, make.make(open.join(), seq));
            }
        } catch (RuntimeException e) {
            permits.release();
            return CompletableFuture.failedFuture(e);
        }
        // The returned stage completes after the permit is back, so a caller that issues its next
        // request as soon as this one completes never waits for its own permit.
        return result.whenComplete((r, e) -> permits.release());
    }

    /** Submits {@code command}; a SESSION_EXPIRED answer makes the next request open a new session. */
    private CompletableFuture<KvResult> submitUnder(CompletableFuture<Long> open, KvCommand command) {
        return proxy.submit(command).whenComplete((r, e) -> {
            if (r != null && r.status() == KvStatus.SESSION_EXPIRED) {
                session.compareAndSet(open, null);
            }
        });
    }

    /** The open session, or the one being opened; starts opening one if there is none. */
    private CompletableFuture<Long> openSession() {
        CompletableFuture<Long> s = session.get();
        if (s != null) {
            return s;
        }
        CompletableFuture<Long> mine = new CompletableFuture<>();
        if (!session.compareAndSet(null, mine)) {
            return session.get();
        }
        proxy.submit(KvCommand.openSession(clientId, lastSeq.get() + 1)).whenComplete((r, e) -> {
            if (e == null && r.status() == KvStatus.OK) {
                mine.complete(r.sessionId());
                return;
            }
            session.compareAndSet(mine, null); // let the next request try again
            mine.completeExceptionally(e != null ? e : new KvRequestException("client " + clientId
                    + " could not open a session: " + r.status() + " " + r.detail()));
        });
        return mine;
    }

    @Override
    public String toString() {
        return "KvClient[" + clientId + ", session " + sessionId() + ", last request " + lastSeq.get() + "]";
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
