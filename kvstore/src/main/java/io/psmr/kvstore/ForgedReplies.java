package io.psmr.kvstore;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link ReplyRouter} that lies: every reply a replica sends goes out with a forged result, so that the replica
 * orders and executes correctly but tells its clients something else ({@code --byzantine replica-N=wrong-replies}).
 * <b>A testing and demonstration tool, never for production</b>: it shows that a client trusting f+1 matching replies
 * ({@code ReplyTrust.matching}) never accepts a result one liar made up.
 *
 * <p>The lie is a function of the true result only (deterministic, the same at every send): a value read comes back
 * with its last byte changed (an empty one as {@code "forged"}), OK without a value becomes NOT_FOUND, NOT_FOUND
 * becomes OK with the value {@code "forged"}, and every other status becomes OK.
 *
 * <p>Constructed dormant, it hands every reply on unchanged until {@link #wake()}: a replica that warmed up as a correct
 * one starts lying at one moment, as a fault benchmark needs.
 *
 * <p><b>Threads.</b> As {@link ReplyRouter}: called concurrently from the replica's threads; it only builds a new reply
 * and hands it on.
 */
public final class ForgedReplies implements ReplyRouter {

    /** The value a forged read answer carries when there is no true value to change. */
    static final byte[] FORGED = "forged".getBytes(StandardCharsets.US_ASCII);

    private final ReplyRouter delegate;
    private final LongAdder forged = new LongAdder();
    /** False while dormant; set once by {@link #wake()}. */
    private volatile boolean awake;

    /** Forges every reply before {@code delegate} sends it. */
    public ForgedReplies(ReplyRouter delegate) {
        this(delegate, false);
    }

    /** As the constructor above; {@code dormant}: replies pass unchanged until {@link #wake()}. */
    public ForgedReplies(ReplyRouter delegate, boolean dormant) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.awake = !dormant;
    }

    /** Ends the dormancy: every reply routed from now on is forged. Any thread; idempotent. */
    public void wake() {
        awake = true;
    }

    /** False while dormant. */
    public boolean awake() {
        return awake;
    }

    @Override
    public void route(KvReply reply) {
        if (!awake) {
            delegate.route(reply);
            return;
        }
        forged.increment();
        delegate.route(new KvReply(reply.replicaId(), reply.proxyId(), reply.batchId(), reply.index(), reply.instance(),
                forge(reply.result())));
    }

    /** Replies forged so far. */
    public long forged() {
        return forged.sum();
    }

    /** The lie told instead of {@code truth}; never equal to it. */
    public static KvResult forge(KvResult truth) {
        return switch (truth.status()) {
            case OK -> {
                if (truth.value() == null) {
                    yield KvResult.notFound();
                }
                if (truth.value().length == 0) {
                    yield KvResult.ok(FORGED);
                }
                byte[] v = Arrays.copyOf(truth.value(), truth.value().length);
                v[v.length - 1] ^= 0x5a;
                yield KvResult.ok(v);
            }
            case NOT_FOUND -> KvResult.ok(FORGED);
            default -> KvResult.ok();
        };
    }

    @Override
    public String toString() {
        return "ForgedReplies[" + forged() + " forged]";
    }
}
