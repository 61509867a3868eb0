package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.Complaint;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.protocol.Outbox;
import io.psmr.ordering.protocol.Ready;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * The PBFT state machine of one COP pillar at one replica: it orders the instances
 * {@code c ≡ pillar (mod Np)} of the global sequence, with its own view. It is pure: its state
 * changes only in {@link #step}, {@link #tick}, {@link #propose}, {@link #needEmpty},
 * {@link #checkpointDigest} and {@link #stableCheckpoint}, and its outputs wait in {@link #ready()}: the
 * {@link PbftCore} of one pillar.
 * No clock, thread, socket or random number inside; the same inputs give the same outputs.
 *
 * <p>Byzantine inputs are refused, never obeyed, and counted by {@link Refusal}. Safety never
 * depends on timers; timers (counted in ticks) only trigger view changes and retransmissions.
 *
 * <p>It holds the normal case and drives the checkpoints and the view change, whose state and rules
 * live in {@code CheckpointVotes} (the CHECKPOINT votes and h), {@code ViewChangeState} (complaints,
 * VIEW-CHANGEs, the view-change timer) and {@code NewViewRules} (VIEW-CHANGE validity, rules A and B,
 * the NEW-VIEW check).
 *
 * <p>Not thread-safe: the host (the pillar's thread) calls every method from one thread; nothing blocks.
 */
public final class PbftPillar implements PbftCore {

    /** One instance (sequence number) in the window. */
    private static final class Slot {
        PrePrepare prePrepare; // accepted in the current view
        int proposer = -1;
        final Map<Integer, Prepare> prepares = new HashMap<>(); // current view, first per replica
        final Map<Integer, Commit> commits = new HashMap<>();
        boolean prepared;
        long preparedAt; // the tick it prepared: relayed only once the others had a retransmission round
        boolean committed;
        PrePrepare preparedIn; // P: the pre-prepare of the highest view this instance prepared in here
        final List<PrePrepared> prePrepared = new ArrayList<>(); // Q: per digest, the highest view pre-prepared here
        Prepare ownPrepare;
        Commit ownCommit;
        boolean fromNewView;
        long retransmitRounds; // retransmission rounds since the instance entered the window (or this view)
    }

    private record Pending(Request request, long since) {
    }

    /**
     * At most this many pre-prepares are relayed to lagging replicas per retransmission round (oldest
     * instance first), on top of the usual retransmissions: a lagging or lying replica cannot make a
     * correct one send more than this.
     */
    static final int RELAYS_PER_RETRANSMIT = 8;

    /**
     * Retransmission rounds in which a replica that sent a VIEW-CHANGE for the current view (a restarted or
     * state-transferred incarnation rejoining it), or a new complaint against it (it stalls), gets this pillar's
     * messages of every instance in the window. Bounded: a complaint stands until the view changes, and a replica
     * that stalled once must not cost a whole window every round from then on.
     */
    static final int CATCH_UP_ROUNDS = 4;

    /** For {@link #recovering}: up to the first stable checkpoint learned after the restart, plus L. */
    public static final long UNTIL_FIRST_STABLE_CHECKPOINT = Long.MAX_VALUE;

    /** Commits in one view after which it counts as clean and its timeouts may come down. */
    static final int CLEAN_VIEW_COMMITS = 16;
    /**
     * Ticks of a clean view per doubling of the timeouts undone (5 s at 10 ms ticks). A view change raises the
     * timeouts at once and they come down slowly: on an overloaded machine, where a correct leader now and then
     * misses the propose timeout, the timeouts settle where such spurious suspicions are rare.
     */
    static final int TIMEOUT_DECAY_TICKS = 500;
    /** The most doublings of the request and propose timeouts after repeated view changes. */
    static final int MAX_TIMEOUT_LEVEL = 5;
    /** How many recent propose delays the slow-leader rule compares a leader against. */
    static final int DELAY_SAMPLES = 32;
    /** A leader is slow when it takes this many times a recent delay ({@link #proposeTimeout}). */
    static final int SLOW_FACTOR = 4;

    private final PbftConfig config;
    private final int self;
    private final int pillar;
    private final Authenticator auth;
    private final int n;
    private int commitQuorum;

    private long now;
    private long view;
    private boolean changing;
    /** The last instance the NEW-VIEW of the current view decided (h in view 0): its proposer is primary(view). */
    private long newViewUpTo;
    private final ViewChangeState viewChangeState;
    private final NewViewRules rules;

    /** h, the last stable checkpoint and the window's low watermark; installStable moves it with {@code checkpoints}. */
    private long low;
    private final CheckpointVotes checkpoints;

    private final TreeMap<Long, Slot> slots = new TreeMap<>();
    /**
     * Where {@link #nextUnfilled} resumes: every instance of this pillar above h and below it is committed or
     * pre-prepared. Slots only fill up, except when a NEW-VIEW clears the pre-prepares, which resets it; walking
     * from h at every call took a fifth of a loaded replica's Java samples with a thousand instances in the window.
     */
    private long filledBelow;
    /** Where {@link #committedUpTo} resumes: every instance of this pillar above h and below it is committed. */
    private long committedBelow;
    private final LinkedHashMap<RequestId, Pending> pending = new LinkedHashMap<>();
    private final Map<Long, Long> lastOrdered = new HashMap<>();
    /** COMMITs of views this pillar is not in: per instance of the window, each replica's highest-view one. */
    private final TreeMap<Long, Map<Integer, Commit>> otherViewCommits = new TreeMap<>();
    private long neededUpTo;
    private long neededSince;
    private long lastProgress;

    /** Who may lead in this view ({@link LeaderSelection#BLACKLIST}): agreed from the NEW-VIEW that started it. */
    private LeaderPolicy leaders = LeaderPolicy.NONE;
    /** The instance from which {@link #leaders} was computed: the installed NEW-VIEW's first undecided one. */
    private long policyFrom = 1;
    /** The leader this replica blamed when it left its last installed view: its VIEW-CHANGEs name it. */
    private int suspect = LeaderPolicy.NO_SUSPECT;
    /** Why this replica complained against its current view (null: it has not). */
    private ViewChangeCause complaintCause;
    /** Why it left its last view (null before the first view change). */
    private ViewChangeCause leftBecause;
    /** Timeouts are base · 2^level: one more per view installed, one less per {@link #TIMEOUT_DECAY_TICKS} of a clean view. */
    private int timeoutLevel;
    /** When the timeout level last changed (a tick). */
    private long timeoutLevelSince;
    private int commitsInView;
    /** Whether a leader pre-prepared an instance above the NEW-VIEW's re-proposals in this view (here or received). */
    private boolean freshInView;
    /** The instance whose leader's pre-prepare this replica waits for, and since when (-1: nothing waits for it). */
    private long dueSeq;
    private long dueSince = -1;
    /** The last {@value #DELAY_SAMPLES} delays (ticks) between an instance becoming due and its pre-prepare. */
    private final int[] proposeDelays = new int[DELAY_SAMPLES];
    /** Scratch for {@link #proposeTimeout}'s quantile, so that the tick path allocates nothing. */
    private final int[] sortedDelays = new int[DELAY_SAMPLES];
    private int proposeDelayCount;

    /** After a restart without its log: the last instance it may have led before and must not lead again. */
    private long recoveringUpTo;
    /** ... in views up to this one: the highest view its forgotten log may have led in (-1: not recovering). */
    private long recoveringThroughView = -1;
    /** Per replica: the tick it last sent a VIEW-CHANGE for the current view, or -1. */
    private final long[] rejoinedAt;
    /** Per replica: the tick its latest new complaint (not a retransmission of it) arrived, or -1. */
    private final long[] complainedAt;
    /** Scratch of {@link #retransmit}: which replicas get every instance this round. */
    private final boolean[] catchingUp;
    /** Whether {@link #resumeViewsSeen} gave views to act on at the next tick. */
    private boolean resumedViewsSeen;

    private final EnumMap<Refusal, Long> refusals = new EnumMap<>(Refusal.class);
    private final Outbox<PbftEnvelope, Void, PillarOutput> outbox = new Outbox<>();

    /**
     * A pillar in view 0 with no stable checkpoint.
     *
     * @param config  the cluster's configuration
     * @param replica this replica's id, {@code 0..n-1}
     * @param pillar  this pillar, {@code 0..Np-1}
     * @param auth    authenticates envelopes and client requests
     */
    public PbftPillar(PbftConfig config, int replica, int pillar, Authenticator auth) {
        if (replica < 0 || replica >= config.replicaCount()) {
            throw new IllegalArgumentException("replica " + replica + " outside [0, " + config.replicaCount() + ")");
        }
        if (pillar < 0 || pillar >= config.pillars()) {
            throw new IllegalArgumentException("pillar " + pillar + " outside [0, " + config.pillars() + ")");
        }
        this.config = config;
        this.self = replica;
        this.pillar = pillar;
        this.auth = auth;
        this.n = config.replicaCount();
        this.rejoinedAt = new long[n];
        this.catchingUp = new boolean[n];
        Arrays.fill(rejoinedAt, -1);
        this.complainedAt = new long[n];
        Arrays.fill(complainedAt, -1);
        this.commitQuorum = config.quorum();
        this.viewChangeState = new ViewChangeState(config);
        this.rules = new NewViewRules(config, pillar, auth);
        this.checkpoints = new CheckpointVotes(config, auth, this::refuse);
    }

    /**
     * MUTATION TESTING ONLY: makes this pillar commit with {@code quorum} matching COMMITs instead of
     * 2f+1, which is unsafe. It exists so that the Byzantine simulation can show that its checks
     * catch a broken quorum; package-private and not part of {@link PbftConfig}, so no user can set it.
     */
    void commitQuorumForMutationTesting(int quorum) {
        this.commitQuorum = quorum;
    }

    // ------------------------------------------------------------------ inputs

    /** Handles one envelope addressed to this pillar; anything invalid is dropped and counted. */
    @Override
    public void step(PbftEnvelope envelope) {
        int from = envelope.from();
        if (envelope.to() != self || envelope.pillar() != pillar || from < 0 || from >= n || from == self) {
            refuse(Refusal.MISROUTED);
            return;
        }
        if (!envelope.verify(auth)) {
            refuse(Refusal.BAD_MAC);
            return;
        }
        PbftMessage m = envelope.message();
        if (m instanceof Request r) {
            admit(r);
        } else if (m instanceof PrePrepare p) {
            onPrePrepare(p, from);
        } else if (m instanceof Prepare p) {
            onPrepare(p, from);
        } else if (m instanceof Commit c) {
            onCommit(c, from);
        } else if (m instanceof Checkpoint c) {
            onCheckpoint(c, from);
        } else if (m instanceof ViewChange v) {
            onViewChange(v, from);
        } else if (m instanceof NewView nv) {
            onNewView(nv, from);
        } else if (m instanceof Complaint c) {
            onComplaint(c, from);
        }
        tryPropose();
    }

    /**
     * A client request arrived at this replica for this pillar. It is remembered (its timer starts)
     * and forwarded to the other replicas; the leader of the pillar's next instance orders it.
     *
     * @return empty if it was taken, else why it was refused (too large, bad MAC for this replica, already ordered,
     *         table full, checked in that order); a refused request is counted in {@link #refusals()}
     */
    @Override
    public Optional<Refusal> propose(Request request) {
        boolean fresh = !pending.containsKey(request.id());
        Refusal refusal = admit(request);
        if (refusal != null) {
            return Optional.of(refusal);
        }
        if (fresh) {
            multicast(request);
        }
        tryPropose();
        return Optional.empty();
    }

    /** Advances time by one tick: request and view-change timers, EMPTY instances, retransmission. */
    @Override
    public void tick() {
        now++;
        if (resumedViewsSeen) {
            resumedViewsSeen = false;
            OptionalLong join = viewChangeState.joinable(view);
            if (join.isPresent()) {
                startViewChange(join.getAsLong(), ViewChangeCause.JOINED_HIGHER_VIEW);
            }
        }
        if (changing) {
            if (viewChangeState.timerExpired(now)) {
                if (viewChangeState.askAgain(now)) {
                    // f+1 replicas work in the target view, so its NEW-VIEW exists and only missed this replica (a new
                    // incarnation, or one that was slow): ask for it again, its primary resends it to a VIEW-CHANGE
                    // for its view. The next view would be this replica's alone unless the others have reason to go.
                    ViewChange own = viewChangeState.latest(self);
                    if (own != null) {
                        multicast(own);
                    }
                } else {
                    // The view change did not complete: try the next view, waiting twice as long.
                    startViewChange(nextView(viewChangeState.targetView()), ViewChangeCause.VIEW_CHANGE_TIMER);
                }
            }
        } else if (viewChangeState.complainedFor() <= view) {
            // Step one only: complain and stay in this view. A replica that fell behind alone keeps
            // taking normal-case messages (and their retransmissions) and catches up; the view changes
            // only when 2f+1 complain.
            if (stalled()) {
                complain(nextView(view), ViewChangeCause.REQUEST_TIMEOUT);
            } else if (slowLeader()) {
                complain(nextView(view), ViewChangeCause.SLOW_LEADER);
            }
        }
        if (now % config.retransmitTicks() == 0) {
            retransmit();
        }
        tryPropose();
    }

    /**
     * The execution stage waits on this pillar's instance {@code seq}: every instance of this pillar
     * up to it must be filled. A leader with nothing to order proposes EMPTY after
     * {@code emptyInstanceDelayTicks}; if they stay uncommitted, backups change views.
     *
     * @throws IllegalArgumentException if {@code seq} belongs to another pillar
     */
    @Override
    public void needEmpty(long seq) {
        if (seq < 1 || config.pillarOf(seq) != pillar) {
            throw new IllegalArgumentException("instance " + seq + " does not belong to pillar " + pillar);
        }
        if (seq > neededUpTo) {
            if (neededUpTo <= low || committedUpTo() >= neededUpTo) {
                neededSince = now;
            }
            neededUpTo = seq;
            tryPropose();
        }
    }

    /**
     * The execution stage reports its state digest after executing every instance up to checkpoint
     * {@code seq}. The pillar multicasts CHECKPOINT; 2f+1 matching make it stable.
     *
     * @throws IllegalArgumentException if {@code seq} is not a checkpoint number
     */
    @Override
    public void checkpointDigest(long seq, byte[] digest) {
        if (!config.isCheckpoint(seq)) {
            throw new IllegalArgumentException(seq + " is not a checkpoint number (multiple of " + config.checkpointInterval() + ")");
        }
        Checkpoint own = checkpoints.vote(seq, digest, self);
        if (own == null) {
            return; // at or below h, or voted already
        }
        multicast(own);
        installIfStable(checkpoints.record(own));
    }

    /**
     * A checkpoint became stable (usually announced by the pillar that agreed on it): discard the log
     * up to it and move the watermarks. A proof without 2f+1 matching CHECKPOINTs is refused.
     */
    @Override
    public void stableCheckpoint(StableCheckpoint checkpoint) {
        if (!checkpoints.validProof(checkpoint.seq(), checkpoint.stateDigest(), checkpoint.proof())) {
            refuse(Refusal.BAD_CHECKPOINT);
            return;
        }
        if (checkpoint.seq() > low) {
            installStable(checkpoint.seq(), checkpoint.stateDigest(), checkpoint.proof(), false);
            tryPropose();
        }
    }

    /**
     * The execution stage learned, by state transfer, that client {@code client}'s requests up to
     * {@code number} are executed (a transferred state carries each client's last executed number,
     * as in PBFT). The pillar forgets them and refuses them from now on; without this, requests ordered
     * in a stretch the replica skipped stay pending, time out, and send it into a view change alone.
     */
    @Override
    public void clientExecuted(long client, long number) {
        lastOrdered.merge(client, number, Math::max);
        pending.values().removeIf(p -> p.request.client() == client && p.request.number() <= number);
    }

    /**
     * This pillar restarted without its log: it does not lead instances up to {@code upTo} (it may have
     * pre-prepared other values there before), so a restarted leader cannot stall its own instances with
     * conflicting pre-prepares; the others' slow-leader rule moves them to another leader. With
     * {@link #UNTIL_FIRST_STABLE_CHECKPOINT}, the bound becomes the first stable checkpoint it learns plus L
     * (every instance it could have touched lies in the window of a checkpoint at or below that one). It
     * abstains in every view: nothing says which views its forgotten log led in.
     */
    @Override
    public void recovering(long upTo) {
        recovering(upTo, Long.MAX_VALUE);
    }

    /**
     * As {@link #recovering(long)}, where the forgotten log is known to have sent no PRE-PREPARE or NEW-VIEW in a
     * view above {@code throughView} (a state transfer replaced an incarnation of this process whose highest view,
     * {@link #highestViewEntered}, it read after stopping it). The abstention ends at the first view above it:
     * a pre-prepare there cannot conflict with a forgotten one, since every one of those names a lower view.
     * Without this, more than f replicas recovering at once would each cost a view change at every turn.
     */
    @Override
    public void recovering(long upTo, long throughView) {
        recoveringUpTo = Math.max(recoveringUpTo, upTo);
        recoveringThroughView = Math.max(recoveringThroughView, throughView);
    }

    /**
     * Takes the views in which the incarnation this one replaces saw each replica ({@link #viewsSeen}, read after
     * its agent stopped; -1: none). Before the first tick, the pillar's thread or its creator. At the first tick it
     * joins the view that f+1 of them were seen above view 0 in, as a message of each would make it, instead of
     * waiting in view 0 for f+1 new messages: a replica that state-transferred under load would otherwise refuse
     * every normal-case message of the others' view meanwhile, fall behind the next stable checkpoint and transfer
     * again.
     *
     * @throws IllegalArgumentException if {@code seen} does not have one entry per replica
     */
    @Override
    public void resumeViewsSeen(long[] seen) {
        viewChangeState.rememberSeen(seen);
        resumedViewsSeen = true;
    }

    /**
     * The highest view each replica was seen in (index = replica; -1: none seen above this pillar's view then), for
     * the incarnation that replaces this one ({@link #resumeViewsSeen}). Only once its agent's thread has ended.
     */
    @Override
    public long[] viewsSeen() {
        return viewChangeState.viewsSeen();
    }

    /** The last instance this pillar will not lead after a restart without its log (0: none). */
    public long recoveringUpTo() {
        return recoveringUpTo;
    }

    /**
     * Whether this pillar still abstains from leading instance {@code s} in its current view
     * ({@link #recovering(long, long)}).
     */
    public boolean abstains(long s) {
        return s <= recoveringUpTo && view <= recoveringThroughView;
    }

    /**
     * The highest view in which this pillar, or a forgotten log it recovered from, may have sent a PRE-PREPARE or a
     * NEW-VIEW: its view, the view it is changing to, and any bound it was told while still abstaining. Read after
     * its agent stopped, for the incarnation that replaces it.
     */
    @Override
    public long highestViewEntered() {
        return Math.max(viewChangeTarget(), recoveringThroughView);
    }

    /** Returns what was produced since the last call: envelopes to send, and {@link PillarOutput}s; never writes. */
    @Override
    public Ready<PbftEnvelope, Void, PillarOutput> ready() {
        return outbox.drain();
    }

    @Override
    public void advance(Ready<PbftEnvelope, Void, PillarOutput> ready) {
        outbox.advance(ready);
    }

    // ------------------------------------------------------------------ observers

    /** This replica's id. */
    public int replica() {
        return self;
    }

    /** This pillar's number. */
    @Override
    public int pillar() {
        return pillar;
    }

    /** The current view (while changing views: the last installed one). */
    public long view() {
        return view;
    }

    /** Who may lead in the current view: agreed from the NEW-VIEW that started it ({@link LeaderPolicy#NONE} in view 0). */
    public LeaderPolicy leaders() {
        return leaders;
    }

    /** Whether a view change is in progress. */
    public boolean isChangingView() {
        return changing;
    }

    /** The view this pillar is changing to; while no view change is in progress, the current view. */
    public long viewChangeTarget() {
        return changing ? viewChangeState.targetView() : view;
    }

    /** How often its timeouts are doubled now (0: at their base). */
    int timeoutLevel() {
        return timeoutLevel;
    }

    /** Why this replica left its last view, as it saw it (empty before its first view change). */
    public Optional<ViewChangeCause> leftBecause() {
        return Optional.ofNullable(leftBecause);
    }

    /** Whether this replica complained against its current view (and has not left it). */
    public boolean isComplaining() {
        return !changing && viewChangeState.complainedFor() > view;
    }

    /** The last stable checkpoint h (0 before the first). */
    public long lowWatermark() {
        return low;
    }

    /** How many instances the log holds (at most {@code L / Np + 1}). */
    public int logSize() {
        return slots.size();
    }

    /** How many client requests wait to be ordered. */
    public int pendingRequests() {
        return pending.size();
    }

    /** Refusals so far, by reason. */
    public Map<Refusal, Long> refusals() {
        return new EnumMap<>(refusals);
    }

    @Override
    public PillarSnapshot snapshot(long malformed) {
        Map<Integer, Long> excluded = new HashMap<>();
        if (config.leaderSelection() == LeaderSelection.BLACKLIST) {
            long next = nextUnfilled();
            for (int r = 0; r < n; r++) {
                if (leaders.excluded(r, next, config)) {
                    excluded.put(r, leaders.excludedThrough(r));
                }
            }
        }
        return new PillarSnapshot(pillar, view, low, refusals(), malformed, excluded, viewChangeTarget(), leftBecause);
    }

    /** Refusals so far of one reason. */
    public long refusals(Refusal reason) {
        return refusals.getOrDefault(reason, 0L);
    }

    // ------------------------------------------------------------------ requests and proposing

    /** Remembers a request to order: null if it is pending now, else why it was refused (and counted). */
    private Refusal admit(Request r) {
        Refusal refusal = admission(r);
        if (refusal != null) {
            refuse(refusal);
        } else if (!pending.containsKey(r.id())) {
            pending.put(r.id(), new Pending(r, now));
        }
        return refusal;
    }

    private Refusal admission(Request r) {
        if (r.payload().length > config.maxRequestBytes()) {
            return Refusal.REQUEST_TOO_LARGE;
        }
        if (!r.verifiedFor(self, auth)) {
            return Refusal.BAD_REQUEST_AUTH;
        }
        if (r.number() <= lastOrdered.getOrDefault(r.client(), 0L)) {
            return Refusal.DUPLICATE_REQUEST;
        }
        if (!pending.containsKey(r.id()) && pending.size() >= config.maxPendingRequests()) {
            return Refusal.OVERLOADED;
        }
        return null;
    }

    /** The lowest instance of this pillar above {@code x}. */
    private long firstAbove(long x) {
        return rules.firstAbove(x);
    }

    /** The lowest instance above h without a pre-prepare of this view and not committed. */
    private long nextUnfilled() {
        long s = Math.max(firstAbove(low), filledBelow);
        while (true) {
            Slot slot = slots.get(s);
            if (slot == null || (!slot.committed && slot.prePrepare == null)) {
                filledBelow = s;
                return s;
            }
            s += config.pillars();
        }
    }

    /** The highest instance up to which every instance of this pillar above h committed here (h if none). */
    private long committedUpTo() {
        long s = Math.max(firstAbove(low), committedBelow);
        while (true) {
            Slot slot = slots.get(s);
            if (slot == null || !slot.committed) {
                committedBelow = s;
                return s - 1;
            }
            s += config.pillars();
        }
    }

    /**
     * Proposes at the pillar's next unfilled instance while this replica leads it. Instances are
     * filled in order, so with rotating leaders each leader sees what its predecessors assigned and
     * does not order a request twice.
     */
    private void tryPropose() {
        while (!changing) {
            long s = nextUnfilled();
            if (s > low + config.watermarkWindow() || leader(s) != self || abstains(s)) {
                return;
            }
            Request next = nextUnassigned();
            PrePrepare pp;
            if (next != null) {
                pp = new PrePrepare(view, s, next.digest(), next);
            } else if (s <= neededUpTo && now - neededSince >= config.emptyInstanceDelayTicks()) {
                pp = PrePrepare.empty(view, s);
            } else {
                return;
            }
            Slot slot = slot(s);
            slot.prePrepare = pp;
            slot.proposer = self;
            recordPrePrepared(slot, pp);
            freshInView = true;
            multicast(pp);
            checkPrepared(s, slot);
        }
    }

    private Request nextUnassigned() {
        if (pending.isEmpty()) {
            return null;
        }
        Set<RequestId> assigned = new HashSet<>();
        // Committed instances' requests left the pending table when they committed: only the rest can hold one.
        for (Slot slot : slots.tailMap(committedUpTo(), false).values()) {
            if (slot.prePrepare != null && slot.prePrepare.request() != null) {
                assigned.add(slot.prePrepare.request().id());
            }
        }
        for (Pending p : pending.values()) {
            if (!assigned.contains(p.request.id())) {
                return p.request;
            }
        }
        return null;
    }

    private boolean stalled() {
        long waitingSince = Long.MAX_VALUE;
        if (!pending.isEmpty()) {
            waitingSince = pending.values().iterator().next().since;
        }
        if (neededUpTo > low && committedUpTo() < neededUpTo) {
            waitingSince = Math.min(waitingSince, neededSince + config.emptyInstanceDelayTicks());
        }
        return waitingSince != Long.MAX_VALUE
                && now - Math.max(waitingSince, lastProgress) >= requestTimeout();
    }

    /** The request timeout: the configured one doubled per view change since the last clean view, capped. */
    private long requestTimeout() {
        return Math.min((long) config.requestTimeoutTicks() << timeoutLevel, config.maxViewChangeTimeoutTicks());
    }

    /**
     * The slow-leader rule (after Aardvark): the instance this replica waits for is due (every earlier
     * instance of the pillar is pre-prepared here and a request or the execution stage waits for it) and its
     * leader has not pre-prepared it within {@link #proposeTimeout}. A correct leader pre-prepares a due instance
     * within one message delay, so only a crashed, cut-off or slow one trips it; a leader that stays just under the
     * request timeout no longer goes unnoticed. Until a leader pre-prepared a fresh instance in this view, the
     * request timeout applies instead: every leader must first install the NEW-VIEW, and checking its signed
     * VIEW-CHANGEs takes a loaded replica hundreds of milliseconds longer than another, which the propose timeout
     * would count against the first leader due. Only a complaint follows: 2f+1 must complain before the view changes.
     */
    private boolean slowLeader() {
        if (config.proposeTimeoutTicks() == 0) {
            return false;
        }
        long s = nextUnfilled();
        if (s != dueSeq) {
            if (dueSince >= 0 && s > dueSeq) {
                recordProposeDelay(now - dueSince); // the awaited pre-prepare came: how long it took
            }
            dueSeq = s;
            dueSince = -1;
        }
        if (s > low + config.watermarkWindow() || leader(s) == self) {
            dueSince = -1;
            return false;
        }
        boolean awaited = (s <= neededUpTo) || nextUnassigned() != null;
        if (!awaited) {
            dueSince = -1;
            return false;
        }
        if (dueSince < 0) {
            dueSince = now;
        }
        return now - dueSince >= (freshInView ? proposeTimeout() : requestTimeout());
    }

    /**
     * The propose timeout: {@link #SLOW_FACTOR} times the two-thirds quantile of the recent propose delays, at least the
     * configured one, doubled per timeout level. A quantile, not the mean: a slow leader is one leader in n, so its own
     * delays would raise a mean far enough to shelter it (one in four delays just under the request timeout lifts the
     * mean above a quarter of it). The f faulty leaders own at most f/n &lt; 1/3 of the delays, the highest ones, so
     * the two-thirds quantile is a correct leader's; it sits above the median, so that the spread of correct leaders'
     * delays on a busy machine trips the rule less often.
     */
    private long proposeTimeout() {
        int samples = Math.min(proposeDelayCount, DELAY_SAMPLES);
        long quantile = 0;
        if (samples > 0) {
            System.arraycopy(proposeDelays, 0, sortedDelays, 0, samples);
            Arrays.sort(sortedDelays, 0, samples);
            quantile = sortedDelays[samples * 2 / 3];
        }
        long base = Math.max(config.proposeTimeoutTicks(), SLOW_FACTOR * quantile);
        return Math.min(base << timeoutLevel, requestTimeout());
    }

    private void recordProposeDelay(long ticks) {
        proposeDelays[proposeDelayCount++ % DELAY_SAMPLES] = (int) Math.min(ticks, Integer.MAX_VALUE);
    }

    /** The leader of instance {@code seq} in the current view, under the configured leader selection. */
    private int leader(long seq) {
        return config.leaderSelection() == LeaderSelection.BLACKLIST ? leaders.leader(seq, view, config)
                : config.leader(seq, view);
    }

    /** The leader of the pillar's first instance not committed here: whom a view change leaving now blames. */
    private int suspectOfThisView() {
        long s = firstAbove(low);
        while (true) {
            Slot slot = slots.get(s);
            if (slot == null || !slot.committed) {
                return leader(s);
            }
            s += config.pillars();
        }
    }

    // ------------------------------------------------------------------ normal case

    private boolean inWindow(long seq) {
        if (seq < 1 || config.pillarOf(seq) != pillar) {
            refuse(Refusal.WRONG_PILLAR);
            return false;
        }
        if (seq <= low || seq > low + config.watermarkWindow()) {
            refuse(Refusal.OUTSIDE_WATERMARKS);
            return false;
        }
        return true;
    }

    private boolean inView(long messageView, int from) {
        if (messageView > view) {
            viewChangeState.sawWorking(from, messageView);
            sawView(from, messageView);
        }
        if (changing || messageView != view) {
            refuse(Refusal.WRONG_VIEW);
            return false;
        }
        return true;
    }

    private void onPrePrepare(PrePrepare pp, int from) {
        if (!inView(pp.view(), from) || !inWindow(pp.seq())) {
            return;
        }
        if (leader(pp.seq()) != from) {
            // Not from the leader: usable only as a relayed body of a value 2f non-leaders prepared.
            if (!acceptRelayed(pp) && !plausibleRelay(pp)) {
                refuse(Refusal.WRONG_LEADER);
            }
            return;
        }
        if (!pp.digestMatches()) {
            refuse(Refusal.DIGEST_MISMATCH);
            return;
        }
        if (pp.request() != null) {
            if (pp.request().payload().length > config.maxRequestBytes()) {
                refuse(Refusal.REQUEST_TOO_LARGE);
                return;
            }
            if (!pp.request().verifiedFor(self, auth)) {
                refuse(Refusal.BAD_REQUEST_AUTH);
                return;
            }
        }
        acceptPrePrepare(pp, from);
    }

    private void acceptPrePrepare(PrePrepare pp, int proposer) {
        Slot slot = slot(pp.seq());
        if (slot.prePrepare != null) {
            if (!Arrays.equals(slot.prePrepare.digest(), pp.digest())) {
                refuse(Refusal.CONFLICTING_PRE_PREPARE);
            }
            return;
        }
        slot.prePrepare = pp;
        slot.proposer = proposer;
        recordPrePrepared(slot, pp);
        freshInView |= pp.seq() > newViewUpTo;
        if (proposer != self) {
            Prepare own = new Prepare(view, pp.seq(), pp.digest(), self);
            slot.ownPrepare = own;
            slot.prepares.put(self, own);
            multicast(own);
        }
        checkPrepared(pp.seq(), slot);
    }

    private void onPrepare(Prepare p, int from) {
        if (p.replica() != from) {
            refuse(Refusal.FORGED_SENDER);
            return;
        }
        if (!inView(p.view(), from) || !inWindow(p.seq())) {
            return;
        }
        Slot slot = slot(p.seq());
        Prepare earlier = slot.prepares.putIfAbsent(from, p);
        if (earlier != null && !Arrays.equals(earlier.digest(), p.digest())) {
            refuse(Refusal.EQUIVOCATION);
            return;
        }
        if (slot.prePrepare == null) {
            preparedWithoutPrePrepare(p.seq(), slot, null);
        }
        checkPrepared(p.seq(), slot);
    }

    /**
     * A PRE-PREPARE relayed by a replica other than the leader (a correct one relays the leader's
     * to a replica that shows it lags): accepted only if this replica has none for the instance, the
     * body matches the digest, and 2f non-leaders prepared that digest. Never from the relayer's word.
     */
    private boolean acceptRelayed(PrePrepare pp) {
        Slot slot = slots.get(pp.seq());
        if (slot == null || slot.prePrepare != null || !pp.digestMatches()
                || (pp.request() != null && pp.request().payload().length > config.maxRequestBytes())) {
            return false;
        }
        return preparedWithoutPrePrepare(pp.seq(), slot, pp);
    }

    /**
     * Whether a relay this replica cannot use could still come from a correct replica, so that it is
     * dropped without counting a refusal: not needed (this pre-prepare is here already), early (the
     * PREPAREs that make it usable are not all here yet), or anything while this replica holds no
     * pre-prepare. Refused: a body that does not match its digest, or a digest other than the one
     * pre-prepared here that no non-leader prepared.
     */
    private boolean plausibleRelay(PrePrepare pp) {
        if (!pp.digestMatches()) {
            return false;
        }
        Slot slot = slots.get(pp.seq());
        if (slot == null || slot.prePrepare == null || Arrays.equals(slot.prePrepare.digest(), pp.digest())) {
            return true;
        }
        int leader = leader(pp.seq());
        for (Prepare p : slot.prepares.values()) {
            if (p.replica() != leader && Arrays.equals(p.digest(), pp.digest())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Accepts as pre-prepared, with no PRE-PREPARE from the leader, a digest d for which 2f replicas
     * other than the leader sent matching PREPAREs of this view, once the body of d is here (a relayed
     * pre-prepare, a pending request with digest d, or EMPTY). Safe: the 2f non-leaders include f+1
     * correct ones if the leader is faulty (two such sets of the 3f non-leaders share a correct one, so
     * no other digest can gain 2f), and f correct ones, who took d from the leader, if it is correct;
     * so d is the one value that can prepare at (view, seq), and this replica then prepares it at
     * once. The client MAC is not checked: a correct replica checked it (as for NEW-VIEW re-proposals).
     * Instances a NEW-VIEW decided are excluded (their pre-prepares came with it).
     *
     * @return whether it was accepted
     */
    private boolean preparedWithoutPrePrepare(long seq, Slot slot, PrePrepare relayed) {
        if (changing || slot.committed || slot.prePrepare != null || seq <= newViewUpTo
                || seq <= low || seq > low + config.watermarkWindow()) {
            return false;
        }
        int leader = leader(seq);
        byte[] digest = null;
        Map<String, Integer> counts = new HashMap<>();
        for (Prepare p : slot.prepares.values()) {
            if (p.replica() != leader && p.view() == view) {
                String key = Arrays.toString(p.digest());
                if (counts.merge(key, 1, Integer::sum) >= 2 * config.f()) {
                    digest = p.digest(); // unique: two digests with 2f each would need 4f > 3f - 1 voters
                }
            }
        }
        if (digest == null) {
            return false;
        }
        PrePrepare pp = null;
        if (relayed != null) {
            if (relayed.view() == view && Arrays.equals(relayed.digest(), digest)) {
                pp = relayed;
            }
        } else if (PbftDigests.isEmpty(digest)) {
            pp = PrePrepare.empty(view, seq);
        } else {
            for (Pending p : pending.values()) {
                if (Arrays.equals(p.request.digest(), digest)) {
                    pp = new PrePrepare(view, seq, digest, p.request);
                    break;
                }
            }
        }
        if (pp == null) {
            return false; // the body is not here yet: a relay will bring it
        }
        acceptPrePrepare(pp, leader);
        return true;
    }

    private void onCommit(Commit c, int from) {
        if (c.replica() != from) {
            refuse(Refusal.FORGED_SENDER);
            return;
        }
        if (changing || c.view() != view) {
            learnCommitted(c, from);
        }
        if (!inView(c.view(), from) || !inWindow(c.seq())) {
            return;
        }
        Slot slot = slot(c.seq());
        Commit earlier = slot.commits.putIfAbsent(from, c);
        if (earlier != null && !Arrays.equals(earlier.digest(), c.digest())) {
            refuse(Refusal.EQUIVOCATION);
            return;
        }
        checkCommitted(c.seq(), slot);
        if (!slot.committed) {
            learnCommittedInView(c, slot);
        }
    }

    /**
     * Learns a decision of this view from 2f+1 matching COMMITs although this replica did not prepare it: it
     * pre-prepared another value (an equivocating leader sent it one; with f ≥ 2 the others can prepare theirs
     * with f+1 correct and f−1 faulty non-leaders) or none. 2f+1 COMMITs mean f+1 correct replicas prepared it,
     * so it is committed, as for {@link #learnCommitted}. This replica sends nothing for it and keeps its own
     * (unprepared) pre-prepare, so its VIEW-CHANGE stays true. The body: the pre-prepare held here if it matches,
     * a pending request with that digest, or none for EMPTY; else a retransmission brings it later.
     */
    private void learnCommittedInView(Commit c, Slot slot) {
        int matching = 0;
        for (Commit v : slot.commits.values()) {
            matching += Arrays.equals(v.digest(), c.digest()) ? 1 : 0;
        }
        if (matching < commitQuorum) {
            return;
        }
        Request body = null;
        if (!PbftDigests.isEmpty(c.digest())) {
            if (slot.prePrepare != null && slot.prePrepare.request() != null
                    && Arrays.equals(slot.prePrepare.digest(), c.digest())) {
                body = slot.prePrepare.request();
            } else {
                body = pendingWithDigest(c.digest());
            }
            if (body == null) {
                return;
            }
        }
        slot.committed = true;
        committed(c.seq(), view, body, c.digest());
    }

    private Request pendingWithDigest(byte[] digest) {
        for (Pending p : pending.values()) {
            if (Arrays.equals(p.request.digest(), digest)) {
                return p.request;
            }
        }
        return null;
    }

    /**
     * Learns a decision from 2f+1 matching COMMITs of a view this pillar is not in (a replica that
     * timed out alone waits in its view change while the others go on). 2f+1 COMMITs mean f+1 correct
     * replicas prepared it, so it is committed; this replica sends nothing and prepares nothing, so its
     * VIEW-CHANGE stays true. It needs the request's body: a pre-prepare or pending request with that
     * digest, or none for EMPTY.
     */
    private void learnCommitted(Commit c, int from) {
        long s = c.seq();
        if (s < 1 || config.pillarOf(s) != pillar || s <= low || s > low + config.watermarkWindow()) {
            return;
        }
        Slot slot = slots.get(s);
        if (slot != null && slot.committed) {
            return;
        }
        Map<Integer, Commit> votes = otherViewCommits.computeIfAbsent(s, k -> new HashMap<>());
        Commit earlier = votes.get(from);
        if (earlier == null || earlier.view() < c.view()) {
            votes.put(from, c);
        }
        int matching = 0;
        for (Commit v : votes.values()) {
            matching += v.view() == c.view() && Arrays.equals(v.digest(), c.digest()) ? 1 : 0;
        }
        if (matching < commitQuorum) {
            return;
        }
        Request body = null;
        if (!PbftDigests.isEmpty(c.digest())) {
            if (slot != null && slot.prePrepare != null && slot.prePrepare.request() != null
                    && Arrays.equals(slot.prePrepare.digest(), c.digest())) {
                body = slot.prePrepare.request();
            } else {
                for (Pending p : pending.values()) {
                    if (Arrays.equals(p.request.digest(), c.digest())) {
                        body = p.request;
                        break;
                    }
                }
            }
            if (body == null) {
                return; // the request has not reached this replica yet; its retransmission will
            }
        }
        Slot learned = slot(s);
        learned.committed = true;
        otherViewCommits.remove(s);
        committed(s, c.view(), body, c.digest());
    }

    /** Prepared: the pre-prepare plus 2f matching prepares from replicas other than its proposer. */
    private void checkPrepared(long seq, Slot slot) {
        if (slot.prepared || slot.prePrepare == null) {
            return;
        }
        List<Prepare> matching = new ArrayList<>();
        for (Prepare p : slot.prepares.values()) {
            if (p.replica() != slot.proposer && Arrays.equals(p.digest(), slot.prePrepare.digest())) {
                matching.add(p);
            }
        }
        if (matching.size() < 2 * config.f()) {
            return;
        }
        matching.sort((a, b) -> Integer.compare(a.replica(), b.replica()));
        slot.prepared = true;
        slot.preparedAt = now;
        slot.preparedIn = slot.prePrepare;
        Commit own = new Commit(view, seq, slot.prePrepare.digest(), self);
        slot.ownCommit = own;
        multicast(own);
        Commit earlier = slot.commits.put(self, own);
        if (earlier != null && !earlier.equals(own)) {
            refuse(Refusal.EQUIVOCATION); // cannot happen for our own vote; kept for symmetry
        }
        checkCommitted(seq, slot);
    }

    /** Committed-local: prepared plus 2f+1 matching commits (its own included). */
    private void checkCommitted(long seq, Slot slot) {
        if (slot.committed || !slot.prepared) {
            return;
        }
        int matching = 0;
        for (Commit c : slot.commits.values()) {
            if (Arrays.equals(c.digest(), slot.prePrepare.digest())) {
                matching++;
            }
        }
        if (matching < commitQuorum) {
            return;
        }
        slot.committed = true;
        PrePrepare pp = slot.prePrepare;
        committed(seq, view, pp.request(), pp.digest());
        viewChangeState.viewWorks(); // the next view change starts short again
        if (++commitsInView >= CLEAN_VIEW_COMMITS && timeoutLevel > 0 && now - timeoutLevelSince >= TIMEOUT_DECAY_TICKS) {
            timeoutLevel--; // a clean view for a while: timeouts come down one step
            timeoutLevelSince = now;
        }
    }

    private void committed(long seq, long inView, Request request, byte[] digest) {
        outbox.output(new Committed(seq, inView, request, digest));
        if (request != null) {
            Request r = request;
            lastOrdered.merge(r.client(), r.number(), Math::max);
            // Only this request is ordered: a lane pipelines its numbers, and after a view change (or under a
            // Byzantine leader) a higher number can be ordered first; the lower ones stay pending until ordered.
            pending.remove(r.id());
        }
        lastProgress = now;
    }

    /**
     * Adds {@code pp} to the instance's Q set: per digest the highest view it was pre-prepared in here.
     * At most {@code n} digests are kept per instance (the lowest view goes first): a correct replica
     * accepts one pre-prepare per view, so only a run of view changes with different values can reach it.
     */
    private void recordPrePrepared(Slot slot, PrePrepare pp) {
        slot.prePrepared.removeIf(q -> Arrays.equals(q.digest(), pp.digest()));
        slot.prePrepared.add(new PrePrepared(pp.seq(), pp.view(), pp.digest()));
        if (slot.prePrepared.size() > maxPrePreparedPerSeq()) {
            slot.prePrepared.sort((a, b) -> Long.compare(a.view(), b.view()));
            slot.prePrepared.remove(0);
        }
    }

    private int maxPrePreparedPerSeq() {
        return rules.maxPrePreparedPerSeq();
    }

    private Slot slot(long seq) {
        return slots.computeIfAbsent(seq, s -> new Slot());
    }

    // ------------------------------------------------------------------ checkpoints

    private void onCheckpoint(Checkpoint c, int from) {
        installIfStable(checkpoints.onCheckpoint(c, from));
    }

    /** Installs (and announces) a checkpoint the votes made stable; nothing if {@code stable} is null. */
    private void installIfStable(StableCheckpoint stable) {
        if (stable != null) {
            installStable(stable.seq(), stable.stateDigest(), stable.proof(), true);
        }
    }

    private void installStable(long seq, byte[] digest, List<Checkpoint> proof, boolean announce) {
        low = seq;
        if (recoveringUpTo == UNTIL_FIRST_STABLE_CHECKPOINT) {
            recoveringUpTo = seq + config.watermarkWindow();
        }
        checkpoints.install(seq, digest, proof);
        slots.headMap(seq, true).clear();
        otherViewCommits.headMap(seq, true).clear();
        if (announce) {
            outbox.output(new StableCheckpoint(seq, digest, proof));
        }
    }

    // ------------------------------------------------------------------ view change

    private void sawView(int from, long v) {
        OptionalLong join = viewChangeState.sawView(from, v, changing ? viewChangeState.targetView() : view);
        if (join.isPresent()) {
            // f+1 replicas are in higher views, so at least one correct one is: join the smallest such view.
            startViewChange(join.getAsLong(), ViewChangeCause.JOINED_HIGHER_VIEW);
        }
    }

    /**
     * The view to change to after view {@code v}: the next one whose primary the leader policy of the current view
     * does not keep out at the view's first undecided instance. The policy and that instance come from the installed
     * NEW-VIEW, so every correct replica in this view picks the same target; a primary known to be faulty would only
     * cost a view-change timeout. At most f views are skipped. Safety does not care which higher view is next.
     */
    private long nextView(long v) {
        long next = v + 1;
        if (config.leaderSelection() == LeaderSelection.BLACKLIST) {
            for (int skipped = 0; skipped < config.f() && leaders.excluded(config.primary(next), policyFrom, config); skipped++) {
                next++;
            }
        }
        return next;
    }

    private void complain(long target, ViewChangeCause cause) {
        complaintCause = cause;
        viewChangeState.complain(self, target);
        multicast(new Complaint(target, self));
        checkComplaints();
    }

    private void onComplaint(Complaint c, int from) {
        if (c.replica() != from) {
            refuse(Refusal.FORGED_SENDER);
            return;
        }
        if (c.newView() <= view) {
            refuse(Refusal.STALE_VIEW);
            return;
        }
        if (viewChangeState.complaint(from, c.newView())) {
            complainedAt[from] = now;
        }
        checkComplaints();
    }

    /** Acts on the complaints against this view: complain too (f+1), or leave it (2f+1). */
    private void checkComplaints() {
        if (changing) {
            return;
        }
        switch (viewChangeState.complaintStep(view)) {
            case LEAVE -> startViewChange(nextView(view),
                    complaintCause != null ? complaintCause : ViewChangeCause.OTHERS_COMPLAINED);
            case COMPLAIN -> complain(nextView(view), ViewChangeCause.OTHERS_COMPLAINED);
            case NONE -> { }
        }
    }

    private void startViewChange(long target, ViewChangeCause cause) {
        if (!changing) {
            suspect = suspectOfThisView();
        }
        leftBecause = cause;
        complaintCause = null;
        changing = true;
        List<PrePrepare> prepared = new ArrayList<>();
        List<PrePrepared> prePrepared = new ArrayList<>();
        for (Map.Entry<Long, Slot> e : slots.entrySet()) {
            if (e.getKey() <= low) {
                continue;
            }
            Slot slot = e.getValue();
            if (slot.preparedIn != null) {
                prepared.add(slot.preparedIn);
            }
            List<PrePrepared> q = new ArrayList<>(slot.prePrepared);
            q.sort((x, y) -> Long.compare(x.view(), y.view())); // canonical order: the signature covers it
            prePrepared.addAll(q);
        }
        ViewChange vc = ViewChange.signed(pillar, target, low, checkpoints.stableProof(), prepared, prePrepared, suspect,
                leaders, self, auth);
        viewChangeState.start(vc, now);
        multicast(vc);
        tryNewView(target);
    }

    private void onViewChange(ViewChange vc, int from) {
        if (vc.replica() != from) {
            refuse(Refusal.FORGED_SENDER);
            return;
        }
        if (!vc.equals(viewChangeState.latest(from))) { // a retransmission was verified already
            Refusal bad = rules.checkViewChange(vc);
            if (bad != null) {
                refuse(bad);
                return;
            }
        }
        if (!changing && vc.newView() == view) {
            rejoinedAt[from] = now; // it (re)joins this view: it lacks what was ordered before, so it gets all of it
        }
        if (!changing && vc.newView() == view && viewChangeState.sentNewView() != null) {
            // The sender missed our NEW-VIEW: send it again.
            send(from, viewChangeState.sentNewView());
            return;
        }
        if (vc.newView() <= view) {
            refuse(Refusal.STALE_VIEW);
            return;
        }
        viewChangeState.accept(from, vc);
        // A VIEW-CHANGE is also a complaint against this view: its sender no longer resends its complaint.
        viewChangeState.complaint(from, vc.newView());
        checkComplaints();
        sawView(from, vc.newView());
        tryNewView(vc.newView());
    }

    /**
     * As the primary of {@code v}: with at least 2f+1 VIEW-CHANGEs for {@code v} (ours among them) from
     * which every instance can be decided, send NEW-VIEW. If some instance cannot be decided yet (a
     * VIEW-CHANGE claims what no f+1 back), it waits for more, up to all n.
     */
    private void tryNewView(long v) {
        if (!changing || viewChangeState.targetView() != v || config.primary(v) != self) {
            return;
        }
        List<ViewChange> set = viewChangeState.viewChangesFor(v);
        if (set.size() < config.quorum()) {
            return;
        }
        List<PrePrepare> choices = rules.decide(v, set);
        if (choices == null) {
            return;
        }
        NewView nv = new NewView(v, set, choices, self);
        multicast(nv);
        installView(nv);
        viewChangeState.sentNewView(nv);
    }

    private void onNewView(NewView nv, int from) {
        if (nv.replica() != from) {
            refuse(Refusal.FORGED_SENDER);
            return;
        }
        if (config.primary(nv.view()) != from) {
            refuse(Refusal.BAD_NEW_VIEW);
            return;
        }
        if (nv.view() < view || (nv.view() == view && !changing) || (changing && nv.view() < viewChangeState.targetView())) {
            refuse(Refusal.STALE_VIEW);
            return;
        }
        if (rules.checkNewView(nv, viewChangeState::latest) != null) {
            refuse(Refusal.BAD_NEW_VIEW);
            return;
        }
        installView(nv);
    }

    /** Enters the NEW-VIEW's view: adopts its checkpoint if newer, and accepts its pre-prepares. */
    private void installView(NewView nv) {
        ViewChange newest = NewViewRules.newestCheckpoint(nv.viewChanges());
        if (newest != null && newest.stableSeq() > low) {
            installStable(newest.stableSeq(), newest.stableProof().get(0).stateDigest(), newest.stableProof(), true);
        }
        view = nv.view();
        changing = false;
        filledBelow = 0; // the pre-prepares go: instances filled only by one are unfilled again
        for (Slot slot : slots.values()) {
            slot.prePrepare = null;
            slot.proposer = -1;
            slot.prepares.clear();
            slot.commits.clear();
            slot.prepared = false;
            slot.ownPrepare = null;
            slot.ownCommit = null;
            slot.fromNewView = false;
            slot.retransmitRounds = 0;
        }
        viewChangeState.installed(view);
        lastProgress = now; // timers restart in the new view
        commitsInView = 0;
        freshInView = false;
        dueSince = -1;
        int primary = config.primary(view);
        newViewUpTo = low;
        long decidedUpTo = newest == null ? 0 : newest.stableSeq(); // from the NEW-VIEW alone: the same everywhere
        for (PrePrepare pp : nv.prePrepares()) {
            decidedUpTo = Math.max(decidedUpTo, pp.seq());
        }
        boolean suspectedAgain = false;
        if (config.leaderSelection() == LeaderSelection.BLACKLIST) {
            LeaderPolicy before = leaders;
            policyFrom = firstAbove(decidedUpTo);
            leaders = LeaderPolicy.agreed(nv.viewChanges(), policyFrom, config);
            suspectedAgain = leaders.suspectedAgain(before, n);
        }
        if (!suspectedAgain) {
            // A view change raises the timeouts for a while: on an overloaded machine a correct leader may have been
            // suspected spuriously. One that struck a leader suspected before (readmitted after its backoff and
            // failing again) says nothing about the machine's timing; raising them then would make every later
            // readmission of a crashed leader cost doubled timeouts.
            timeoutLevel = Math.min(timeoutLevel + 1, MAX_TIMEOUT_LEVEL);
            timeoutLevelSince = now;
        }
        for (PrePrepare pp : nv.prePrepares()) {
            newViewUpTo = Math.max(newViewUpTo, pp.seq());
            if (pp.seq() > low && pp.seq() <= low + config.watermarkWindow()) {
                slot(pp.seq()).fromNewView = true;
                acceptPrePrepare(pp, primary);
            }
        }
    }

    // ------------------------------------------------------------------ output

    private void retransmit() {
        if (changing) {
            ViewChange own = viewChangeState.latest(self);
            if (own != null) {
                multicast(own);
            }
        } else {
            boolean anyCatchingUp = false;
            for (int r = 0; r < n; r++) {
                catchingUp[r] = r != self && (recent(rejoinedAt[r])
                        || (recent(complainedAt[r]) && viewChangeState.complains(r, view)));
                anyCatchingUp |= catchingUp[r];
            }
            for (Slot slot : slots.values()) {
                // Rounds 1, 2, 4, 8, ... of the instance to everyone: a loss is repaired soon, and an idle cluster does
                // not resend what lies above its last stable checkpoint for ever. Every round, for a few rounds, to a
                // replica that just complained (it stalls) or rejoined this view (a new incarnation, whose
                // predecessor's messages are here).
                boolean due = Long.bitCount(++slot.retransmitRounds) == 1;
                if (!due && !anyCatchingUp) {
                    continue;
                }
                for (int r = 0; r < n; r++) {
                    if (r == self || (!due && !catchingUp[r])) {
                        continue;
                    }
                    // Pre-prepares a NEW-VIEW re-proposed travel only inside it (resent on a late VIEW-CHANGE).
                    if (slot.prePrepare != null && slot.proposer == self && leader(slot.prePrepare.seq()) == self
                            && !slot.fromNewView) {
                        send(r, slot.prePrepare);
                    }
                    if (slot.ownPrepare != null) {
                        send(r, slot.ownPrepare);
                    }
                    if (slot.ownCommit != null) {
                        send(r, slot.ownCommit);
                    }
                }
            }
            if (viewChangeState.complainedFor() > view) {
                multicast(new Complaint(viewChangeState.complainedFor(), self));
            }
            relayToLaggards();
            int resent = 0;
            for (Pending p : pending.values()) {
                if (resent++ >= 8) {
                    break;
                }
                multicast(p.request);
            }
        }
        for (Checkpoint own : checkpoints.ownVotes()) {
            multicast(own);
        }
        for (Checkpoint c : checkpoints.stableProof()) {
            if (c.replica() == self) {
                multicast(c); // lets a lagging replica learn h
            }
        }
    }

    /**
     * Relays the leader's pre-prepare of instances prepared here to replicas whose PREPARE and COMMIT for them
     * are missing a retransmission round later, if they complain against this view or the instance committed
     * here: they may lack it because a faulty leader stopped sending it (it garbage-collected after a checkpoint
     * only it made stable), and a quiet system would give them no other chance, also when they miss only its
     * tail and wait for nothing. Bounded by {@link #RELAYS_PER_RETRANSMIT} per round.
     */
    private void relayToLaggards() {
        int relayed = 0;
        for (Slot slot : slots.values()) {
            PrePrepare pp = slot.prePrepare;
            if (!slot.prepared || now - slot.preparedAt < config.retransmitTicks() || pp == null || slot.fromNewView
                    || pp.seq() <= newViewUpTo || slot.proposer == self || slot.proposer != leader(pp.seq())) {
                continue;
            }
            for (int r = 0; r < n; r++) {
                if (r != self && r != slot.proposer && !slot.prepares.containsKey(r) && !slot.commits.containsKey(r)
                        && (slot.committed || viewChangeState.complains(r, view))) {
                    if (relayed++ >= RELAYS_PER_RETRANSMIT) {
                        return;
                    }
                    send(r, pp);
                }
            }
        }
    }

    /** Whether {@code tick} (-1: never) lies within the last {@link #CATCH_UP_ROUNDS} retransmission rounds. */
    private boolean recent(long tick) {
        return tick >= 0 && now - tick <= CATCH_UP_ROUNDS * (long) config.retransmitTicks();
    }

    private void multicast(PbftMessage m) {
        for (int r = 0; r < n; r++) {
            if (r != self) {
                send(r, m);
            }
        }
    }

    private void send(int to, PbftMessage m) {
        outbox.send(PbftEnvelope.seal(self, to, pillar, m, auth));
    }

    private void refuse(Refusal reason) {
        refusals.merge(reason, 1L, Long::sum);
    }
}
