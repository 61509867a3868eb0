package io.psmr.ordering.pbft;

import io.psmr.ordering.BroadcastLimits;
import io.psmr.ordering.RelayedBroadcast;
import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.LocalSequencer;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.RelayLog;
import io.psmr.ordering.pbft.PbftMessage.Request;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * {@link AtomicBroadcast} over one replica of a COP-parallelised PBFT cluster ({@link LoopbackPbft} in one JVM, or
 * {@link #create} over a replica's own {@link RequestIntake} in a process of its own): subscribers
 * receive that replica's total order, and proposals enter the cluster as signed PBFT client requests through it.
 *
 * <h2>Instances</h2>
 * The replica's {@link ExecutionStage} releases PBFT sequence numbers gap-free and numbers the delivered requests
 * 1, 2, 3, … (skipping EMPTY instances and duplicates, deterministically), so every replica's broadcast gives each
 * value the same instance.
 *
 * <h2>Proposals: which pillar, which client</h2>
 * Proposals go round-robin over the pillars (proposal {@code k} of this broadcast to pillar {@code k mod Np}), so the
 * load is symmetric (COP §4.1). Each (replica, pillar) is its own PBFT client, {@code client = replica·Np + pillar},
 * numbering its requests 1, 2, 3, … in the order it hands them to the pillar: the pillar core takes a client's
 * numbers to be ordered in increasing order, which holds when one lane feeds one pillar in order. A request is
 * signed with the client's HMAC for every replica and handed to this replica's pillar, which forwards it to the
 * others (as a PBFT client's request reaches the leader through any replica). At most
 * {@link BroadcastLimits#maxPendingProposals() maxPendingProposals} proposals are in flight per broadcast;
 * beyond that {@code propose} fails at once with {@link OverloadedException} and the value is not ordered. A
 * proposal's future completes with its instance when this replica delivers it (on its execution agent's thread:
 * dependent stages must not block). If this replica's pillar refuses the request when it is handed over, the future
 * fails at once (on the pillar's thread), naming the pillar's {@link Refusal}: {@link OverloadedException} when its
 * pending-request table is full ({@link PbftConfig#maxPendingRequests()}: a proposer may retry, as for any overload),
 * {@link IllegalArgumentException} for a request over {@link PbftConfig#maxRequestBytes()} (checked before handing
 * over too, so {@code propose} throws it first), {@link IllegalStateException} otherwise (a bad MAC or a number
 * already ordered: a bug in the keys or the numbering). A refused request is neither remembered nor forwarded, so it
 * is not ordered.
 *
 * <h2>Delivery and retention</h2>
 * Delivered values enter a {@link RelayLog} (an internal {@link LocalSequencer}, shared with Ring Paxos), which retains the last
 * {@link BroadcastLimits#retainedInstances() retainedInstances} values and serves subscriptions, each on its
 * own delivery thread. When the slowest subscription is a whole window behind, the replica's execution stage stops
 * releasing (its sink refuses), its pillars stop taking protocol input, and frames to them are dropped (PBFT
 * retransmits): a slow learner slows only its own replica, within the fault budget f.
 *
 * <h2>Close</h2>
 * As {@link AtomicBroadcast#close()}, except that a proposal already handed to the pillar fails with
 * {@link BroadcastClosedException} although it <b>may</b> still be ordered by the other replicas (the message says
 * so), as in {@code RingPaxosBroadcast}.
 *
 * <p>All public methods may be called from any thread.
 */
public final class PbftBroadcast extends RelayedBroadcast {

    private final int replica;
    private final int pillars;
    private final int replicas;
    private final RequestIntake network;
    private final Authenticator auth;
    private final int maxValueBytes;
    private final Semaphore permits;
    private final int maxPending;
    private final Map<RequestId, CompletableFuture<Long>> inFlight = new ConcurrentHashMap<>();
    private final Object[] laneLocks;
    private final long[] laneNumbers; // guarded by laneLocks[lane]
    private final Object rrLock = new Object();
    private long proposals; // guarded by rrLock

    private PbftBroadcast(int replica, PbftConfig config, RequestIntake network, Authenticator auth,
                          BroadcastLimits limits, long firstRequestNumber, long firstInstance) {
        super(new RelayLog(limits.relayLogSequencer()
                .maxValueBytes(Math.max(1, config.maxRequestBytes())).threadNamePrefix("psmr-pbft-" + replica + "-")
                .firstInstance(firstInstance)));
        this.replica = replica;
        this.pillars = config.pillars();
        this.replicas = config.replicaCount();
        this.network = network;
        this.auth = auth;
        this.maxValueBytes = config.maxRequestBytes();
        this.maxPending = limits.maxPendingProposals();
        this.permits = new Semaphore(maxPending);
        this.laneLocks = new Object[pillars];
        for (int p = 0; p < pillars; p++) {
            laneLocks[p] = new Object();
        }
        this.laneNumbers = new long[pillars];
        java.util.Arrays.fill(laneNumbers, firstRequestNumber - 1);
    }

    /**
     * The broadcast of replica {@code replica} in a process of its own: its requests go to {@code intake} (the
     * replica's {@code PbftNettyTransport}), whose refusals it hears from now on. Hand {@link #sink()} to the replica's
     * {@link PbftReplicaNode} as its delivery sink, start the node, then {@link #start()} this.
     *
     * @param replica             the replica, {@code 0..n-1}
     * @param config              the cluster
     * @param intake              the replica's request inboxes
     * @param auth                the replica's keys (it MACs its lanes' requests for every replica: the key file of
     *                            a replica holds its own clients' keys for all)
     * @param limits              values retained, proposals in flight (at most the node's dedupWindow) and
     *                            subscriptions
     * @param firstRequestNumber  the number of each lane's first request, at least 1: above every number an earlier
     *                            process of this replica used, since the others refuse numbers already ordered (a
     *                            restarted replica passes a larger one, see docs/pbft.md, processes)
     */
    public static PbftBroadcast create(int replica, PbftConfig config, RequestIntake intake, Authenticator auth,
                                       BroadcastLimits limits, long firstRequestNumber) {
        return create(replica, config, intake, auth, limits, firstRequestNumber, 1);
    }

    /**
     * As the other {@code create}, for a replica resumed from a checkpoint at instance {@code firstInstance - 1}: its
     * execution stage delivers from {@code firstInstance} on, and so does this broadcast.
     */
    public static PbftBroadcast create(int replica, PbftConfig config, RequestIntake intake, Authenticator auth,
                                       BroadcastLimits limits, long firstRequestNumber, long firstInstance) {
        java.util.Objects.requireNonNull(config, "config");
        java.util.Objects.requireNonNull(intake, "intake");
        java.util.Objects.requireNonNull(auth, "auth");
        if (replica < 0 || replica >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + replica + " is not one of 0.." + (config.replicaCount() - 1));
        }
        java.util.Objects.requireNonNull(limits, "limits");
        if (firstRequestNumber < 1) {
            throw new IllegalArgumentException("firstRequestNumber must be at least 1, got " + firstRequestNumber);
        }
        if (firstInstance < 1) {
            throw new IllegalArgumentException("firstInstance must be at least 1, got " + firstInstance);
        }
        PbftBroadcast b = new PbftBroadcast(replica, config, intake, auth, limits, firstRequestNumber, firstInstance);
        intake.onRefused(b::refused);
        return b;
    }

    /** Where the replica's {@link PbftReplicaNode} delivers its total order (on its execution agent's thread). */
    public DeliverySink sink() {
        return this::deliver;
    }

    /** The PBFT client id of pillar {@code pillar}'s lane of replica {@code replica}'s broadcast. */
    static long clientOf(int replica, int pillar, int pillars) {
        return (long) replica * pillars + pillar;
    }

    /** The replica whose order this broadcast delivers. */
    public int replica() {
        return replica;
    }

    @Override
    public void start() {
        log.start();
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("cannot propose a null value");
        }
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the maximum request size of "
                    + maxValueBytes + " bytes");
        }
        CompletableFuture<Long> refused = log.refusal();
        if (refused != null) {
            return refused;
        }
        if (!permits.tryAcquire()) {
            return CompletableFuture.failedFuture(new OverloadedException("replica " + replica + " already has "
                    + maxPending + " proposals in flight (maxPendingProposals); the value was not ordered"));
        }
        int lane;
        synchronized (rrLock) {
            lane = (int) (proposals++ % pillars);
        }
        CompletableFuture<Long> future = new CompletableFuture<>();
        // Number and hand over under the lane's lock, so the pillar sees the lane's numbers in increasing order.
        synchronized (laneLocks[lane]) {
            long number = ++laneNumbers[lane];
            Request request = Request.sign(clientOf(replica, lane, pillars), number, value, auth, replicas);
            inFlight.put(request.id(), future);
            if (!network.submit(lane, request)) {
                inFlight.remove(request.id());
                permits.release();
                return CompletableFuture.failedFuture(new OverloadedException("the request inbox of replica " + replica
                        + " pillar " + lane + " is full; the value was not ordered"));
            }
        }
        // close() fails what is in flight once it has marked the log closed; this catches a proposal it missed.
        if (log.isClosed() && inFlight.values().remove(future)) {
            permits.release();
            future.completeExceptionally(new BroadcastClosedException("broadcast closed while proposing; the value"
                    + " may still be ordered by the other replicas"));
        }
        return future;
    }

    /** The replica's total order arrives here, on its execution agent's thread. */
    boolean deliver(long instance, Request request) {
        long got = log.append(request.payload());
        if (got == RelayLog.FULL) {
            return false; // the slowest subscription is a window behind: offered again later
        }
        if (got == RelayLog.CLOSED) {
            return true; // closing: nobody delivers any more
        }
        if (got != instance) {
            throw new IllegalStateException("replica " + replica + ": the execution stage released instance " + instance
                    + " but the retained log numbered it " + got);
        }
        CompletableFuture<Long> f = inFlight.remove(request.id());
        if (f != null) {
            permits.release();
            f.complete(instance);
        }
        return true;
    }

    /**
     * This replica's pillar {@code pillar} refused {@code request}, one of this broadcast's, when it was handed over
     * (on that pillar's agent thread): the pillar neither remembers nor forwards it, so it is not ordered; its
     * proposal fails at once, naming {@code reason}.
     */
    void refused(Request request, int pillar, Refusal reason) {
        CompletableFuture<Long> f = inFlight.remove(request.id());
        if (f == null) {
            return;
        }
        permits.release();
        String what = "replica " + replica + " pillar " + pillar + " refused request " + request.number() + " of client "
                + request.client() + " (" + reason + "); the value was not ordered";
        f.completeExceptionally(reason == Refusal.OVERLOADED
                ? new OverloadedException(what + ": its pending-request table is full (maxPendingRequests)")
                : reason == Refusal.REQUEST_TOO_LARGE ? new IllegalArgumentException(what + ": larger than maxRequestBytes")
                : new IllegalStateException(what));
    }

    /** Proposals of this broadcast handed to the cluster and not yet delivered here. */
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public void close() {
        if (!log.close(() -> { })) {
            return;
        }
        List<CompletableFuture<Long>> open = new ArrayList<>();
        inFlight.values().removeIf(f -> {
            open.add(f);
            return true;
        });
        for (CompletableFuture<Long> f : open) {
            permits.release();
            f.completeExceptionally(new BroadcastClosedException("broadcast closed before the value was delivered at"
                    + " replica " + replica + "; it may still be ordered by the other replicas"));
        }
    }

    @Override
    public String toString() {
        return "PbftBroadcast[replica " + replica + ", last instance " + log.lastInstance() + ", " + inFlight.size()
                + " in flight]";
    }
}
