package io.psmr.ordering.ratis;

import io.psmr.ordering.BroadcastClosedException;
import io.psmr.ordering.OrderingClient;
import io.psmr.ordering.OutcomeUnknownException;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ratis as psmr's {@link OrderingClient}: {@link #propose} submits the value through a
 * {@link RaftClient}'s async API; the leader appends it to the log, and once it is committed and
 * the leader's {@link PsmrStateMachine} has executed it, the client receives the state machine's
 * reply. That reply goes to the {@code replies} consumer given at construction (the kvstore decodes
 * its replies there and routes them to the proxy), then the future completes with the entry's log
 * index, its instance.
 *
 * <p><b>Failures.</b> A request Ratis refuses outright fails the future; the value may or may not
 * have been ordered (the Raft client retries across leader changes itself, and gives up only after
 * its retry policy), and the message says so: the layer above deduplicates its own retries.
 *
 * <p><b>Bounds.</b> At most {@code maxOutstanding} proposals are in flight; more fail at once with
 * an {@link io.psmr.ordering.OverloadedException}, never ordered, so the caller may retry.
 *
 * <p><b>Threads.</b> All methods are thread-safe. The consumer and the futures run on Ratis' client
 * threads: they must not block.
 */
public final class RatisOrderingClient implements OrderingClient {

    private static final Logger LOG = LoggerFactory.getLogger(RatisOrderingClient.class);

    private final RaftClient client;
    private final Consumer<byte[]> replies;
    private final int maxOutstanding;
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile boolean started;
    private volatile boolean closed;

    /**
     * @param client         the Raft client of the group; closed with this one
     * @param replies        receives each state machine reply, on a Ratis thread; must not block
     * @param maxOutstanding most proposals in flight, at least 1
     */
    public RatisOrderingClient(RaftClient client, Consumer<byte[]> replies, int maxOutstanding) {
        this.client = Objects.requireNonNull(client, "client");
        this.replies = Objects.requireNonNull(replies, "replies");
        if (maxOutstanding < 1) {
            throw new IllegalArgumentException("maxOutstanding must be at least 1, got " + maxOutstanding);
        }
        this.maxOutstanding = maxOutstanding;
    }

    @Override
    public void start() {
        if (closed) {
            throw new IllegalStateException("the Ratis ordering client is closed");
        }
        started = true;
    }

    @Override
    public CompletableFuture<Long> propose(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("value is null");
        }
        if (closed) {
            return CompletableFuture.failedFuture(new BroadcastClosedException("the Ratis ordering client is closed"));
        }
        if (!started) {
            return CompletableFuture.failedFuture(new IllegalStateException("the Ratis ordering client is not started"));
        }
        if (outstanding.incrementAndGet() > maxOutstanding) {
            outstanding.decrementAndGet();
            return CompletableFuture.failedFuture(new io.psmr.ordering.OverloadedException(
                    maxOutstanding + " proposals are already in flight to Ratis; this one was not sent"));
        }
        CompletableFuture<RaftClientReply> sent;
        try {
            sent = client.async().send(Message.valueOf(ByteString.copyFrom(value)));
        } catch (RuntimeException e) {
            outstanding.decrementAndGet();
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Long> ordered = new CompletableFuture<>();
        sent.whenComplete((reply, e) -> {
            outstanding.decrementAndGet();
            if (e != null) {
                ordered.completeExceptionally(new OutcomeUnknownException("Ratis request failed; the value may or may not have"
                        + " been ordered: " + e, e));
            } else if (!reply.isSuccess()) {
                ordered.completeExceptionally(new OutcomeUnknownException("Ratis refused the request; the value may or may not"
                        + " have been ordered: " + reply.getException(), reply.getException()));
            } else {
                try {
                    replies.accept(reply.getMessage().getContent().toByteArray());
                } catch (RuntimeException re) {
                    LOG.error("reply consumer threw for log entry {}", reply.getLogIndex(), re);
                }
                ordered.complete(reply.getLogIndex());
            }
        });
        return ordered;
    }

    /** Proposals sent and not yet answered. */
    public int outstanding() {
        return outstanding.get();
    }

    /** Closes the Raft client: proposals in flight fail. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            client.close();
        } catch (IOException e) {
            LOG.warn("closing the Raft client failed", e);
        }
    }
}
