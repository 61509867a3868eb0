package io.psmr.ordering.pbft;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The execution stage of COP (seed 000 §4.2): restores the one total order from the instances the pillars commit
 * independently, and drives the shared checkpoints. A pure state machine: no threads, clocks or I/O; one owner calls
 * it (the {@link ExecutionAgent}'s thread), and it is not thread-safe.
 *
 * <h2>Order</h2>
 * Pillars {@link #offer commit} PBFT sequence numbers {@code 1, 2, 3, …} in any order across pillars (sequence
 * {@code c} belongs to pillar {@code c mod Np}). The stage buffers them and {@link #poll releases} them one at a time in
 * sequence order, never skipping a number. It holds at most {@code window} sequence numbers: those in
 * {@code [next, next + window)}, where {@code next} is the lowest not yet released; an offer beyond that is refused
 * ({@code offer} returns false) and the pillar must hold it (it cannot happen while the pillars respect the watermark
 * window {@code L = window}, because their low watermark, a stable checkpoint, is at most {@code next - 1}).
 *
 * <h2>Empty instances and the delivered numbering</h2>
 * An empty instance fills its sequence number but is never delivered to the application. The values delivered are
 * numbered for the {@link io.psmr.ordering.AtomicBroadcast} SPI: the delivered instance of a delivered sequence
 * number {@code s} is {@code firstInstance + (the number of delivered sequence numbers below s)}, so learners see
 * {@code 1, 2, 3, …} without gaps. A sequence number is delivered unless it is empty or its request was released
 * before ({@link RequestDeduplicator}: retransmissions, or two leaders proposing one pending request). Both depend only
 * on committed data, so the numbering is the same on every correct replica. Duplicates still enter the digest.
 *
 * <h2>Waiting on a pillar</h2>
 * When the next sequence number is missing but a later one is buffered, order is blocked on pillar
 * {@code next mod Np}: {@link #awaitedSeq()} names the number, so the owner can ask that pillar to fill it with an
 * empty instance ({@code needEmpty}).
 *
 * <h2>Checkpoints</h2>
 * The state digest is a running SHA-256 hash chain over every released sequence number, empty or not:
 * {@code h(0) = 32 zero bytes}, {@code h(s) = SHA-256(h(s-1) ‖ s as 8 bytes big-endian ‖ kind byte (0 empty, 1 request)
 * ‖ length as 4 bytes ‖ canonical request bytes)}. When the released sequence number {@code s} is a multiple of the
 * checkpoint interval {@code K}, the release carries {@code h(s)} and the pillar in charge of checkpoint {@code s},
 * {@link #checkpointPillar(long) (s / K) mod Np} (round-robin over checkpoints, as in §4.2.2). When that pillar
 * reports the checkpoint stable, {@link #stable(long)} says whether it is new, and the owner tells every pillar.
 *
 * @param <R> the request type; its identity and canonical bytes come from the {@link RequestKeys} given to the constructor
 */
public final class ExecutionStage<R> {

    /** The digest before any sequence number: 32 zero bytes. */
    static final byte[] GENESIS = new byte[32];

    private static final Object EMPTY = new Object();

    /**
     * One released sequence number.
     *
     * @param seq              the PBFT sequence number
     * @param instance         the delivered instance, or 0 if not delivered (an empty instance or a duplicate)
     * @param request          the ordered request, or null for an empty instance
     * @param checkpointDigest the state digest after {@code seq} if {@code seq} is a multiple of K, else null
     * @param checkpointPillar the pillar in charge of that checkpoint, or -1 if none
     * @param <R>              the request type
     */
    public record Released<R>(long seq, long instance, R request, byte[] checkpointDigest, int checkpointPillar) {
        /** Whether this was an empty instance (nothing to deliver). */
        public boolean isEmpty() {
            return request == null;
        }

        /** Whether the request is delivered to the application (not empty, not a duplicate). */
        public boolean isDelivered() {
            return instance != 0;
        }

        /** Whether this release completes a checkpoint. */
        public boolean isCheckpoint() {
            return checkpointDigest != null;
        }
    }

    private final int pillars;
    private final int window;
    private final int checkpointInterval;
    private final RequestKeys<R> keys;
    private final RequestDeduplicator dedup;
    private final MessageDigest sha256;
    private final Object[] slots;
    private final boolean chainCheckpoints;

    private long next = 1;
    private long nextInstance;
    private int buffered;
    private byte[] digest = GENESIS.clone();
    private long lastStable;

    /**
     * @param pillars            Np, at least 1
     * @param window             the sequence numbers buffered at most (the watermark window L), at least 1
     * @param checkpointInterval K, at least 1
     * @param firstInstance      the delivered instance of the first non-empty sequence number (1 for a new cluster)
     * @param keys               a request's identity and canonical bytes
     * @param dedup              the exactly-once filter (owned by this stage from now on)
     */
    public ExecutionStage(int pillars, int window, int checkpointInterval, long firstInstance, RequestKeys<R> keys,
                          RequestDeduplicator dedup) {
        this(pillars, window, checkpointInterval, firstInstance, keys, dedup, true);
    }

    /**
     * A stage resumed from an application checkpoint ({@link ApplicationCheckpoints}): it releases from
     * {@code resume.nextSeq()} on, numbers delivered instances from {@code resume.nextInstance()}, continues the hash
     * chain and the duplicate table, and marks no chain checkpoints (the application's checkpoints are certified
     * instead).
     *
     * @param pillarsAdoptIt whether the pillars adopt the checkpoint at start (a certified one, fetched by state
     *                       transfer). If not (the replica's own checkpoint, whose certificate it does not keep), the
     *                       checkpoint counts as stable only once a pillar reports it stable again, so that
     *                       {@link #stable} takes it as new and the other pillars are told: until then they order from
     *                       sequence number 1, below everything this stage releases.
     */
    public static <R> ExecutionStage<R> resumed(int pillars, int window, PbftResumeState resume, RequestKeys<R> keys,
                                                boolean pillarsAdoptIt) {
        ExecutionStage<R> s = new ExecutionStage<>(pillars, window, 1, resume.nextInstance(), keys, resume.dedup(), false);
        s.next = resume.nextSeq();
        s.digest = resume.chainDigest();
        s.lastStable = pillarsAdoptIt ? resume.seq() : resume.seq() - 1;
        return s;
    }

    /**
     * As the public constructor; {@code chainCheckpoints} false marks no checkpoints in releases (the replica
     * certifies its application's checkpoints instead, {@link ApplicationCheckpoints}).
     */
    public ExecutionStage(int pillars, int window, int checkpointInterval, long firstInstance, RequestKeys<R> keys,
                          RequestDeduplicator dedup, boolean chainCheckpoints) {
        this.chainCheckpoints = chainCheckpoints;
        if (pillars < 1) {
            throw new IllegalArgumentException("pillars must be at least 1, got " + pillars);
        }
        if (window < 1) {
            throw new IllegalArgumentException("window must be at least 1, got " + window);
        }
        if (checkpointInterval < 1) {
            throw new IllegalArgumentException("checkpointInterval must be at least 1, got " + checkpointInterval);
        }
        if (firstInstance < 1) {
            throw new IllegalArgumentException("firstInstance must be at least 1, got " + firstInstance);
        }
        this.pillars = pillars;
        this.window = window;
        this.checkpointInterval = checkpointInterval;
        this.nextInstance = firstInstance;
        this.keys = Objects.requireNonNull(keys, "keys");
        this.dedup = Objects.requireNonNull(dedup, "dedup");
        this.slots = new Object[window];
        try {
            this.sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /**
     * A pillar committed {@code request} at {@code seq}.
     *
     * @return false, with nothing buffered, if {@code seq} lies beyond the window (the caller keeps it and retries
     *         after releases)
     * @throws IllegalArgumentException if {@code seq} was already released or committed (a pillar commits a number once)
     */
    public boolean offer(long seq, R request) {
        return put(seq, Objects.requireNonNull(request, "request"));
    }

    /** A pillar committed an empty instance at {@code seq}; as {@link #offer}. */
    public boolean offerEmpty(long seq) {
        return put(seq, EMPTY);
    }

    private boolean put(long seq, Object value) {
        if (seq < next) {
            throw new IllegalArgumentException("sequence number " + seq + " was committed twice: it was already released"
                    + " (next to release is " + next + ")");
        }
        if (seq >= next + window) {
            return false;
        }
        int slot = slot(seq);
        if (slots[slot] != null) {
            throw new IllegalArgumentException("sequence number " + seq + " was committed twice: it is already buffered");
        }
        slots[slot] = value;
        buffered++;
        return true;
    }

    /**
     * Releases the next sequence number if it has been committed.
     *
     * @return the release, or null if the next sequence number is not committed yet
     */
    @SuppressWarnings("unchecked")
    public Released<R> poll() {
        int slot = slot(next);
        Object value = slots[slot];
        if (value == null) {
            return null;
        }
        slots[slot] = null;
        buffered--;
        long seq = next++;
        R request = value == EMPTY ? null : (R) value;
        byte[] bytes = request == null ? null : keys.canonical(request);
        sha256.update(digest);
        sha256.update(ByteBuffer.allocate(13).putLong(seq).put((byte) (request == null ? 0 : 1))
                .putInt(bytes == null ? 0 : bytes.length).array());
        if (bytes != null) {
            sha256.update(bytes);
        }
        digest = sha256.digest();
        boolean deliver = request != null && dedup.firstRelease(keys.client(request), keys.number(request));
        long instance = deliver ? nextInstance++ : 0;
        boolean checkpoint = chainCheckpoints && seq % checkpointInterval == 0;
        return new Released<>(seq, instance, request, checkpoint ? digest.clone() : null,
                checkpoint ? checkpointPillar(seq) : -1);
    }

    /**
     * The sequence number order is blocked on: the next one, if it is missing while a later one is buffered.
     * Its pillar is {@code seq mod Np} ({@link #pillarOf(long)}).
     */
    public OptionalLong awaitedSeq() {
        return buffered > 0 && slots[slot(next)] == null ? OptionalLong.of(next) : OptionalLong.empty();
    }

    /**
     * A checkpoint became stable (reported by the pillar in charge of it).
     *
     * @return true if it is newer than every checkpoint reported stable before (the owner then tells every pillar)
     */
    public boolean stable(long seq) {
        if (seq <= lastStable) {
            return false;
        }
        lastStable = seq;
        return true;
    }

    /** The pillar in charge of the checkpoint at sequence number {@code seq}: {@code (seq / K) mod Np}. */
    public int checkpointPillar(long seq) {
        return (int) ((seq / checkpointInterval) % pillars);
    }

    /** The pillar that owns sequence number {@code seq}: {@code seq mod Np}. */
    public int pillarOf(long seq) {
        return (int) (seq % pillars);
    }

    /** The lowest sequence number not yet released. */
    public long nextSeq() {
        return next;
    }

    /** The delivered instance the next non-empty sequence number will get. */
    public long nextInstance() {
        return nextInstance;
    }

    /**
     * Where a stage resumed right now would continue: next sequence number and instance, the chain digest and the
     * duplicate table ({@link #resumed}).
     */
    public PbftResumeState resumeState() {
        java.io.ByteArrayOutputStream table = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(table)) {
            dedup.writeTo(out);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot happen: writing to memory", e);
        }
        return new PbftResumeState(next, nextInstance, digest, table.toByteArray());
    }

    /** Sequence numbers committed but not yet released. */
    public int buffered() {
        return buffered;
    }

    /** The highest checkpoint reported stable, or 0. */
    public long lastStable() {
        return lastStable;
    }

    /** The state digest after the last released sequence number ({@link #GENESIS} before any). */
    public byte[] digest() {
        return digest.clone();
    }

    /**
     * Whether {@code seq} was released already or is buffered now: false means its commit has not reached this stage
     * (it may still come, or lie beyond the window with the caller).
     */
    public boolean has(long seq) {
        return seq < next || (seq < next + window && slots[slot(seq)] != null);
    }

    private int slot(long seq) {
        return (int) (seq % window);
    }
}
