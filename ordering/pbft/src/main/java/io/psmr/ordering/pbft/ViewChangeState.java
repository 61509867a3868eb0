package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One pillar's view-change state at one replica, and the decisions taken from it: the complaints
 * against the current view (when to complain too, when to leave), the views other replicas were seen
 * in (when to join a higher one), the latest VIEW-CHANGE of each replica (when the new primary may send
 * NEW-VIEW), the view-change timer (counted in ticks) and the NEW-VIEW this replica sent as primary.
 * The pillar keeps the installed view and whether it is leaving it, and acts on the decisions.
 *
 * <p>Pure: no clock, thread or socket; the time is a tick count the pillar passes in. Not thread-safe:
 * the pillar's thread calls every method.
 */
final class ViewChangeState {

    /** What the complaints against the current view call for. */
    enum ComplaintStep {
        /** Nothing. */
        NONE,
        /** f+1 complain (so at least one correct replica): complain too. */
        COMPLAIN,
        /** 2f+1 complain (so f+1 correct ones, and every correct replica will see f+1): leave the view. */
        LEAVE
    }

    private final PbftConfig config;

    private long targetView;
    private long startedAt;
    private long askedAgainFor = -1; // the target view whose NEW-VIEW this replica asked for once more
    private long timeout;
    private NewView sentNewView;
    /** The view this replica complained for (at or below the current view: none in this view). */
    private long complainedFor;
    /** Each replica's highest complaint, for views above the current one. */
    private final Map<Integer, Long> complaints = new HashMap<>();
    private final Map<Integer, ViewChange> latest = new HashMap<>();
    private final Map<Integer, Long> highestViewSeen = new HashMap<>();
    private final Map<Integer, Long> highestViewWorking = new HashMap<>(); // from normal-case messages only

    /** In view 0, with no complaint, and the view-change timeout at {@code requestTimeoutTicks}. */
    ViewChangeState(PbftConfig config) {
        this.config = config;
        this.timeout = config.requestTimeoutTicks();
    }

    /** The view being changed to (once installed: the installed view). */
    long targetView() {
        return targetView;
    }

    // ------------------------------------------------------------------ complaints

    /** The view this replica complained for (at or below the current view: none in this view). */
    long complainedFor() {
        return complainedFor;
    }

    /** This replica ({@code self}) complains for {@code target}. */
    void complain(int self, long target) {
        complainedFor = target;
        complaints.merge(self, target, Math::max);
    }

    /**
     * Replica {@code from} complains for {@code target} (a VIEW-CHANGE for it counts as one). Returns whether the
     * complaint is new: for a higher view than any earlier one of {@code from} (not a retransmission).
     */
    boolean complaint(int from, long target) {
        Long before = complaints.get(from);
        complaints.merge(from, target, Math::max);
        return before == null || target > before;
    }

    /** Whether {@code replica} complains against {@code view}. */
    boolean complains(int replica, long view) {
        return complaints.getOrDefault(replica, 0L) > view;
    }

    /**
     * What the complaints against {@code view} call for; a complaint for a later view also counts
     * against this one. COMPLAIN only if this replica has not complained in this view yet.
     */
    ComplaintStep complaintStep(long view) {
        int against = 0;
        for (long target : complaints.values()) {
            against += target > view ? 1 : 0;
        }
        if (against >= config.quorum()) {
            return ComplaintStep.LEAVE;
        } else if (against >= config.f() + 1 && complainedFor <= view) {
            return ComplaintStep.COMPLAIN;
        }
        return ComplaintStep.NONE;
    }

    // ------------------------------------------------------------------ views seen

    /**
     * Replica {@code from} was seen in view {@code v}. If f+1 replicas are in views above
     * {@code current} (so at least one correct one is), returns the smallest view among them to join.
     */
    OptionalLong sawView(int from, long v, long current) {
        highestViewSeen.merge(from, v, Math::max);
        return joinable(current);
    }

    /**
     * Replica {@code from} sent a normal-case message (PRE-PREPARE, PREPARE, COMMIT) of view {@code v}: it installed
     * {@code v} ({@link #installedByOthers}). The caller records the view seen with {@link #sawView} too.
     */
    void sawWorking(int from, long v) {
        highestViewWorking.merge(from, v, Math::max);
    }

    /**
     * Whether f+1 replicas were seen working in view {@code v} or above, so at least one correct replica installed a
     * NEW-VIEW there. A replica changing to {@code v} whose view change did not complete then only missed that NEW-VIEW
     * (if they work in {@code v}) or joins their higher view by the f+1 rule ({@link #joinable}).
     */
    boolean installedByOthers(long v) {
        int count = 0;
        for (long working : highestViewWorking.values()) {
            if (working >= v) {
                count++;
            }
        }
        return count >= config.f() + 1;
    }

    /**
     * After {@link #timerExpired}: whether to ask once more for the target view's NEW-VIEW instead of trying the next
     * view. Once per target view, and only if f+1 replicas work in it ({@link #installedByOthers}): its NEW-VIEW exists
     * and only missed this replica. If so the timer restarts at {@code now}, with the timeout doubled already. Not
     * more than once: the primary that sent that NEW-VIEW may have crashed since, and then this replica's VIEW-CHANGE
     * for the next view is the complaint that brings the others along.
     */
    boolean askAgain(long now) {
        if (askedAgainFor == targetView || !installedByOthers(targetView)) {
            return false;
        }
        askedAgainFor = targetView;
        startedAt = now;
        return true;
    }

    /**
     * The views seen so far: if f+1 replicas were seen in views above {@code current}, the smallest view among
     * them to join ({@link #sawView}); nothing is recorded.
     */
    OptionalLong joinable(long current) {
        List<Long> views = new ArrayList<>();
        for (long seen : highestViewSeen.values()) {
            if (seen > current) {
                views.add(seen);
            }
        }
        if (views.size() < config.f() + 1) {
            return OptionalLong.empty();
        }
        views.sort((a, b) -> Long.compare(b, a));
        return OptionalLong.of(views.get(config.f()));
    }

    /** The highest view each replica was seen in (index = replica; -1: none seen above the view it was in then). */
    long[] viewsSeen() {
        long[] out = new long[config.replicaCount()];
        Arrays.fill(out, -1);
        highestViewSeen.forEach((r, v) -> out[r] = v);
        return out;
    }

    /**
     * Adds the views an incarnation this one replaces saw ({@link #viewsSeen}; -1: none), without acting on them:
     * {@link #joinable} does. They came in messages that incarnation authenticated, as {@link #sawView}'s do. They
     * also count as views the others work in ({@link #installedByOthers}): a new incarnation joins the view they are in
     * at its first tick and asks for that view's NEW-VIEW once more if the first answer is slow to arrive. Should
     * the others only have wanted that view, this costs one view-change timeout before it tries the next.
     *
     * @throws IllegalArgumentException if {@code seen} does not have one entry per replica
     */
    void rememberSeen(long[] seen) {
        if (seen.length != config.replicaCount()) {
            throw new IllegalArgumentException("views seen of " + seen.length + " replicas; the cluster has "
                    + config.replicaCount());
        }
        for (int r = 0; r < seen.length; r++) {
            if (seen[r] >= 0) {
                highestViewSeen.merge(r, seen[r], Math::max);
                highestViewWorking.merge(r, seen[r], Math::max);
            }
        }
    }

    // ------------------------------------------------------------------ VIEW-CHANGEs and the timer

    /**
     * This replica left its view for {@code own.newView()} at tick {@code now}, with VIEW-CHANGE {@code own}:
     * the timer restarts and no NEW-VIEW has been sent for it.
     */
    void start(ViewChange own, long now) {
        targetView = own.newView();
        startedAt = now;
        sentNewView = null;
        latest.put(own.replica(), own);
    }

    /** The latest VIEW-CHANGE verified from {@code replica} (this replica's own included), or null. */
    ViewChange latest(int replica) {
        return latest.get(replica);
    }

    /** Records a verified VIEW-CHANGE of {@code from} unless one for a higher view is held already. */
    void accept(int from, ViewChange vc) {
        ViewChange earlier = latest.get(from);
        if (earlier == null || earlier.newView() <= vc.newView()) {
            latest.put(from, vc);
        }
    }

    /** The held VIEW-CHANGEs for exactly view {@code v}, in replica order. */
    List<ViewChange> viewChangesFor(long v) {
        List<ViewChange> set = new ArrayList<>();
        for (int r = 0; r < config.replicaCount(); r++) {
            ViewChange vc = latest.get(r);
            if (vc != null && vc.newView() == v) {
                set.add(vc);
            }
        }
        return set;
    }

    /**
     * Whether 2f+1 replicas want the target view or a higher one, or are seen in one. A replica already in the
     * target view sends no VIEW-CHANGE for it any more; if its primary restarted and cannot resend its NEW-VIEW, the
     * replicas still changing must time out and move on, and their VIEW-CHANGEs for the next view are the
     * complaints that bring the others along.
     */
    boolean quorumForTarget() {
        int count = 0;
        for (int r = 0; r < config.replicaCount(); r++) {
            ViewChange vc = latest.get(r);
            if ((vc != null && vc.newView() >= targetView) || highestViewSeen.getOrDefault(r, -1L) >= targetView) {
                count++;
            }
        }
        return count >= config.quorum();
    }

    /**
     * One tick at {@code now} while changing views. As in PBFT, the timer runs only once 2f+1 replicas
     * want the target view (or are in it): a replica alone in a view change waits for the others instead of racing to
     * ever higher views. On expiry the timeout doubles (up to {@code maxViewChangeTimeoutTicks}).
     *
     * @return whether the view change did not complete in time: the pillar tries the next view
     */
    boolean timerExpired(long now) {
        if (!quorumForTarget()) {
            startedAt = now;
            return false;
        }
        if (now - startedAt >= timeout) {
            timeout = Math.min(2L * timeout, config.maxViewChangeTimeoutTicks());
            return true;
        }
        return false;
    }

    /** Something committed: the view works, and the next view change starts with the short timeout again. */
    void viewWorks() {
        timeout = config.requestTimeoutTicks();
    }

    /** The NEW-VIEW this replica sent as primary of the current view, or null. */
    NewView sentNewView() {
        return sentNewView;
    }

    /** This replica, as primary, sent {@code nv}; it resends it to any replica whose VIEW-CHANGE arrives late. */
    void sentNewView(NewView nv) {
        sentNewView = nv;
    }

    /** View {@code view} is installed: complaints, views seen and VIEW-CHANGEs up to it are forgotten. */
    void installed(long view) {
        targetView = view;
        latest.values().removeIf(vc -> vc.newView() <= view);
        complaints.values().removeIf(t -> t <= view);
        highestViewSeen.values().removeIf(v -> v <= view);
        highestViewWorking.values().removeIf(v -> v <= view);
    }
}
