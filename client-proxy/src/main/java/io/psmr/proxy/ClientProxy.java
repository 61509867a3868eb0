package io.psmr.proxy;

import io.psmr.kvstore.KvCodec;
import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvReply;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.kvstore.LocalReplyRouter;
import io.psmr.kvstore.ReplyChannel;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OutcomeUnknownException;
import io.psmr.ordering.OverloadedException;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batching client proxy of the core paper's prototype (§VI): it takes commands from many
 * {@link KvClient clients}, groups them into batches, attaches each batch's conflict summary
 * (built with the scheduler's {@link SummaryBuilder} under the cluster's detection settings),
 * proposes the batch through an {@link OrderingClient} (any {@link AtomicBroadcast}), and completes each command on the
 * <b>first</b> reply from any replica (every replica answers every command, with equal results), or, under
 * {@link ReplyTrust#matching MATCHING(f)} for Byzantine orderings, once {@code f + 1} distinct replicas' replies match.
 *
 * <h2>Reply trust</h2>
 * {@link ProxyConfig#replyTrust()} says when a reply is believed. {@link ReplyTrust#FIRST_REPLY} (the default) keeps no
 * per-replica state: the first reply for a command completes it and later ones are ignored. Under
 * {@link ReplyTrust#matching MATCHING(f)} every pending command holds a {@code ReplyQuorum} with one slot per
 * replica of the configured set: a replica's first reply for the command fills its slot, later ones
 * from it are counted as duplicates and ignored, and a reply from a replica outside the set is counted and ignored.
 * The command completes with a result as soon as {@code f + 1} slots hold {@linkplain ReplyTrust matching} results;
 * it fails with {@link ReplyMismatchException}, naming every distinct answer and its replicas, as soon as no answer
 * can reach {@code f + 1} any more (its votes plus the empty slots fall short). A whole-batch reply fills its
 * replica's slot of every command of the batch, under the same rule. Fewer than {@code f + 1} matching replies
 * within {@link ProxyConfig#retryTimeout()} lead to a retry, as lost replies do.
 *
 * <h2>Batching policy</h2>
 * One sender thread forms batches, as its {@code BatchingPolicy} decides. It sends a new batch when (a) fewer than {@link ProxyConfig#window()}
 * batches are outstanding (proposed, and not every command answered) and (b) at least one command
 * is queued. It then takes queued commands in arrival order, up to {@link ProxyConfig#maxBatchCommands()}
 * and as many as fit in {@link io.psmr.kvstore.KvLimits#maxBatchBytes()} (an upper bound of the
 * summary's size included), and proposes them at once. With a {@link ProxyConfig#linger() linger}
 * above zero it first waits, once (a) and (b) hold, until the batch is full or the oldest queued
 * command has waited {@code linger}. With the default (linger zero, window 1, the paper's
 * behaviour) a batch goes out as soon as the previous one is answered, and the commands that arrive
 * meanwhile form the next one: batches grow with the load by themselves.
 *
 * <p>With {@link ProxyConfig#lanes() lanes}, a batch takes only the commands of the oldest queued command's lane, in
 * arrival order; the others wait, in order, for a batch of their own lane ({@link BatchLanes}).
 *
 * <h2>Batch decorator</h2>
 * A proxy started with a {@link BatchDecorator} lets it append commands of its own to each new batch
 * as the batch is sealed, after the client commands and before the summary is built, so the summary
 * covers them (a benchmark uses this to make a fraction of batches write one hot key). The proxy
 * reserves the decorator's declared bound in every batch; the added commands' replies go to the
 * decorator, never to a client's future, and {@link ProxyStats#addedCommands()} counts them.
 *
 * <h2>Timeouts and retries</h2>
 * When a proposed batch still has unanswered commands {@link ProxyConfig#retryTimeout()} after it
 * was proposed, it is proposed again: the same bytes, the same batch id, the same client ids and
 * request sequences, so the replicas' exactly-once rule answers already executed commands from
 * their reply cache and never applies one twice. A proposal refused by the broadcast
 * ({@link OverloadedException}, never ordered) is proposed again after a pause of 2 ms doubling per
 * attempt (at most the retry timeout); one whose outcome the broadcast cannot tell
 * ({@link OutcomeUnknownException}: sent, then the connection was lost) after that pause the first time,
 * and on the retry timeout after that. After
 * {@link ProxyConfig#maxRetries()} retries the unanswered commands fail with
 * {@link ProxyTimeoutException}. Retries take precedence over new batches and do not take
 * another window slot (the batch already holds one).
 *
 * <h2>Bounds</h2>
 * At most {@link ProxyConfig#queueCapacity()} commands wait to be batched; at most
 * {@code window} batches (each at most {@code maxBatchBytes}) are outstanding; each client has at
 * most {@link ProxyConfig#maxOutstandingPerClient()} requests unanswered. A full bound blocks the
 * submitter or fails its request with {@link ProxyOverloadedException}, as {@link ProxyConfig#overflow()}
 * says. A command over a per-command limit, or too large to fit in any batch, is answered
 * {@link KvStatus#TOO_LARGE} at once, without being proposed (the replicas would answer the same).
 *
 * <h2>Determinism</h2>
 * Timing and threads decide only which commands share a batch and when it is sent. What a replica
 * does depends only on the delivered batches, so replicas stay identical however the proxy batches.
 *
 * <h2>Threads (concurrency contract)</h2>
 * <ul>
 *   <li>{@link #submit}, {@link #newClient}, {@link #stats} and {@link #close} may be called from any
 *       thread, concurrently. {@code submit} blocks only under {@link OverflowPolicy#BLOCK} while the
 *       queue is full.</li>
 *   <li>{@link #onReply} is called by replicas' worker and delivery threads, or by a
 *       {@link io.psmr.proxy.net.ReplyConnector}'s event-loop thread, concurrently; it never blocks.</li>
 *   <li>The proxy owns three daemon threads: the sender ({@code psmr-proxy-<id>-sender}), which builds,
 *       encodes and proposes batches (and may block in {@code propose} under the broadcast's flow
 *       control), a timer ({@code psmr-proxy-<id>-timer}) for retry timeouts, and
 *       {@code psmr-proxy-<id>-sessions}, which submits the requests that waited for a
 *       {@link KvClient}'s session to open.</li>
 *   <li>A command's future completes on the thread that delivers its deciding reply (the first, or under
 *       MATCHING the {@code (f+1)}th matching one, or the one that leaves no answer able to reach it: a replica's thread),
 *       on the timer thread (timeout), on the thread calling {@code close}, or at once on the submitting
 *       thread (TOO_LARGE, overload). Dependent stages must therefore be short and must not block:
 *       use the {@code *Async} variants with an executor for anything else. Blocking in
 *       {@link java.util.concurrent.Future#get()} from another thread is fine.</li>
 * </ul>
 */
public final class ClientProxy implements ReplyChannel, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientProxy.class);

    /** An upper bound of a summary's bytes besides its per-key part (mode, m, representation, two bitmap headers). */
    static final int SUMMARY_FIXED_BOUND = 64;
    /**
     * An upper bound of the bytes one key adds to a serialised Roaring bitmap: 2 for the value, and
     * at most 4 (key, cardinality) + 4 (offset) + 1 (run marker) per container, one container per key
     * at worst.
     */
    static final int SUMMARY_BYTES_PER_KEY = 12;

    private final ProxyConfig config;
    private final OrderingClient broadcast;
    private final int maxBatchBytes;
    private final long retryTimeoutNanos;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a command is queued, a window slot frees, a retry is due, or the proxy closes. */
    private final Condition work = lock.newCondition();
    /** Signalled when the queue has room or the proxy closes. */
    private final Condition notFull = lock.newCondition();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>(); // guarded by lock
    private final ArrayDeque<Outstanding> retries = new ArrayDeque<>(); // guarded by lock
    private int outstandingBatches; // guarded by lock
    private boolean closed; // guarded by lock

    private final ConcurrentHashMap<Long, Outstanding> outstanding = new ConcurrentHashMap<>();
    private final Thread sender;
    private final ScheduledThreadPoolExecutor timer;
    private final ThreadPoolExecutor sessionOpened;
    private final AtomicLong nextClient = new AtomicLong();
    private volatile AutoCloseable registration;

    private final BatchDecorator decorator;
    /** When a batch closes and what it takes; its byte budget leaves out every batch's fixed part. */
    private final BatchingPolicy batching;

    // Sender thread only.
    private final SummaryBuilder summaries;
    private final Sealing sealing;
    private long nextBatchId;
    private long newBatches;

    private final LongAdder batches = new LongAdder();
    private final LongAdder commands = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder timedOut = new LongAdder();
    private final LongAdder replies = new LongAdder();
    private final LongAdder staleReplies = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder tooLarge = new LongAdder();
    private final LongAdder added = new LongAdder();
    private final LongAdder duplicateReplies = new LongAdder();
    private final LongAdder mismatchingReplies = new LongAdder();
    private final LongAdder unknownReplicaReplies = new LongAdder();
    /** Batches finished (every command answered or failed), and the nanoseconds from proposal to finish summed. */
    private final LongAdder batchesFinished = new LongAdder();
    private final LongAdder proposalNanos = new LongAdder();

    /** The reply rule each command's {@link ReplyQuorum} follows. */
    private final ReplyTrust replyTrust;
    /** Which commands may share a batch. */
    private final BatchLanes lanes;

    private ClientProxy(ProxyConfig config, OrderingClient broadcast, BatchDecorator decorator) {
        this.config = config;
        this.broadcast = broadcast;
        this.replyTrust = config.replyTrust();
        this.lanes = config.lanes();
        this.decorator = decorator;
        this.maxBatchBytes = config.limits().maxBatchBytes();
        int addedCommands = decorator.maxAddedCommands();
        int addedBytes = decorator.maxAddedBytes();
        if (addedCommands < 0 || addedBytes < 0) {
            throw new IllegalArgumentException("batch decorator " + decorator + " declares " + addedCommands
                    + " added commands of " + addedBytes + " bytes; both must be 0 or more");
        }
        int maxCommands = config.limits().maxCommandsPerBatch();
        if ((long) config.maxBatchCommands() + addedCommands > maxCommands) {
            throw new IllegalArgumentException("maxBatchCommands " + config.maxBatchCommands() + " plus the "
                    + addedCommands + " command(s) batch decorator " + decorator + " may add exceed the limit of "
                    + maxCommands + " commands per batch");
        }
        // Bytes of every batch besides its client commands: overhead, summary bound, the decorator's reserve.
        long fixed = (long) KvCodec.BATCH_OVERHEAD_BYTES + SUMMARY_FIXED_BOUND + addedBytes;
        if (fixed >= maxBatchBytes) {
            throw new IllegalArgumentException("batch decorator " + decorator + " reserves " + addedBytes
                    + " bytes per batch, which leaves no room for a client command in a batch of at most "
                    + maxBatchBytes + " bytes");
        }
        this.batching = new BatchingPolicy(config.window(), config.maxBatchCommands(), maxBatchBytes - (int) fixed,
                config.linger().toNanos());
        this.sealing = new Sealing();
        this.retryTimeoutNanos = config.retryTimeout().toNanos();
        this.summaries = new SummaryBuilder(config.detection());
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "psmr-proxy-" + config.proxyId() + "-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        // Requests that waited for their client's session are submitted here, not on the thread that
        // delivered the session's reply (a replica's thread, which must never block). Its queue holds at
        // most one task per outstanding request of the proxy's clients (each holds a client's permit).
        // Closed, it runs a task at once: submit then fails fast with ProxyClosedException.
        this.sessionOpened = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "psmr-proxy-" + config.proxyId() + "-sessions");
            t.setDaemon(true);
            return t;
        }, (task, executor) -> task.run());
        this.sender = new Thread(this::runSender, "psmr-proxy-" + config.proxyId() + "-sender");
        sender.setDaemon(true);
    }

    /**
     * Starts a proxy whose replies the caller delivers to {@link #onReply}: typically a
     * {@link io.psmr.proxy.net.ReplyConnector} started with this proxy as its channel, when the replicas
     * run in other processes, or a test's wrapper around a {@link LocalReplyRouter} registration.
     */
    public static ClientProxy start(ProxyConfig config, OrderingClient broadcast) {
        return start(config, broadcast, BatchDecorator.NONE);
    }

    /**
     * Starts a proxy, as {@link #start(ProxyConfig, OrderingClient)}, whose batches {@code decorator}
     * may add commands to as each is sealed.
     *
     * @throws IllegalArgumentException if the decorator's bounds do not fit the cluster's limits
     *                                  beside {@link ProxyConfig#maxBatchCommands()}
     */
    public static ClientProxy start(ProxyConfig config, OrderingClient broadcast, BatchDecorator decorator) {
        ClientProxy p = new ClientProxy(Objects.requireNonNull(config, "config"), Objects.requireNonNull(broadcast, "broadcast"),
                Objects.requireNonNull(decorator, "decorator"));
        p.sender.start();
        return p;
    }

    /**
     * Starts a proxy and registers it with {@code router} under its proxy id; {@link #close()}
     * unregisters it.
     *
     * @throws IllegalStateException if another channel is registered under that id
     */
    public static ClientProxy start(ProxyConfig config, OrderingClient broadcast, LocalReplyRouter router) {
        return start(config, broadcast, router, BatchDecorator.NONE);
    }

    /**
     * Starts a proxy with a {@link BatchDecorator} and registers it with {@code router} under its
     * proxy id; {@link #close()} unregisters it.
     *
     * @throws IllegalArgumentException if the decorator's bounds do not fit the cluster's limits
     * @throws IllegalStateException    if another channel is registered under that id
     */
    public static ClientProxy start(ProxyConfig config, OrderingClient broadcast, LocalReplyRouter router,
                                    BatchDecorator decorator) {
        ClientProxy p = start(config, broadcast, decorator);
        try {
            p.registration = router.register(config.proxyId(), p);
        } catch (RuntimeException e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** The settings it runs with. */
    public ProxyConfig config() {
        return config;
    }

    /** The decorator its batches are sealed with ({@link BatchDecorator#NONE} if none). */
    public BatchDecorator decorator() {
        return decorator;
    }

    /**
     * The bytes {@code command} takes in a batch this proxy builds: its encoded size plus an upper
     * bound of what its keys add to the summary. A {@link BatchDecorator} states its
     * {@link BatchDecorator#maxAddedBytes()} in these units.
     */
    public static int bytesInBatch(KvCommand command) {
        return cost(Objects.requireNonNull(command, "command"));
    }

    /** Where {@link KvClient}s submit requests that waited for their session to open. */
    Executor sessionOpenedExecutor() {
        return sessionOpened;
    }

    /**
     * A new client with the next free client id: {@code (proxyId << 32) | n}, n = 1, 2, …, unique
     * among the clients of all proxies with distinct ids. (n = 0 is left to the proxy's {@link BatchDecorator}.)
     */
    public KvClient newClient() {
        long n = nextClient.incrementAndGet();
        if (n > 0xffff_ffffL) {
            throw new IllegalStateException("proxy " + config.proxyId() + " has used all 2^32 - 1 client ids");
        }
        return new KvClient(this, (config.proxyId() << 32) | n);
    }

    /**
     * A client with a caller-chosen id. The id must be unique in the cluster and must not be reused
     * by a client that starts its request sequence from 1 again within the replicas' reply-cache
     * reach, or its requests are answered as duplicates.
     */
    public KvClient newClient(long clientId) {
        return new KvClient(this, clientId);
    }

    /**
     * Queues one command for batching. Normally called through a {@link KvClient}, which numbers the
     * requests; a caller of this method is responsible for unique (clientId, requestSeq) pairs.
     *
     * @return the command's result, completed on the first reply (under {@link ReplyTrust#matching MATCHING(f)}: on
     *         {@code f + 1} matching replies, or failed with {@link ReplyMismatchException}); completed at once with TOO_LARGE if
     *         the command breaks a per-command limit or cannot fit in a batch; failed with
     *         {@link ProxyOverloadedException} (queue full under REJECT), {@link ProxyClosedException},
     *         {@link ProxyTimeoutException}, or, if interrupted while blocked on a full queue,
     *         {@link KvRequestException} caused by {@link InterruptedException} (the interrupt flag is
     *         set again)
     */
    public CompletableFuture<KvResult> submit(KvCommand command) {
        Objects.requireNonNull(command, "command");
        String problem = config.limits().checkCommand(command);
        int cost = cost(command);
        if (problem == null && !batching.fitsInABatch(cost)) {
            problem = command + " takes about " + cost + " bytes with its summary; it cannot fit in a batch of at most "
                    + maxBatchBytes + " bytes";
        }
        if (problem != null) {
            tooLarge.increment();
            return CompletableFuture.completedFuture(KvResult.of(KvStatus.TOO_LARGE, problem));
        }
        Pending p = new Pending(command, cost);
        p.lane = lanes.laneOf(command); // once per command, on the submitter's thread, not at every batch it waits through
        lock.lock();
        try {
            while (!closed && queue.size() >= config.queueCapacity()) {
                if (config.overflow() == OverflowPolicy.REJECT) {
                    rejected.increment();
                    return CompletableFuture.failedFuture(new ProxyOverloadedException("proxy " + config.proxyId()
                            + " has " + queue.size() + " commands queued, its queue capacity; " + command + " refused"));
                }
                notFull.await();
            }
            if (closed) {
                return CompletableFuture.failedFuture(new ProxyClosedException("proxy " + config.proxyId()
                        + " is closed; " + command + " was not proposed"));
            }
            p.enqueuedNanos = System.nanoTime();
            queue.addLast(p);
            work.signal();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(new KvRequestException("interrupted while waiting for room in the queue of proxy "
                    + config.proxyId() + "; " + command + " was not proposed", e));
        } finally {
            lock.unlock();
        }
        return p.future;
    }

    /**
     * A reply from a replica: completes the command it answers if it is the first reply for it (under
     * {@link ReplyTrust#matching MATCHING(f)}: if it makes {@code f + 1} distinct replicas' replies match, or
     * leaves no answer able to), and frees the batch's window slot once every command of the batch is
     * answered. Replies for batches no longer outstanding (later replicas, late retries) are counted and
     * ignored; under MATCHING, so are replies from replicas outside the configured set and repeated replies of
     * one replica. Thread-safe, non-blocking (under MATCHING it holds a command's monitor for a few
     * comparisons); runs the completed futures' dependent stages on the calling thread.
     */
    @Override
    public void onReply(KvReply reply) {
        replies.increment();
        // Counted once per reply, before the batch is looked up (a whole-batch reply is one unknown reply).
        if (replyTrust.isMatching() && replyTrust.slotOf(reply.replicaId()) < 0) {
            unknownReplicaReplies.increment();
            LOG.debug("proxy {}: reply from replica {}, outside the replica set of {}; ignored", config.proxyId(),
                    reply.replicaId(), replyTrust);
            return;
        }
        Outstanding o = reply.proxyId() == config.proxyId() ? outstanding.get(reply.batchId()) : null;
        if (o == null) {
            staleReplies.increment();
            return;
        }
        boolean matching = replyTrust.isMatching();
        if (reply.isWholeBatch()) {
            for (int i = 0; i < o.commands.length; i++) {
                if (matching) {
                    vote(o, i, reply);
                } else {
                    complete(o, i, reply.result(), null);
                }
            }
        } else if (reply.index() < o.commands.length) {
            if (matching) {
                vote(o, reply.index(), reply);
            } else {
                complete(o, reply.index(), reply.result(), null);
            }
        } else {
            staleReplies.increment();
            LOG.warn("reply {} names command {} of batch {}, which has {} commands; ignored", reply, reply.index(),
                    reply.batchId(), o.commands.length);
        }
    }

    /** A snapshot of the proxy's counters. */
    public ProxyStats stats() {
        int queued;
        int inFlight;
        lock.lock();
        try {
            queued = queue.size();
            inFlight = outstandingBatches;
        } finally {
            lock.unlock();
        }
        return new ProxyStats(batches.sum(), commands.sum(), retried.sum(), timedOut.sum(), replies.sum(),
                staleReplies.sum(), rejected.sum(), tooLarge.sum(), added.sum(), duplicateReplies.sum(),
                mismatchingReplies.sum(), unknownReplicaReplies.sum(), queued, inFlight, batchesFinished.sum(),
                proposalNanos.sum());
    }

    /**
     * Closes the proxy: stops the sender and the timer, fails every queued command (never proposed)
     * and every unanswered proposed command (outcome unknown) with {@link ProxyClosedException},
     * and unregisters from the router if {@link #start(ProxyConfig, OrderingClient, LocalReplyRouter)}
     * registered it. Idempotent. Does not close the broadcast.
     */
    @Override
    public void close() {
        List<Pending> dropped;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            dropped = new ArrayList<>(queue);
            queue.clear();
            retries.clear();
            work.signalAll();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() != sender) {
            sender.interrupt(); // it may be blocked in propose under the broadcast's flow control
            try {
                sender.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        timer.shutdownNow();
        sessionOpened.shutdown();
        for (Pending p : dropped) {
            p.future.completeExceptionally(new ProxyClosedException("proxy " + config.proxyId() + " closed; "
                    + p.command + " was not proposed"));
        }
        for (Outstanding o : outstanding.values()) {
            failRemaining(o, new ProxyClosedException("proxy " + config.proxyId() + " closed before batch " + o.batchId
                    + " was answered; the command may have executed"));
        }
        AutoCloseable r = registration;
        if (r != null) {
            try {
                r.close();
            } catch (Exception e) {
                LOG.warn("unregistering proxy {} failed", config.proxyId(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "ClientProxy[" + config.proxyId() + ", " + stats() + "]";
    }

    // ---------------------------------------------------------------- batching (sender thread)

    private void runSender() {
        List<Pending> drained = new ArrayList<>();
        try {
            while (true) {
                Outstanding retry = null;
                lock.lock();
                try {
                    while (true) {
                        if (closed) {
                            return;
                        }
                        if (!retries.isEmpty()) {
                            retry = retries.pollFirst();
                            retry.retryQueued = false;
                            break;
                        }
                        Pending oldest = queue.peekFirst();
                        long delay = batching.closeDelay(outstandingBatches, queue.size(),
                                oldest == null ? 0L : oldest.enqueuedNanos, System.nanoTime());
                        if (delay == BatchingPolicy.NOW) {
                            drain(drained);
                            outstandingBatches++;
                            notFull.signalAll();
                            break;
                        }
                        if (delay == BatchingPolicy.NOT_READY) {
                            work.await();
                        } else {
                            work.awaitNanos(delay);
                        }
                    }
                } finally {
                    lock.unlock();
                }
                if (retry != null) {
                    if (!retry.finished) {
                        retried.increment();
                        propose(retry);
                    }
                } else {
                    send(drained);
                    drained.clear();
                }
            }
        } catch (InterruptedException e) {
            // closing
        } catch (RuntimeException | Error e) {
            LOG.error("proxy {} sender failed; closing the proxy", config.proxyId(), e);
            // Commands taken from the queue but not yet in an outstanding batch are failed here;
            // close() fails the queued and outstanding ones. (A future completes only once.)
            for (Pending p : drained) {
                p.future.completeExceptionally(new ProxyClosedException("proxy " + config.proxyId()
                        + " failed while batching " + p.command + ": " + e, e));
            }
            close();
        }
    }

    /**
     * Moves the next batch's commands from the queue to {@code into}: the oldest command's lane's, in order (see
     * {@link BatchLanes}). Lock held; the queue is not empty.
     */
    private void drain(List<Pending> into) {
        long bytes = 0;
        if (lanes == BatchLanes.ONE) {
            for (Pending p = queue.peekFirst(); p != null && batching.takes(into.size(), bytes, p.cost); p = queue.peekFirst()) {
                bytes += p.cost;
                into.add(queue.pollFirst());
            }
            return;
        }
        long lane = queue.peekFirst().lane;
        for (java.util.Iterator<Pending> it = queue.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.lane != lane) {
                continue;
            }
            if (!batching.takes(into.size(), bytes, p.cost)) {
                return;
            }
            bytes += p.cost;
            into.add(p);
            it.remove();
        }
    }

    private static int cost(KvCommand c) {
        return KvCodec.encodedSize(c) + SUMMARY_BYTES_PER_KEY * c.keyCount();
    }

    private void send(List<Pending> drained) {
        sealing.open(newBatches++, drained.size());
        try {
            decorator.onSeal(sealing);
        } finally {
            sealing.sealed = true;
        }
        int extra = sealing.count;
        int n = drained.size() + extra;
        Pending[] cmds = drained.toArray(new Pending[n]);
        for (int i = 0; i < extra; i++) {
            KvCommand c = sealing.commands[i];
            sealing.commands[i] = null;
            cmds[drained.size() + i] = new Pending(c, cost(c), true);
        }
        added.add(extra);
        List<KvCommand> list = new ArrayList<>(n);
        for (Pending p : cmds) {
            list.add(p.command);
            summaries.add(p.command);
        }
        ConflictSummary summary = summaries.build();
        long batchId = ++nextBatchId;
        byte[] bytes = KvCodec.encodeBatch(config.proxyId(), batchId, list, summary);
        if (replyTrust.isMatching()) {
            // Under FIRST_REPLY the first reply completes the command: no votes to count, nothing to allocate.
            for (Pending p : cmds) {
                p.quorum = new ReplyQuorum(replyTrust);
            }
        }
        Outstanding o = new Outstanding(batchId, cmds, bytes);
        outstanding.put(batchId, o);
        batches.increment();
        commands.add(drained.size());
        if (bytes.length > maxBatchBytes) {
            // Cannot happen: the budget bounds the summary from above. Answer rather than propose.
            LOG.error("proxy {} built batch {} of {} bytes, over the limit of {}; this is a defect", config.proxyId(),
                    batchId, bytes.length, maxBatchBytes);
            for (int i = 0; i < cmds.length; i++) {
                complete(o, i, KvResult.of(KvStatus.TOO_LARGE, "batch of " + bytes.length + " bytes over the limit of "
                        + maxBatchBytes + " (proxy defect)"), null);
            }
            return;
        }
        propose(o);
    }

    /** Proposes (again) an outstanding batch and arms its timeout. Sender thread. */
    private void propose(Outstanding o) {
        int attempt = ++o.attempts;
        ScheduledFuture<?> previous = o.timeout;
        if (previous != null) {
            previous.cancel(false); // the earlier attempt's timer no longer applies
        }
        CompletableFuture<Long> ordered;
        try {
            ordered = broadcast.propose(o.bytes);
        } catch (IllegalArgumentException e) {
            failRemaining(o, null, KvResult.of(KvStatus.TOO_LARGE, "the broadcast refused batch " + o.batchId + " of "
                    + o.bytes.length + " bytes: " + e.getMessage()));
            return;
        } catch (RuntimeException e) {
            failRemaining(o, new ProxyClosedException("proposing batch " + o.batchId + " failed: " + e, e));
            return;
        }
        ordered.whenComplete((instance, error) -> {
            if (error != null) {
                onProposeFailed(o, error);
            }
        });
        if (!o.finished) {
            try {
                ScheduledFuture<?> t = timer.schedule(() -> onTimeout(o, attempt), retryTimeoutNanos, TimeUnit.NANOSECONDS);
                o.timeout = t;
                if (o.finished) {
                    t.cancel(false);
                }
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing: close() fails what is left
            }
        }
    }

    private void onProposeFailed(Outstanding o, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof OverloadedException) {
            // Overload counts against the same retry budget as timeouts, with a growing pause, so a
            // broadcast that refuses at once cannot keep the sender spinning forever.
            retrySoon(o, cause, "was refused as overloaded " + o.attempts + " times: " + cause.getMessage());
        } else if (cause instanceof OutcomeUnknownException) {
            // It may have been ordered: the replicas' exactly-once rule makes proposing it again safe. The first time
            // after a short pause, not a whole retry timeout: a crashed entry replica would leave its clients idle that
            // long. Later times wait for the retry timer armed with the attempt, so that a failover of some seconds,
            // where every attempt fails at once, does not use up the retries.
            boolean first = !o.outcomeUnknown;
            o.outcomeUnknown = true;
            if (first) {
                retrySoon(o, cause, "was proposed " + o.attempts + " times and its outcome stayed unknown ("
                        + cause.getMessage() + "); the command may have executed");
            }
        } else if (cause instanceof BroadcastClosedException) {
            failRemaining(o, new ProxyClosedException("the atomic broadcast closed; batch " + o.batchId
                    + (o.outcomeUnknown ? " may or may not have been ordered by an earlier attempt" : " was not ordered"), cause));
        } else {
            failRemaining(o, new ProxyClosedException("proposing batch " + o.batchId + " failed: " + cause, cause));
        }
    }

    /** Proposes {@code o} again after a pause that grows with its attempts, or fails it with {@code giveUp} past maxRetries. */
    private void retrySoon(Outstanding o, Throwable cause, String giveUp) {
        if (o.attempts > config.maxRetries()) {
            timedOut.increment();
            failRemaining(o, new ProxyTimeoutException("batch " + o.batchId + " of proxy " + config.proxyId() + " "
                    + giveUp));
            return;
        }
        long pauseNanos = Math.min(retryTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(1L << Math.min(o.attempts, 10)));
        LOG.debug("proxy {}: batch {} not known to be ordered ({}); proposing it again in {} us", config.proxyId(),
                o.batchId, cause.getMessage(), pauseNanos / 1000);
        try {
            timer.schedule(() -> queueRetry(o), pauseNanos, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: close() fails what is left
        }
    }

    private void onTimeout(Outstanding o, int attempt) {
        if (o.finished || o.attempts != attempt) {
            return;
        }
        if (attempt > config.maxRetries()) {
            timedOut.increment();
            failRemaining(o, new ProxyTimeoutException("batch " + o.batchId + " of proxy " + config.proxyId()
                    + " was proposed " + attempt + " times and not answered within " + config.retryTimeout()
                    + " each time; the command may have executed"));
            return;
        }
        queueRetry(o);
    }

    private void queueRetry(Outstanding o) {
        lock.lock();
        try {
            if (closed || o.finished || o.retryQueued) {
                return;
            }
            o.retryQueued = true;
            retries.addLast(o);
            work.signal();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- completion (any thread)

    /**
     * Offers {@code reply} to the {@link ReplyQuorum} of command {@code i} of {@code o}, and completes the command
     * when the quorum decides it, or fails it when no answer can win any more. A whole-batch reply is offered to
     * every command; the counters then count once per command.
     */
    private void vote(Outstanding o, int i, KvReply reply) {
        Pending p = o.commands[i];
        ReplyQuorum quorum = p.quorum;
        ReplyQuorum.Outcome outcome;
        String disagreement = null;
        synchronized (quorum) {
            int conflicting = quorum.conflicting();
            outcome = quorum.offer(reply.replicaId(), reply.result());
            conflicting = quorum.conflicting() - conflicting;
            if (conflicting > 0) {
                mismatchingReplies.add(conflicting);
            }
            if (outcome == ReplyQuorum.Outcome.DISAGREED) {
                disagreement = quorum.describeDisagreement("command " + i + " of batch " + o.batchId + " of proxy "
                        + config.proxyId() + " (" + p.command + ")");
            }
        }
        switch (outcome) {
            case DECIDED -> complete(o, i, reply.result(), null);
            case DISAGREED -> {
                LOG.warn("proxy {}: {}", config.proxyId(), disagreement);
                complete(o, i, null, new ReplyMismatchException(disagreement));
            }
            case DUPLICATE -> duplicateReplies.increment();
            // onReply refuses unknown replicas before it finds the batch, so this one cannot come.
            case UNKNOWN_REPLICA, PENDING, SETTLED -> { }
        }
    }

    private void failRemaining(Outstanding o, Throwable error) {
        failRemaining(o, error, null);
    }

    private void failRemaining(Outstanding o, Throwable error, KvResult result) {
        for (int i = 0; i < o.commands.length; i++) {
            complete(o, i, result, error);
        }
    }

    /** Completes command {@code i} of {@code o} with {@code result}, or {@code error} if non-null, unless already done. */
    private void complete(Outstanding o, int i, KvResult result, Throwable error) {
        if (!o.done.compareAndSet(i, 0, 1)) {
            return;
        }
        // The window slot is freed before the last future completes, so whoever sees that completion
        // also sees the batch gone from the window.
        if (o.remaining.decrementAndGet() == 0) {
            finish(o);
        }
        Pending p = o.commands[i];
        if (p.future == null) {
            toDecorator(p.command, result, error);
        } else if (error != null) {
            p.future.completeExceptionally(error);
        } else {
            p.future.complete(result);
        }
    }

    /** Hands an added command's outcome to the decorator; a decorator's exception must not break reply delivery. */
    private void toDecorator(KvCommand command, KvResult result, Throwable error) {
        try {
            if (error != null) {
                decorator.onFailure(command, error);
            } else {
                decorator.onResult(command, result);
            }
        } catch (RuntimeException e) {
            LOG.warn("proxy {}: batch decorator {} failed on the outcome of {}", config.proxyId(), decorator, command, e);
        }
    }

    private void finish(Outstanding o) {
        o.finished = true;
        // Once per batch (never per command): what a metrics endpoint reports as proposal latency.
        proposalNanos.add(System.nanoTime() - o.createdNanos);
        batchesFinished.increment();
        outstanding.remove(o.batchId, o);
        ScheduledFuture<?> t = o.timeout;
        if (t != null) {
            t.cancel(false);
        }
        lock.lock();
        try {
            outstandingBatches--;
            work.signal();
        } finally {
            lock.unlock();
        }
    }

    /** A command waiting for its result: a client's, or (no future) one the decorator added. */
    private static final class Pending {
        final KvCommand command;
        final int cost;
        final CompletableFuture<KvResult> future; // null for a decorator's command
        long enqueuedNanos;
        /** The command's {@link BatchLanes lane}; set before it is queued. */
        long lane;
        /** The replies' votes; set by the sender before the batch is published, then used under its own monitor. */
        ReplyQuorum quorum;

        Pending(KvCommand command, int cost) {
            this(command, cost, false);
        }

        Pending(KvCommand command, int cost, boolean addedByDecorator) {
            this.command = command;
            this.cost = cost;
            this.future = addedByDecorator ? null : new CompletableFuture<>();
        }
    }

    /** The batch being sealed, as the decorator sees it; one instance, reused by the sender thread. */
    private final class Sealing implements SealingBatch {
        final KvCommand[] commands = new KvCommand[decorator.maxAddedCommands()];
        long number;
        int clientCommands;
        int count;
        int bytesLeft;
        boolean sealed = true;

        void open(long batchNumber, int clients) {
            number = batchNumber;
            clientCommands = clients;
            count = 0;
            bytesLeft = decorator.maxAddedBytes();
            sealed = false;
        }

        @Override
        public long number() {
            return number;
        }

        @Override
        public long proxyId() {
            return config.proxyId();
        }

        @Override
        public int clientCommands() {
            return clientCommands;
        }

        @Override
        public int added() {
            return count;
        }

        @Override
        public void add(KvCommand command) {
            Objects.requireNonNull(command, "command");
            if (sealed) {
                throw new IllegalStateException("batch " + number + " of proxy " + config.proxyId()
                        + " is sealed; commands may be added only during onSeal");
            }
            if (count == commands.length) {
                throw new IllegalStateException("batch decorator " + decorator + " declared at most " + commands.length
                        + " added command(s) per batch; " + command + " is one more");
            }
            String problem = config.limits().checkCommand(command);
            if (problem != null) {
                throw new IllegalArgumentException("batch decorator " + decorator + " added " + command + ": " + problem);
            }
            int c = cost(command);
            if (c > bytesLeft) {
                throw new IllegalArgumentException("batch decorator " + decorator + " added " + command + " of " + c
                        + " bytes in a batch, over the " + bytesLeft + " left of the " + decorator.maxAddedBytes()
                        + " it reserved");
            }
            bytesLeft -= c;
            commands[count++] = command;
        }
    }

    /** A proposed batch with unanswered commands. */
    private static final class Outstanding {
        final long batchId;
        final Pending[] commands;
        final byte[] bytes;
        final AtomicIntegerArray done;
        final AtomicInteger remaining;
        /** When the batch was built, just before its first proposal. */
        final long createdNanos = System.nanoTime();
        volatile boolean finished;
        volatile ScheduledFuture<?> timeout;
        volatile int attempts; // written by the sender only
        volatile boolean outcomeUnknown; // an earlier attempt may have been ordered
        boolean retryQueued; // guarded by the proxy's lock

        Outstanding(long batchId, Pending[] commands, byte[] bytes) {
            this.batchId = batchId;
            this.commands = commands;
            this.bytes = bytes;
            this.done = new AtomicIntegerArray(commands.length);
            this.remaining = new AtomicInteger(commands.length);
        }
    }
}
