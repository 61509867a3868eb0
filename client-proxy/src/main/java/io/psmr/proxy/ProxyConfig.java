package io.psmr.proxy;

import io.psmr.kvstore.KvLimits;
import io.psmr.scheduler.ConflictDetection;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link ClientProxy}. The conflict detection and the limits are part of the
 * cluster's replicated configuration: they must equal the replicas' ({@code ReplicaConfig}), or
 * the replicas refuse the proxy's batches (REJECTED) or answer TOO_LARGE. Everything else is a
 * local choice that changes only how commands are grouped and when they are sent, never what a
 * replica's state becomes.
 *
 * @param proxyId            identifies the proxy: replies are routed to it; unique among the proxies
 *                           of a cluster (default 1). Client ids are derived from it (see {@link ClientProxy#newClient()})
 * @param detection          the cluster's conflict detection (default Roaring BITMAP of 1,024,000 bits)
 * @param limits             the cluster's size limits (default {@link KvLimits#defaults()})
 * @param maxBatchCommands   most <em>client</em> commands in one batch (default 200); a proxy's
 *                           {@link BatchDecorator} may add up to its own bound on top
 * @param linger             how long the sender may hold the oldest queued command, once the window
 *                           has room, waiting for a full batch (default zero: send at once)
 * @param window             most batches proposed and not fully answered at once (default 1, the paper's behaviour)
 * @param retryTimeout       how long a proposed batch may go without all its replies before it is
 *                           proposed again (default 5 s)
 * @param maxRetries         how many times a batch is proposed again before its unanswered commands
 *                           fail with {@link ProxyTimeoutException} (default 10)
 * @param queueCapacity      most commands waiting to be batched (default 4,096)
 * @param overflow           what a submit does when the queue (or a client's outstanding bound) is full (default BLOCK)
 * @param maxOutstandingPerClient most requests one {@link KvClient} may have unanswered (default 16, the
 *                           replicas' default reply-cache window: a retry then always falls within it)
 * @param replyTrust         how many replies accept a result (default {@link ReplyTrust#FIRST_REPLY}, for
 *                           crash-fault orderings; {@link ReplyTrust#matching} for Byzantine ones); must follow
 *                           the ordering's fault model
 * @param lanes              which commands may share a batch (default {@link BatchLanes#ONE}: any)
 */
public record ProxyConfig(long proxyId, ConflictDetection detection, KvLimits limits, int maxBatchCommands,
                          Duration linger, int window, Duration retryTimeout, int maxRetries, int queueCapacity,
                          OverflowPolicy overflow, int maxOutstandingPerClient, ReplyTrust replyTrust, BatchLanes lanes) {

    /** The settings with one lane ({@link BatchLanes#ONE}). */
    public ProxyConfig(long proxyId, ConflictDetection detection, KvLimits limits, int maxBatchCommands,
                       Duration linger, int window, Duration retryTimeout, int maxRetries, int queueCapacity,
                       OverflowPolicy overflow, int maxOutstandingPerClient, ReplyTrust replyTrust) {
        this(proxyId, detection, limits, maxBatchCommands, linger, window, retryTimeout, maxRetries, queueCapacity,
                overflow, maxOutstandingPerClient, replyTrust, BatchLanes.ONE);
    }

    /** The settings with the default {@link ReplyTrust#FIRST_REPLY} (the constructor before reply trust existed). */
    public ProxyConfig(long proxyId, ConflictDetection detection, KvLimits limits, int maxBatchCommands,
                       Duration linger, int window, Duration retryTimeout, int maxRetries, int queueCapacity,
                       OverflowPolicy overflow, int maxOutstandingPerClient) {
        this(proxyId, detection, limits, maxBatchCommands, linger, window, retryTimeout, maxRetries, queueCapacity,
                overflow, maxOutstandingPerClient, ReplyTrust.FIRST_REPLY);
    }

    /** Validates the settings. */
    public ProxyConfig {
        Objects.requireNonNull(detection, "detection");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(linger, "linger");
        Objects.requireNonNull(retryTimeout, "retryTimeout");
        Objects.requireNonNull(overflow, "overflow");
        Objects.requireNonNull(replyTrust, "replyTrust");
        Objects.requireNonNull(lanes, "lanes");
        if (proxyId < 0 || proxyId > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("proxyId must be from 0 to " + Integer.MAX_VALUE + ", got " + proxyId);
        }
        if (maxBatchCommands < 1 || maxBatchCommands > limits.maxCommandsPerBatch()) {
            throw new IllegalArgumentException("maxBatchCommands must be from 1 to " + limits.maxCommandsPerBatch()
                    + " (the limit of commands per batch), got " + maxBatchCommands);
        }
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative, got " + linger);
        }
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        if (retryTimeout.isNegative() || retryTimeout.isZero()) {
            throw new IllegalArgumentException("retryTimeout must be positive, got " + retryTimeout);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be at least 0, got " + maxRetries);
        }
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be at least 1, got " + queueCapacity);
        }
        if (maxOutstandingPerClient < 1) {
            throw new IllegalArgumentException("maxOutstandingPerClient must be at least 1, got " + maxOutstandingPerClient);
        }
    }

    /** A builder with the defaults above. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.proxyId = proxyId;
        b.detection = detection;
        b.limits = limits;
        b.maxBatchCommands = maxBatchCommands;
        b.linger = linger;
        b.window = window;
        b.retryTimeout = retryTimeout;
        b.maxRetries = maxRetries;
        b.queueCapacity = queueCapacity;
        b.overflow = overflow;
        b.maxOutstandingPerClient = maxOutstandingPerClient;
        b.replyTrust = replyTrust;
        b.lanes = lanes;
        return b;
    }

    /** Builds a {@link ProxyConfig}; not thread-safe. */
    public static final class Builder {
        private long proxyId = 1;
        private ConflictDetection detection = ConflictDetection.bitmap(ConflictDetection.DEFAULT_BITMAP_BITS);
        private KvLimits limits = KvLimits.defaults();
        private int maxBatchCommands = 200;
        private Duration linger = Duration.ZERO;
        private int window = 1;
        private Duration retryTimeout = Duration.ofSeconds(5);
        private int maxRetries = 10;
        private int queueCapacity = 4096;
        private OverflowPolicy overflow = OverflowPolicy.BLOCK;
        private int maxOutstandingPerClient = 16;
        private ReplyTrust replyTrust = ReplyTrust.FIRST_REPLY;
        private BatchLanes lanes = BatchLanes.ONE;

        private Builder() {
        }

        /** See {@link ProxyConfig#proxyId()}. */
        public Builder proxyId(long id) {
            this.proxyId = id;
            return this;
        }

        /** See {@link ProxyConfig#detection()}. */
        public Builder detection(ConflictDetection d) {
            this.detection = d;
            return this;
        }

        /** See {@link ProxyConfig#limits()}. */
        public Builder limits(KvLimits l) {
            this.limits = l;
            return this;
        }

        /** See {@link ProxyConfig#maxBatchCommands()}. */
        public Builder maxBatchCommands(int n) {
            this.maxBatchCommands = n;
            return this;
        }

        /** See {@link ProxyConfig#linger()}. */
        public Builder linger(Duration d) {
            this.linger = d;
            return this;
        }

        /** See {@link ProxyConfig#window()}. */
        public Builder window(int n) {
            this.window = n;
            return this;
        }

        /** See {@link ProxyConfig#retryTimeout()}. */
        public Builder retryTimeout(Duration d) {
            this.retryTimeout = d;
            return this;
        }

        /** See {@link ProxyConfig#maxRetries()}. */
        public Builder maxRetries(int n) {
            this.maxRetries = n;
            return this;
        }

        /** See {@link ProxyConfig#queueCapacity()}. */
        public Builder queueCapacity(int n) {
            this.queueCapacity = n;
            return this;
        }

        /** See {@link ProxyConfig#overflow()}. */
        public Builder overflow(OverflowPolicy p) {
            this.overflow = p;
            return this;
        }

        /** See {@link ProxyConfig#maxOutstandingPerClient()}. */
        public Builder maxOutstandingPerClient(int n) {
            this.maxOutstandingPerClient = n;
            return this;
        }

        /** See {@link ProxyConfig#lanes()}. */
        public Builder lanes(BatchLanes l) {
            this.lanes = l;
            return this;
        }

        /** See {@link ProxyConfig#replyTrust()}. */
        public Builder replyTrust(ReplyTrust t) {
            this.replyTrust = t;
            return this;
        }

        /** The validated settings. */
        public ProxyConfig build() {
            return new ProxyConfig(proxyId, detection, limits, maxBatchCommands, linger, window, retryTimeout, maxRetries,
                    queueCapacity, overflow, maxOutstandingPerClient, replyTrust, lanes);
        }
    }
}
