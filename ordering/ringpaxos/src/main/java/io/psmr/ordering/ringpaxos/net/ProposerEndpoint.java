package io.psmr.ordering.ringpaxos.net;

import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OutcomeUnknownException;
import io.psmr.ordering.OverloadedException;
import io.psmr.ordering.protocol.Ready;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.Output;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.Proposer;
import io.psmr.ordering.ringpaxos.RingPaxosConfig;
import io.psmr.ordering.ringpaxos.StorageChange;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The proposing half shared by {@link RingPaxosBroadcast} and {@link RingPaxosProposerClient}: a {@link Proposer}
 * core in its own {@link RingPaxosNode}, a bounded queue of proposals in front of its window, and a future per
 * proposal.
 *
 * <p>{@link #submit} admits at most {@code maxPending} proposals queued or in flight (beyond that the future fails
 * at once with {@link OverloadedException}); the core takes queued values as its window allows and resends each
 * until it is decided. Who completes a future depends on the owner: with {@code completeOnAcknowledge} the
 * endpoint completes it with {@code 0} ({@link io.psmr.ordering.OrderingClient#UNKNOWN_INSTANCE}) when the core
 * reports the proposal decided; otherwise the owner does, through {@link #delivered}, when its learner delivers it.
 * {@link #close} fails queued proposals (not ordered) and those handed to the core (which may have been ordered),
 * each with a {@link BroadcastClosedException} that says which.
 *
 * <p>Thread-safe: {@code submit}, {@code delivered} and {@code close} may be called from any thread; the core is
 * touched only on the node's event-loop thread.
 */
final class ProposerEndpoint implements AutoCloseable {

    private record Pending(byte[] data, CompletableFuture<Long> future) {
    }

    private final Proposer proposer;
    private final RingPaxosNode node;
    private final int maxPending;
    private final boolean completeOnAcknowledge;
    /** Proposals not yet handed to the proposer core. */
    private final ConcurrentLinkedQueue<Pending> queued = new ConcurrentLinkedQueue<>();
    /** Proposals handed to the proposer core, by id, until they complete. */
    private final Map<ProposalId, CompletableFuture<Long>> inFlight = new ConcurrentHashMap<>();
    private final AtomicInteger pendingCount = new AtomicInteger();

    ProposerEndpoint(RingPaxosConfig config, int proposerId, long firstSeq, RingPaxosTransportConfig transport,
                     InetSocketAddress bind, Map<Integer, InetSocketAddress> peers, int maxPending,
                     boolean completeOnAcknowledge) {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPendingProposals must be at least 1, got " + maxPending);
        }
        this.maxPending = maxPending;
        this.completeOnAcknowledge = completeOnAcknowledge;
        this.proposer = new Proposer(config, proposerId, firstSeq);
        this.node = RingPaxosNode.start(proposer, config, transport, bind, peers, new RingPaxosNode.Listener() {
            @Override
            public void onReady(Ready<Message, StorageChange, Output> ready) {
                if (ProposerEndpoint.this.completeOnAcknowledge) {
                    for (ProposalId id : Output.acknowledged(ready.outputs())) {
                        delivered(id, 0);
                    }
                }
                pump();
            }
        });
    }

    /**
     * Checks a value before it is proposed.
     *
     * @throws IllegalArgumentException if it is null or longer than {@code maxValueBytes}
     */
    static void validate(byte[] value, int maxValueBytes) {
        if (value == null) {
            throw new IllegalArgumentException("cannot propose a null value");
        }
        if (value.length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + value.length + " bytes exceeds the maximum of "
                    + maxValueBytes + " bytes");
        }
    }

    /** The proposer's node. */
    RingPaxosNode node() {
        return node;
    }

    /**
     * Queues a value (the caller has validated it and may no longer modify it).
     *
     * @return its future, failed at once with {@link OverloadedException} beyond {@code maxPending}
     */
    CompletableFuture<Long> submit(byte[] value) {
        if (pendingCount.incrementAndGet() > maxPending) {
            pendingCount.decrementAndGet();
            return CompletableFuture.failedFuture(new OverloadedException("already " + maxPending
                    + " proposals queued or in flight (the maximum); the value was not ordered"));
        }
        CompletableFuture<Long> future = new CompletableFuture<>();
        future.whenComplete((r, e) -> pendingCount.decrementAndGet());
        queued.add(new Pending(value, future));
        try {
            node.execute(this::pump);
        } catch (RejectedExecutionException e) {
            failQueued();
        }
        return future;
    }

    /** Completes the future of proposal {@code id} (of this proposer) with {@code instance}, if it is waiting. */
    void delivered(ProposalId id, long instance) {
        CompletableFuture<Long> f = inFlight.remove(id);
        if (f != null) {
            f.complete(instance);
        }
    }

    /** Hands queued values to the proposer core while its window has room. Event-loop thread only. */
    private void pump() {
        Pending p;
        while (proposer.canPropose() && (p = queued.poll()) != null) {
            if (p.future.isDone()) {
                continue;
            }
            inFlight.put(proposer.propose(p.data), p.future);
        }
    }

    private void failQueued() {
        Pending p;
        while ((p = queued.poll()) != null) {
            p.future.completeExceptionally(new BroadcastClosedException("closed; the value was not ordered"));
        }
    }

    /** Stops the node, then fails every waiting proposal. Idempotent. */
    @Override
    public void close() {
        node.close();
        failQueued();
        for (CompletableFuture<Long> f : inFlight.values()) {
            f.completeExceptionally(new OutcomeUnknownException(
                    "closed before the proposal's outcome was known: it may or may not have been ordered"));
        }
        inFlight.clear();
    }
}
