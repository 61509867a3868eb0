package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.Arrays;
import java.util.List;

/**
 * One pillar's leader selection state under {@link LeaderSelection#BLACKLIST}: per replica, the last
 * instance through which it is excluded from leading, and its strikes (how often it was suspected in a
 * row). Immutable and pure; every correct replica that installs the same NEW-VIEW computes the same
 * policy from it ({@link #agreed}), so they compute the same leader for every (instance, view).
 *
 * <p><b>The rule.</b> A VIEW-CHANGE carries its sender's policy and its suspect: the leader of the
 * first instance of the pillar that had not committed at the sender when it left the view. A NEW-VIEW's
 * policy is, per replica, the (f+1)-th highest exclusion and strike count among its VIEW-CHANGEs (so
 * between two correct replicas' values: f liars can neither raise nor lower it past every correct
 * one), then the replica that f+1 of them suspect (at least one correct replica saw it fail) gets one
 * strike more and is excluded for {@code leaderBackoffInstances · 2^(strikes−1)} instances (at most
 * {@value PbftConfig#MAX_BACKOFF_DOUBLINGS} doublings) from the new view's first undecided instance.
 * A replica suspected again only after it led cleanly for as long as its last exclusion lasted starts
 * over at one strike (it is forgiven). At most f replicas are excluded at any instance: if more are
 * named, those excluded longest stay out (ties: the lower id). Safety never depends on any of it.
 *
 * <p>Counting in instances, never in time, keeps the policy a function of agreed data only.
 */
public final class LeaderPolicy {

    /** No replica excluded, no strikes: the policy of view 0. */
    public static final LeaderPolicy NONE = new LeaderPolicy(new long[0], new int[0]);

    /** A VIEW-CHANGE with no suspect carries this. */
    public static final int NO_SUSPECT = -1;

    private final long[] excludedThrough;
    private final int[] strikes;
    private final boolean anyExcluded;

    /** The eligible replicas of one excluded set; a set changes only at a NEW-VIEW or when an exclusion ends. */
    private record Eligible(long mask, int[] replicas) {
    }

    // Written as one reference to an object with final fields: any thread reading it sees a consistent pair.
    private Eligible cached;

    private LeaderPolicy(long[] excludedThrough, int[] strikes) {
        this.excludedThrough = excludedThrough;
        this.strikes = strikes;
        boolean any = false;
        for (long e : excludedThrough) {
            any |= e > 0;
        }
        this.anyExcluded = any;
    }

    /**
     * A policy with these values (copied), as a VIEW-CHANGE carries them.
     *
     * @throws IllegalArgumentException if the arrays differ in length, or a value is negative
     */
    public static LeaderPolicy of(long[] excludedThrough, int[] strikes) {
        if (excludedThrough.length != strikes.length) {
            throw new IllegalArgumentException("leader policy: " + excludedThrough.length + " exclusions but "
                    + strikes.length + " strike counts");
        }
        for (int r = 0; r < strikes.length; r++) {
            if (excludedThrough[r] < 0 || strikes[r] < 0) {
                throw new IllegalArgumentException("leader policy: negative value for replica " + r);
            }
        }
        return new LeaderPolicy(excludedThrough.clone(), strikes.clone());
    }

    /** How many replicas it has values for: 0 for {@link #NONE}, else n. */
    public int size() {
        return strikes.length;
    }

    /** The last instance through which {@code replica} is excluded from leading (0: never). */
    public long excludedThrough(int replica) {
        return replica < excludedThrough.length ? excludedThrough[replica] : 0;
    }

    /** How often in a row {@code replica} was suspected. */
    public int strikes(int replica) {
        return replica < strikes.length ? strikes[replica] : 0;
    }

    /** Whether a VIEW-CHANGE may carry it: no values or one per replica, strikes within the cap. */
    boolean wellFormed(PbftConfig config) {
        if (size() != 0 && size() != config.replicaCount()) {
            return false;
        }
        for (int s : strikes) {
            if (s > PbftConfig.MAX_BACKOFF_DOUBLINGS + 1) {
                return false;
            }
        }
        return true;
    }

    /**
     * The leader of instance {@code seq} in {@code view}: the rotation of {@link PbftConfig#leader} over the
     * replicas not excluded at {@code seq}. ROTATING: the {@code (seq/Np + view) mod m}-th of the m eligible
     * replicas; FIXED: the first eligible replica from {@code view mod n} on.
     */
    public int leader(long seq, long view, PbftConfig config) {
        if (!anyExcluded) {
            return config.leader(seq, view);
        }
        int n = config.replicaCount();
        long mask = excludedMask(seq, config);
        if (mask == 0) {
            return config.leader(seq, view);
        }
        int[] eligible = eligible(mask, n);
        if (config.leaderRotation() == LeaderRotation.FIXED) {
            int start = (int) (view % n);
            for (int i = 0; i < n; i++) {
                int r = (start + i) % n;
                if ((mask & (1L << r)) == 0) {
                    return r;
                }
            }
        }
        return eligible[(int) ((seq / config.pillars() + view) % eligible.length)];
    }

    /** Whether {@code replica} is kept from leading instance {@code seq}. */
    public boolean excluded(int replica, long seq, PbftConfig config) {
        return anyExcluded && (excludedMask(seq, config) & (1L << replica)) != 0;
    }

    /** The replicas excluded at {@code seq} as a bit set: at most f, those excluded longest first. */
    private long excludedMask(long seq, PbftConfig config) {
        long mask = 0;
        int count = 0;
        for (int r = 0; r < excludedThrough.length && r < 64; r++) {
            if (excludedThrough[r] >= seq) {
                mask |= 1L << r;
                count++;
            }
        }
        while (count > config.f()) { // drop the one excluded shortest (ties: the higher id)
            int drop = -1;
            for (int r = 0; r < excludedThrough.length && r < 64; r++) {
                if ((mask & (1L << r)) != 0 && (drop < 0 || excludedThrough[r] <= excludedThrough[drop])) {
                    drop = r;
                }
            }
            mask &= ~(1L << drop);
            count--;
        }
        return mask;
    }

    private int[] eligible(long mask, int n) {
        Eligible c = cached;
        if (c != null && c.mask == mask) {
            return c.replicas;
        }
        int[] eligible = new int[n - Long.bitCount(mask)];
        int i = 0;
        for (int r = 0; r < n; r++) {
            if ((mask & (1L << r)) == 0) {
                eligible[i++] = r;
            }
        }
        cached = new Eligible(mask, eligible);
        return eligible;
    }

    /**
     * Whether this policy, a NEW-VIEW's, struck a replica that {@code before} (the previous view's) already had
     * strikes against: one readmitted after its backoff and suspected again, not forgiven in between.
     */
    boolean suspectedAgain(LeaderPolicy before, int n) {
        for (int r = 0; r < n; r++) {
            if (before.strikes(r) > 0 && strikes(r) > before.strikes(r)) {
                return true;
            }
        }
        return false;
    }

    /**
     * This policy with {@code replica} suspected once more, its exclusion starting at instance {@code from}.
     */
    LeaderPolicy suspect(int replica, long from, PbftConfig config) {
        int n = config.replicaCount();
        long[] ex = new long[n];
        int[] st = new int[n];
        for (int r = 0; r < n; r++) {
            ex[r] = excludedThrough(r);
            st[r] = strikes(r);
        }
        if (st[replica] > 0 && from > ex[replica] + backoff(st[replica], config)) {
            st[replica] = 0; // it led cleanly for as long as it was last kept out: forgiven
        }
        st[replica] = Math.min(st[replica] + 1, PbftConfig.MAX_BACKOFF_DOUBLINGS + 1);
        ex[replica] = Math.max(ex[replica], from - 1 + backoff(st[replica], config));
        return new LeaderPolicy(ex, st);
    }

    /** How many instances a replica with {@code strikes} strikes is kept out: the first backoff doubled per strike more. */
    static long backoff(int strikes, PbftConfig config) {
        return config.leaderBackoffInstances() << Math.min(Math.max(strikes - 1, 0), PbftConfig.MAX_BACKOFF_DOUBLINGS);
    }

    /**
     * The policy of the view a NEW-VIEW starts, from its VIEW-CHANGEs (at least 2f+1, validated): the
     * (f+1)-th highest value of each replica's exclusion and strikes, then the replica suspected by at least
     * f+1 of them (the most suspected; ties: the lower id) suspected once more from instance {@code from}.
     */
    static LeaderPolicy agreed(List<ViewChange> viewChanges, long from, PbftConfig config) {
        int n = config.replicaCount();
        int f = config.f();
        long[] ex = new long[n];
        int[] st = new int[n];
        long[] column = new long[viewChanges.size()];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < column.length; i++) {
                column[i] = viewChanges.get(i).leaders().excludedThrough(r);
            }
            ex[r] = fPlusOneHighest(column, f);
            for (int i = 0; i < column.length; i++) {
                column[i] = viewChanges.get(i).leaders().strikes(r);
            }
            st[r] = (int) fPlusOneHighest(column, f);
        }
        LeaderPolicy merged = new LeaderPolicy(ex, st);
        int[] votes = new int[n];
        for (ViewChange vc : viewChanges) {
            if (vc.suspect() >= 0 && vc.suspect() < n) {
                votes[vc.suspect()]++;
            }
        }
        int suspect = NO_SUSPECT;
        for (int r = 0; r < n; r++) {
            if (votes[r] >= f + 1 && (suspect == NO_SUSPECT || votes[r] > votes[suspect])) {
                suspect = r;
            }
        }
        return suspect == NO_SUSPECT ? merged : merged.suspect(suspect, from, config);
    }

    /** The (f+1)-th highest of {@code values} (0 if there are fewer). */
    private static long fPlusOneHighest(long[] values, int f) {
        if (values.length <= f) {
            return 0;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length - 1 - f];
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof LeaderPolicy p)) {
            return false;
        }
        int n = Math.max(size(), p.size());
        for (int r = 0; r < n; r++) {
            if (excludedThrough(r) != p.excludedThrough(r) || strikes(r) != p.strikes(r)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int h = 0;
        for (int r = 0; r < size(); r++) {
            if (excludedThrough[r] != 0 || strikes[r] != 0) {
                h = h * 31 + r * 17 + Long.hashCode(excludedThrough[r]) + strikes[r];
            }
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("LeaderPolicy[");
        for (int r = 0; r < size(); r++) {
            if (excludedThrough[r] != 0 || strikes[r] != 0) {
                b.append(b.length() > 13 ? ", " : "").append(r).append(": out through ").append(excludedThrough[r])
                        .append(", strikes ").append(strikes[r]);
            }
        }
        return b.append(']').toString();
    }
}
