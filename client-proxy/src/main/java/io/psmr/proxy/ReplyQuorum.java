package io.psmr.proxy;

import io.psmr.kvstore.KvResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The votes of the replicas on one command's result, and the rule of a {@link ReplyTrust} that decides it: under
 * {@link ReplyTrust#FIRST_REPLY} the first reply decides; under {@link ReplyTrust#matching MATCHING(f)} a result is
 * decided once {@code f + 1} distinct replicas of the set gave it, and the command is lost to disagreement once no
 * answer can reach {@code f + 1} any more (its votes plus the replicas not heard from fall short).
 *
 * <p>Under MATCHING the quorum keeps one slot per replica of the set (a fixed array of n results, nothing else): a
 * replica's first reply fills its slot, a later one from it is a {@link Outcome#DUPLICATE} and changes nothing, and a
 * reply from a replica outside the set is refused as {@link Outcome#UNKNOWN_REPLICA}. Under FIRST_REPLY it keeps
 * only whether the command is decided, so it reports neither duplicates nor conflicts.
 *
 * <p>Pure: no clocks, no threads. Not thread-safe; a {@link ClientProxy} holds one per outstanding command and
 * offers replies to it under the quorum's monitor, from whichever replica thread delivers them.
 */
final class ReplyQuorum {

    /** What one offered reply did. */
    enum Outcome {
        /** Its replica is outside the set (MATCHING only); ignored. */
        UNKNOWN_REPLICA,
        /** Its replica already voted on this command (MATCHING only); ignored, the first vote stands. */
        DUPLICATE,
        /** Counted; no result is decided yet. */
        PENDING,
        /** It decided the result: the first reply, or the {@code (f+1)}th matching one; see {@link #decided()}. */
        DECIDED,
        /** It left no answer able to reach {@code f + 1}: the command is lost to disagreement. */
        DISAGREED,
        /** The command was already decided or lost to disagreement; counted (MATCHING) and otherwise ignored. */
        SETTLED
    }

    /** One distinct answer and the replicas (ids, in the set's sorted order) that gave it. */
    record Answer(KvResult result, List<Integer> replicas) {
    }

    private final ReplyTrust trust;
    /** MATCHING: each replica's first answer, by its slot in the set; null under FIRST_REPLY. */
    private final KvResult[] votes;
    private KvResult decided;
    private boolean disagreed;

    /** A quorum with no votes yet, deciding as {@code trust} says. */
    ReplyQuorum(ReplyTrust trust) {
        this.trust = Objects.requireNonNull(trust, "trust");
        this.votes = trust.isMatching() ? new KvResult[trust.replicaCount()] : null;
    }

    /**
     * Counts {@code result} as the vote of {@code replicaId} and says what it did.
     *
     * @param replicaId the id the reply carries
     * @param result    the result it answers; compared with {@link KvResult#equals}
     */
    Outcome offer(int replicaId, KvResult result) {
        Objects.requireNonNull(result, "result");
        if (votes == null) {
            if (decided != null) {
                return Outcome.SETTLED;
            }
            decided = result;
            return Outcome.DECIDED;
        }
        int slot = trust.slotOf(replicaId);
        if (slot < 0) {
            return Outcome.UNKNOWN_REPLICA;
        }
        if (votes[slot] != null) {
            return Outcome.DUPLICATE;
        }
        votes[slot] = result;
        if (decided != null || disagreed) {
            return Outcome.SETTLED;
        }
        int quorum = trust.quorum();
        int same = 0;
        int filled = 0;
        for (KvResult v : votes) {
            if (v != null) {
                filled++;
                if (v.equals(result)) {
                    same++;
                }
            }
        }
        if (same >= quorum) {
            decided = result;
            return Outcome.DECIDED;
        }
        int empty = votes.length - filled;
        // Only the new vote's answer changed count; the cheap test first, the O(n^2) one only near the end.
        if (empty < quorum && largestGroup() + empty < quorum) {
            disagreed = true;
            return Outcome.DISAGREED;
        }
        return Outcome.PENDING;
    }

    /** The decided result, or null while none is (always null once {@link #disagreed()}). */
    KvResult decided() {
        return decided;
    }

    /** Whether no answer can reach {@code f + 1} any more (MATCHING only). */
    boolean disagreed() {
        return disagreed;
    }

    /**
     * How many counted votes conflict with the outcome: once a result is decided, those that differ from it; once
     * the command is lost to disagreement, every vote; before either, and always under FIRST_REPLY, none. A
     * caller that counts conflicting replies adds the change across each {@link #offer}.
     */
    int conflicting() {
        if (votes == null || (decided == null && !disagreed)) {
            return 0;
        }
        int n = 0;
        for (KvResult v : votes) {
            if (v != null && (disagreed || !v.equals(decided))) {
                n++;
            }
        }
        return n;
    }

    /** Each distinct answer counted so far, in the order of its first replica in the set (empty under FIRST_REPLY). */
    List<Answer> answers() {
        List<Answer> answers = new ArrayList<>();
        if (votes == null) {
            return answers;
        }
        int[] ids = trust.replicaIds();
        boolean[] listed = new boolean[votes.length];
        for (int a = 0; a < votes.length; a++) {
            if (votes[a] == null || listed[a]) {
                continue;
            }
            List<Integer> replicas = new ArrayList<>();
            for (int b = a; b < votes.length; b++) {
                if (votes[b] != null && !listed[b] && votes[b].equals(votes[a])) {
                    listed[b] = true;
                    replicas.add(ids[b]);
                }
            }
            answers.add(new Answer(votes[a], List.copyOf(replicas)));
        }
        return answers;
    }

    /** How many replicas of the set have not voted (0 under FIRST_REPLY, which has no set). */
    int silent() {
        if (votes == null) {
            return 0;
        }
        int n = 0;
        for (KvResult v : votes) {
            if (v == null) {
                n++;
            }
        }
        return n;
    }

    /**
     * Why no answer can win, for a {@link ReplyMismatchException}: each distinct answer and its replicas, and how
     * many replicas were not heard from.
     *
     * @param command which command, as the message names it (e.g. "command 0 of batch 3 of proxy 1 (READ ...)")
     */
    String describeDisagreement(String command) {
        StringBuilder sb = new StringBuilder();
        sb.append("the replicas disagree on ").append(command).append(": no answer can reach f+1 = ")
                .append(trust.quorum()).append(" matching replies of ").append(trust).append("; answers: ");
        boolean firstAnswer = true;
        for (Answer answer : answers()) {
            sb.append(firstAnswer ? "" : "; ").append(describe(answer.result())).append(" from replica(s) ");
            firstAnswer = false;
            boolean firstId = true;
            for (int id : answer.replicas()) {
                sb.append(firstId ? "" : ", ").append(id);
                firstId = false;
            }
        }
        int silent = silent();
        if (silent > 0) {
            sb.append("; ").append(silent).append(" replica(s) not heard from");
        }
        return sb.append(". More than f replicas are faulty, or correct ones answered different deliveries of a"
                + " retried batch; the command may have executed").toString();
    }

    /** The most votes any one answer has. */
    private int largestGroup() {
        int best = 0;
        for (int a = 0; a < votes.length; a++) {
            if (votes[a] == null) {
                continue;
            }
            int count = 0;
            for (int b = 0; b < votes.length; b++) {
                if (votes[b] != null && votes[b].equals(votes[a])) {
                    count++;
                }
            }
            best = Math.max(best, count);
        }
        return best;
    }

    /** A result with a prefix of its value, so two answers that differ only in their value can be told apart. */
    private static String describe(KvResult r) {
        StringBuilder sb = new StringBuilder().append(r.status());
        if (r.value() != null) {
            sb.append(" value ").append(r.value().length).append(" bytes 0x");
            for (int k = 0; k < Math.min(8, r.value().length); k++) {
                sb.append(String.format("%02x", r.value()[k]));
            }
            if (r.value().length > 8) {
                sb.append("...");
            }
        }
        if (!r.detail().isEmpty()) {
            sb.append(" \"").append(r.detail().length() > 80 ? r.detail().substring(0, 80) + "..." : r.detail()).append('"');
        }
        return sb.toString();
    }
}
