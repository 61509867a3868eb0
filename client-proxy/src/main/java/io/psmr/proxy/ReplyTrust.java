package io.psmr.proxy;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;

/**
 * How many replies a {@link ClientProxy} needs before it accepts a command's result; it must follow
 * the fault model of the cluster's ordering.
 *
 * <ul>
 *   <li>{@link #FIRST_REPLY} (the default), for crash-fault orderings (sequencer, Ring Paxos, Ratis):
 *       the first reply from any replica completes the command. Correct replicas compute equal
 *       results from the same delivered data, so the first is as good as any.</li>
 *   <li>{@link #matching(int, Collection) MATCHING(f)}, for Byzantine-fault orderings (PBFT): the
 *       proxy accepts a result only once {@code f + 1} replies from <em>distinct</em> replicas of a
 *       configured replica set <em>match</em>. At most {@code f} replicas are faulty, so at least one
 *       of any {@code f + 1} matching replies comes from a correct replica: up to {@code f} Byzantine
 *       replicas can never make the client accept a result no correct replica produced.</li>
 * </ul>
 *
 * <p><b>Matching.</b> Two replies match when they answer the same command (same proxy id, batch id and
 * command index; a whole-batch reply answers every index of its batch) and their {@link io.psmr.kvstore.KvResult}s
 * are {@code equal}: the same status, the same value bytes (both absent, or equal arrays) and the same
 * detail string. The reply's instance is not compared: a batch proposed again is delivered at another
 * instance and answered from the replicas' reply cache with the same result.
 *
 * <p>Immutable and thread-safe.
 */
public final class ReplyTrust {

    /** Which rule. */
    public enum Mode {
        /** The first reply wins. */
        FIRST_REPLY,
        /** {@code f + 1} matching replies from distinct replicas win. */
        MATCHING
    }

    /** The first reply from any replica completes a command (crash faults). */
    public static final ReplyTrust FIRST_REPLY = new ReplyTrust(Mode.FIRST_REPLY, 0, new int[0]);

    private final Mode mode;
    private final int f;
    private final int[] replicaIds; // sorted, distinct

    private ReplyTrust(Mode mode, int f, int[] replicaIds) {
        this.mode = mode;
        this.f = f;
        this.replicaIds = replicaIds;
    }

    /**
     * Accept a result only from {@code f + 1} matching replies of distinct replicas among {@code replicaIds}.
     *
     * @param f          how many replicas may be Byzantine; at least 1
     * @param replicaIds every replica's id (the ids replies carry); distinct, at least {@code 2f + 1} of them, so
     *                   that {@code f + 1} correct replicas remain when {@code f} are faulty (a Byzantine ordering
     *                   needs {@code 3f + 1} anyway)
     * @throws IllegalArgumentException naming the problem otherwise
     */
    public static ReplyTrust matching(int f, Collection<Integer> replicaIds) {
        Objects.requireNonNull(replicaIds, "replicaIds");
        int[] ids = new int[replicaIds.size()];
        int i = 0;
        for (Integer id : replicaIds) {
            ids[i++] = Objects.requireNonNull(id, "a replica id is null");
        }
        return matching(f, ids);
    }

    /** As {@link #matching(int, Collection)}. */
    public static ReplyTrust matching(int f, int... replicaIds) {
        Objects.requireNonNull(replicaIds, "replicaIds");
        if (f < 1) {
            throw new IllegalArgumentException("MATCHING needs f of at least 1 (use FIRST_REPLY for crash faults), got " + f);
        }
        int[] ids = replicaIds.clone();
        Arrays.sort(ids);
        for (int i = 1; i < ids.length; i++) {
            if (ids[i] == ids[i - 1]) {
                throw new IllegalArgumentException("replica id " + ids[i] + " is listed twice in " + Arrays.toString(replicaIds));
            }
        }
        if ((long) ids.length < 2L * f + 1) {
            throw new IllegalArgumentException("MATCHING(f=" + f + ") needs at least 2f+1 = " + (2L * f + 1)
                    + " replicas, so that f+1 correct ones can answer; got " + ids.length + ": " + Arrays.toString(replicaIds));
        }
        return new ReplyTrust(Mode.MATCHING, f, ids);
    }

    /** Which rule. */
    public Mode mode() {
        return mode;
    }

    /** Whether this is {@link Mode#MATCHING}. */
    public boolean isMatching() {
        return mode == Mode.MATCHING;
    }

    /** The number of faulty replicas tolerated: 0 for FIRST_REPLY. */
    public int f() {
        return f;
    }

    /** Matching replies needed to accept a result: {@code f + 1}, or 1 for FIRST_REPLY. */
    public int quorum() {
        return f + 1;
    }

    /** How many replicas are in the replica set (0 for FIRST_REPLY, which has none). */
    public int replicaCount() {
        return replicaIds.length;
    }

    /** The replica set, sorted (a copy; empty for FIRST_REPLY). */
    public int[] replicaIds() {
        return replicaIds.clone();
    }

    /**
     * The slot (0 to {@code replicaCount() - 1}) of {@code replicaId} in the replica set, or -1 if it is not a
     * member. Allocation-free.
     */
    public int slotOf(int replicaId) {
        int s = Arrays.binarySearch(replicaIds, replicaId);
        return s >= 0 ? s : -1;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReplyTrust t && t.mode == mode && t.f == f && Arrays.equals(t.replicaIds, replicaIds);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * mode.hashCode() + f) + Arrays.hashCode(replicaIds);
    }

    @Override
    public String toString() {
        return mode == Mode.FIRST_REPLY ? "FIRST_REPLY" : "MATCHING(f=" + f + ", replicas " + Arrays.toString(replicaIds) + ")";
    }
}
