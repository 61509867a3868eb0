package io.psmr.ordering.pbft;

/**
 * Configuration of PBFT with COP pillars; every replica must use the same one.
 *
 * <p>Global sequence numbers start at 1 (as {@code AtomicBroadcast.FIRST_INSTANCE}). Instance
 * {@code c} belongs to pillar {@code c mod Np}; pillar {@code p}'s instances are
 * {@code c = p + i·Np} for every {@code i} with {@code c >= 1}, so pillar 0 starts at {@code Np}.
 *
 * @param f                         faults tolerated; {@code n = 3f + 1} replicas, ids {@code 0..n-1}
 * @param pillars                   Np, pillars per replica
 * @param checkpointInterval        K; checkpoints are at multiples of K of the global sequence
 * @param watermarkWindow           L; a pillar handles only sequence numbers in {@code (h, h + L]} of the last stable
 *                                  checkpoint h. At least K, so the window always reaches the next checkpoint
 * @param requestTimeoutTicks       ticks a pending request (or an awaited instance) may wait before a view change
 * @param maxViewChangeTimeoutTicks cap of the view-change timeout, which doubles on each view change that fails
 * @param emptyInstanceDelayTicks   ticks a leader waits for a request before it fills an awaited instance with EMPTY
 *                                  (0 by default: at once, since execution stalls meanwhile)
 * @param retransmitTicks           period of retransmitting this pillar's own messages of unstable instances (to the
 *                                  replicas that may lack them, docs/pbft.md)
 * @param leaderRotation            how instances get their leader
 * @param maxRequestBytes           the largest request payload accepted
 * @param maxPendingRequests        the most client requests a pillar remembers while they are unordered
 * @param leaderSelection           which replicas may lead ({@link LeaderSelection}; safety does not depend on it)
 * @param proposeTimeoutTicks       ticks a leader may take to pre-prepare its instance once the instance is due (the
 *                                  pillar's earlier instances are pre-prepared and a request waits for it), before this
 *                                  replica complains about it as a slow leader; it grows with the delays the other
 *                                  leaders show. 0 turns the rule off (only the request timeout then catches a leader)
 * @param leaderBackoffInstances    how many instances of the global sequence a replica suspected for the first time is
 *                                  kept from leading under {@link LeaderSelection#BLACKLIST}; it doubles per repeated
 *                                  suspicion up to {@value #MAX_BACKOFF_DOUBLINGS} doublings
 */
public record PbftConfig(int f, int pillars, long checkpointInterval, long watermarkWindow, int requestTimeoutTicks,
                         int maxViewChangeTimeoutTicks, int emptyInstanceDelayTicks, int retransmitTicks,
                         LeaderRotation leaderRotation, int maxRequestBytes, int maxPendingRequests,
                         LeaderSelection leaderSelection, int proposeTimeoutTicks, long leaderBackoffInstances) {

    /** The most times a suspected leader's backoff doubles: the cap is {@code leaderBackoffInstances · 2^this}. */
    public static final int MAX_BACKOFF_DOUBLINGS = 6;

    /**
     * The defaults: f=1, 2 pillars, K=1024, L=2K, rotating leaders, blacklisting of suspected leaders for
     * 4,096 instances at first, a request timeout of 50 ticks and a propose timeout of 20.
     */
    public static PbftConfig defaults() {
        return new PbftConfig(1, 2, 1024, 2048, 50, 6400, 0, 50, LeaderRotation.ROTATING, 1 << 20, 10_000,
                LeaderSelection.BLACKLIST, 20, 4096);
    }

    /**
     * The blacklist leader selection, a propose timeout of a fifth of the request timeout but at least two
     * retransmission periods (a lost pre-prepare is resent before anyone calls its leader slow) and at most the
     * request timeout, and a first backoff of one watermark window; the other fields as given.
     */
    public PbftConfig(int f, int pillars, long checkpointInterval, long watermarkWindow, int requestTimeoutTicks,
                      int maxViewChangeTimeoutTicks, int emptyInstanceDelayTicks, int retransmitTicks,
                      LeaderRotation leaderRotation, int maxRequestBytes, int maxPendingRequests) {
        this(f, pillars, checkpointInterval, watermarkWindow, requestTimeoutTicks, maxViewChangeTimeoutTicks,
                emptyInstanceDelayTicks, retransmitTicks, leaderRotation, maxRequestBytes, maxPendingRequests,
                LeaderSelection.BLACKLIST,
                Math.max(1, Math.min(requestTimeoutTicks, Math.max(requestTimeoutTicks / 5, 2 * retransmitTicks))),
                Math.max(1, watermarkWindow));
    }

    /** This configuration with another leader selection, propose timeout and first backoff. */
    public PbftConfig withLeaderSelection(LeaderSelection selection, int proposeTimeout, long backoffInstances) {
        return new PbftConfig(f, pillars, checkpointInterval, watermarkWindow, requestTimeoutTicks,
                maxViewChangeTimeoutTicks, emptyInstanceDelayTicks, retransmitTicks, leaderRotation, maxRequestBytes,
                maxPendingRequests, selection, proposeTimeout, backoffInstances);
    }

    /** Validates every field, naming the one that is wrong. */
    public PbftConfig {
        if (f < 1) {
            throw new IllegalArgumentException("f must be at least 1: " + f);
        }
        if (pillars < 1) {
            throw new IllegalArgumentException("pillars must be at least 1: " + pillars);
        }
        if (checkpointInterval < 1) {
            throw new IllegalArgumentException("checkpointInterval must be at least 1: " + checkpointInterval);
        }
        if (watermarkWindow < checkpointInterval) {
            throw new IllegalArgumentException("watermarkWindow (" + watermarkWindow
                    + ") must be at least checkpointInterval (" + checkpointInterval + ")");
        }
        if (requestTimeoutTicks < 1) {
            throw new IllegalArgumentException("requestTimeoutTicks must be at least 1: " + requestTimeoutTicks);
        }
        if (maxViewChangeTimeoutTicks < requestTimeoutTicks) {
            throw new IllegalArgumentException("maxViewChangeTimeoutTicks (" + maxViewChangeTimeoutTicks
                    + ") must be at least requestTimeoutTicks (" + requestTimeoutTicks + ")");
        }
        if (emptyInstanceDelayTicks < 0) {
            throw new IllegalArgumentException("emptyInstanceDelayTicks must be non-negative: " + emptyInstanceDelayTicks);
        }
        if (retransmitTicks < 1) {
            throw new IllegalArgumentException("retransmitTicks must be at least 1: " + retransmitTicks);
        }
        if (leaderRotation == null) {
            throw new IllegalArgumentException("leaderRotation must not be null");
        }
        if (maxRequestBytes < 0) {
            throw new IllegalArgumentException("maxRequestBytes must be non-negative: " + maxRequestBytes);
        }
        if (maxPendingRequests < 1) {
            throw new IllegalArgumentException("maxPendingRequests must be at least 1: " + maxPendingRequests);
        }
        if (leaderSelection == null) {
            throw new IllegalArgumentException("leaderSelection must not be null");
        }
        if (proposeTimeoutTicks < 0) {
            throw new IllegalArgumentException("proposeTimeoutTicks must be non-negative (0: off): " + proposeTimeoutTicks);
        }
        if (leaderBackoffInstances < 1 || leaderBackoffInstances > 1L << 40) {
            throw new IllegalArgumentException("leaderBackoffInstances must be from 1 to 2^40: " + leaderBackoffInstances);
        }
    }

    /** n = 3f + 1. */
    public int replicaCount() {
        return 3 * f + 1;
    }

    /** 2f + 1, the size of every quorum. */
    public int quorum() {
        return 2 * f + 1;
    }

    /** The pillar that runs instance {@code seq}. */
    public int pillarOf(long seq) {
        return (int) (seq % pillars);
    }

    /** Pillar {@code p}'s first instance: {@code p}, or {@code Np} for pillar 0 (instances start at 1). */
    public long firstSeq(int pillar) {
        return pillar == 0 ? pillars : pillar;
    }

    /** The leader of instance {@code seq} in view {@code view} when every replica may lead (no one excluded). */
    public int leader(long seq, long view) {
        int n = replicaCount();
        return leaderRotation == LeaderRotation.FIXED
                ? (int) (view % n)
                : (int) ((seq / pillars + view) % n);
    }

    /** The replica that sends NEW-VIEW for {@code view} (of any pillar): {@code view mod n}. */
    public int primary(long view) {
        return (int) (view % replicaCount());
    }

    /** The pillar that agrees on checkpoint {@code seq}: round robin over checkpoints, {@code (seq / K) mod Np}. */
    public int checkpointPillar(long seq) {
        return (int) ((seq / checkpointInterval) % pillars);
    }

    /** Whether {@code seq} is a checkpoint number. */
    public boolean isCheckpoint(long seq) {
        return seq > 0 && seq % checkpointInterval == 0;
    }
}
