package io.psmr.ordering.pbft;

import io.psmr.ordering.AtomicBroadcast;
import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.DeliveryListener;
import io.psmr.ordering.LocalSequencer;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.Subscription;
import io.psmr.ordering.pbft.PbftMessage.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * {@link AtomicBroadcast} over one replica of a COP-parallelised PBFT cluster ({@link LoopbackPbft}): subscribers
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
 * {@link LoopbackPbft.Builder#maxPendingProposals(int) maxPendingProposals} proposals are in flight per broadcast;
 * beyond that {@code propose} fails at once with {@link OverloadedException} and the value is not ordered. A
 * proposal's future completes with its instance when this replica delivers it (on its execution agent's thread:
 * dependent stages must not block).
 *
 * <h2>Delivery and retention</h2>
 * Delivered values enter an internal {@link LocalSequencer}, which retains the last
 * {@link LoopbackPbft.Builder#retainedInstances(int) retainedInstances} values and serves subscriptions, each on its
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
public final class PbftBroadcast implements AtomicBroadcast {

    private enum State { NEW, RUNNING, CLOSED }

    private final int replica;
    private final int pillars;
    private final int replicas;
    private final LoopbackNetwork network;
    private final Authenticator auth;
    private final int maxValueBytes;
    private final LocalSequencer log;
    private final Semaphore permits;
    private final int maxPending;
    private final Map<RequestId, CompletableFuture<Long>> inFlight = new ConcurrentHashMap<>();
    private final Object[] laneLocks;
    private final long[] laneNumbers; // guarded by laneLocks[lane]
    private final Object rrLock = new Object();
    private long proposals; // guarded by rrLock

    private final Object stateLock = new Object();
    private State state = State.NEW; // guarded by stateLock

    PbftBroadcast(int replica, PbftConfig config, LoopbackNetwork network, Authenticator auth, int retainedInstances,
                  int maxPendingProposals, int maxLearners) {
        this.replica = replica;
        this.pillars = config.pillars();
        this.replicas = config.replicaCount();
        this.network = network;
        this.auth = auth;
        this.maxValueBytes = config.maxRequestBytes();
        this.log = LocalSequencer.builder().retainedInstances(retainedInstances).maxValueBytes(Math.max(1, maxValueBytes))
                .proposeTimeout(Duration.ZERO).maxLearners(maxLearners).threadNamePrefix("psmr-pbft-" + replica + "-")
                .build();
        log.start();
        this.maxPending = maxPendingProposals;
        this.permits = new Semaphore(maxPendingProposals);
        this.laneLocks = new Object[pillars];
        for (int p = 0; p < pillars; p++) {
            laneLocks[p] = new Object();
        }
        this.laneNumbers = new long[pillars];
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
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                throw new IllegalStateException("broadcast is closed and cannot be started again");
            }
            state = State.RUNNING;
        }
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
        synchronized (stateLock) {
            if (state == State.NEW) {
                return CompletableFuture.failedFuture(new IllegalStateException("broadcast is not started: call start() before propose()"));
            }
            if (state == State.CLOSED) {
                return CompletableFuture.failedFuture(new BroadcastClosedException("broadcast is closed; the value was not ordered"));
            }
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
            if (!network.submit(replica, lane, request)) {
                inFlight.remove(request.id());
                permits.release();
                return CompletableFuture.failedFuture(new OverloadedException("the request inbox of replica " + replica
                        + " pillar " + lane + " is full; the value was not ordered"));
            }
        }
        synchronized (stateLock) {
            if (state == State.CLOSED && inFlight.values().remove(future)) {
                permits.release();
                future.completeExceptionally(new BroadcastClosedException("broadcast closed while proposing; the value"
                        + " may still be ordered by the other replicas"));
            }
        }
        return future;
    }

    /** The replica's total order arrives here, on its execution agent's thread. */
    boolean deliver(long instance, Request request) {
        long got;
        try {
            got = log.propose(request.payload()).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof OverloadedException) {
                return false; // the slowest subscription is a window behind: offered again later
            }
            if (e.getCause() instanceof BroadcastClosedException) {
                return true; // closing: nobody delivers any more
            }
            throw e;
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

    @Override
    public Subscription subscribe(long fromInstance, DeliveryListener listener) {
        return log.subscribe(fromInstance, listener);
    }

    @Override
    public long lastInstance() {
        return log.lastInstance();
    }

    @Override
    public long firstRetainedInstance() {
        return log.firstRetainedInstance();
    }

    /** Proposals of this broadcast handed to the cluster and not yet delivered here. */
    public int inFlight() {
        return inFlight.size();
    }

    @Override
    public void close() {
        synchronized (stateLock) {
            if (state == State.CLOSED) {
                return;
            }
            state = State.CLOSED;
        }
        log.close();
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
