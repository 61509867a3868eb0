package io.psmr.bench.load;

import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvStatus;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A per-key linearizability checker for key-value histories: Wing and Gong's search with Lowe's
 * memoisation of (linearised set, state) configurations ("Testing for linearizability", 2017), the
 * same algorithm as Porcupine and Knossos' WGL.
 *
 * <p><b>P-compositionality.</b> Linearizability is local: a history of single-key operations is
 * linearizable iff its projection on every key is. The history is therefore partitioned by key and
 * each part checked against a one-register model (absent, or a value). A MULTI_PUT is projected on
 * each of its keys as a put of the last value it gives that key; for it, a per-key check is a
 * necessary condition (every violation reported is real), not a sufficient one.
 *
 * <p><b>Model per key.</b> READ: OK with v needs the state v; NOT_FOUND needs absent. CREATE: OK needs
 * absent, then v; EXISTS needs present. UPDATE: OK needs present, then v; NOT_FOUND needs absent.
 * DELETE: OK needs present, then absent; NOT_FOUND needs absent. MULTI_PUT OK: then v. FAILED (the
 * store threw while executing) and SESSION_EXPIRED (a retry refused because its session ended; an
 * earlier copy of it may have run) may or may not have taken effect, as an unanswered operation, but
 * within its interval. Operations answered with any other status (TOO_LARGE, MALFORMED, REJECTED,
 * and any status added later, by name) executed nothing and are left out. A key starts from its {@linkplain #initialState initial
 * state}: absent, unless its history begins with an initial read of it. An operation
 * with no answer (status null: timed out) may or may not have taken effect: its return is at
 * infinity and it may leave the state unchanged or apply its write.
 *
 * <p>Ties in time are resolved in favour of concurrency (an invocation at the same nanosecond as a
 * return is treated as overlapping it), so the checker never rejects because of clock granularity.
 */
public final class LinearizabilityChecker {

    /** One operation on one key. {@code complete} is {@link Long#MAX_VALUE} for an unanswered operation. */
    public record KeyOp(String label, KvOp op, String input, long invoke, long complete, KvStatus status, String output,
                        boolean initial) {

        /** An operation of the timed load (not an initial read). */
        public KeyOp(String label, KvOp op, String input, long invoke, long complete, KvStatus status, String output) {
            this(label, op, input, invoke, complete, status, output, false);
        }
    }

    /** The verdict on a history. */
    public record Verdict(boolean linearizable, int keys, int operations, List<String> violations) {
    }

    private LinearizabilityChecker() {
    }

    /**
     * Checks a recorded history, key by key.
     *
     * @param finalState if not null, the store's content after every operation completed (key to
     *                   value); a READ of it is appended to every key's history after the last
     *                   completion, so an acknowledged write that is lost makes the check fail
     */
    public static Verdict check(List<OpRecord> history, Map<String, String> finalState) {
        Map<String, List<KeyOp>> byKey = new LinkedHashMap<>();
        long end = Long.MIN_VALUE;
        for (OpRecord r : history) {
            end = Math.max(end, r.acknowledged() ? r.completeNs() : r.invokeNs());
            if (r.acknowledged() && executedNothing(r.status())) {
                continue;
            }
            long complete = r.acknowledged() ? r.completeNs() : Long.MAX_VALUE;
            KvStatus status = effectUnknown(r.status()) ? null : r.status(); // null: either outcome
            String label = "client " + r.client() + " " + r.op() + " [" + r.invokeNs() + ", "
                    + (r.acknowledged() ? r.completeNs() : "inf") + "] -> " + r.status();
            if (r.op() == KvOp.MULTI_PUT) {
                Map<String, String> last = new LinkedHashMap<>();
                for (int i = 0; i < r.keys().length; i++) {
                    last.put(OpRecord.text(r.keys()[i]), OpRecord.text(r.values()[i]));
                }
                for (Map.Entry<String, String> e : last.entrySet()) {
                    byKey.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new KeyOp(label + " " + e.getKey() + "="
                            + e.getValue(), KvOp.MULTI_PUT, e.getValue(), r.invokeNs(), complete, status, null));
                }
            } else {
                String key = OpRecord.text(r.keys()[0]);
                String input = r.values() == null ? null : OpRecord.text(r.values()[0]);
                String output = OpRecord.text(r.output());
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(new KeyOp(label + " " + key
                        + (input != null ? "=" + input : "") + (output != null ? " read " + output : ""),
                        r.op(), input, r.invokeNs(), complete, status, output, r.initial()));
            }
        }
        if (finalState != null) {
            Set<String> keys = new HashSet<>(byKey.keySet());
            keys.addAll(finalState.keySet());
            for (String k : keys) {
                String v = finalState.get(k);
                byKey.computeIfAbsent(k, x -> new ArrayList<>()).add(new KeyOp("final read of " + k + " -> "
                        + (v == null ? "absent" : v), KvOp.READ, null, end + 1, end + 2,
                        v == null ? KvStatus.NOT_FOUND : KvStatus.OK, v));
            }
        }
        List<String> violations = new ArrayList<>();
        int ops = 0;
        for (Map.Entry<String, List<KeyOp>> e : byKey.entrySet()) {
            ops += e.getValue().size();
            if (!checkKey(e.getValue())) {
                violations.add(describe(e.getKey(), e.getValue()));
            }
        }
        return new Verdict(violations.isEmpty(), byKey.size(), ops, violations);
    }

    /**
     * Statuses after which the command changed nothing: every status but the three a command that
     * ran can give (OK, NOT_FOUND, EXISTS) and FAILED (the store threw while executing: its effect is
     * unknown, see {@link #effectUnknown}). By name, so statuses added later (FULL, SESSION_EXPIRED)
     * are treated alike: a refusal, not an effect.
     */
    private static boolean executedNothing(KvStatus s) {
        return switch (s.name()) {
            case "OK", "NOT_FOUND", "EXISTS", "FAILED", "SESSION_EXPIRED" -> false;
            default -> true;
        };
    }

    /**
     * FAILED (the store threw during the command) or SESSION_EXPIRED (an earlier copy of the request
     * may have run before its session ended): it may or may not have taken effect, like no answer.
     */
    private static boolean effectUnknown(KvStatus s) {
        return s == KvStatus.FAILED || s == KvStatus.SESSION_EXPIRED;
    }

    private static String describe(String key, List<KeyOp> ops) {
        StringBuilder b = new StringBuilder("key " + key + " is not linearizable; its " + ops.size() + " operations:");
        List<KeyOp> sorted = new ArrayList<>(ops);
        sorted.sort(Comparator.comparingLong(KeyOp::invoke));
        int shown = 0;
        for (KeyOp o : sorted) {
            if (shown++ == 40) {
                b.append("\n  ...");
                break;
            }
            b.append("\n  ").append(o.label());
        }
        return b.toString();
    }

    // ---------------------------------------------------------------- the search

    /** Absent. */
    private static final String ABSENT = null;

    /** The states {@code op} may leave from {@code state}; empty if its result is impossible there. */
    private static List<String> next(String state, KeyOp op) {
        boolean present = state != null;
        if (op.status() == null) {
            // No answer: either it never took effect, or it did, with whatever result the state gives.
            List<String> r = new ArrayList<>(2);
            r.add(state);
            String applied = switch (op.op()) {
                case CREATE -> present ? state : op.input();
                case UPDATE -> present ? op.input() : state;
                case DELETE -> ABSENT;
                case MULTI_PUT -> op.input();
                case READ, OPEN_SESSION -> state;
            };
            if (!Objects.equals(applied, state)) {
                r.add(applied);
            }
            return r;
        }
        boolean ok = op.status() == KvStatus.OK;
        return switch (op.op()) {
            case READ -> (ok ? present && state.equals(op.output()) : op.status() == KvStatus.NOT_FOUND && !present)
                    ? List.of(stateOf(state)) : List.of();
            case CREATE -> ok ? (!present ? List.of(stateOf(op.input())) : List.of())
                    : op.status() == KvStatus.EXISTS && present ? List.of(stateOf(state)) : List.of();
            case UPDATE -> ok ? (present ? List.of(stateOf(op.input())) : List.of())
                    : op.status() == KvStatus.NOT_FOUND && !present ? List.of(stateOf(state)) : List.of();
            case DELETE -> ok ? (present ? listOfAbsent() : List.of())
                    : op.status() == KvStatus.NOT_FOUND && !present ? listOfAbsent() : List.of();
            case MULTI_PUT -> ok ? List.of(stateOf(op.input())) : List.of();
            case OPEN_SESSION -> List.of(stateOf(state)); // touches no key; never in a per-key history
        };
    }

    /** List.of refuses nulls; absent travels as this marker inside lists and is mapped back. */
    private static final String ABSENT_MARKER = new String("\u0000absent");

    private static String stateOf(String s) {
        return s == null ? ABSENT_MARKER : s;
    }

    private static List<String> listOfAbsent() {
        return List.of(ABSENT_MARKER);
    }

    private static String unmark(String s) {
        return s == ABSENT_MARKER ? null : s; // identity on purpose: the marker is one object
    }

    /** A call or return event in the doubly linked list of the search. */
    private static final class Entry {
        final KeyOp op;
        final int id;
        final boolean call;
        final long time;
        Entry match;
        Entry prev;
        Entry next;

        Entry(KeyOp op, int id, boolean call, long time) {
            this.op = op;
            this.id = id;
            this.call = call;
            this.time = time;
        }
    }

    private record Config(BitSet linearized, String state) {
    }

    private record Frame(Entry call, String stateBefore, int alternative) {
    }

    /**
     * The key's state before its first recorded operation. The store may have held the key before
     * the history began (an earlier run on the same cluster): if the key's first operation is an
     * answered READ marked {@linkplain OpRecord#initial() initial} that returned before any other
     * operation on the key was invoked (as {@code load --history} records one per key before the
     * timed load), the state is what that read saw. Otherwise the key is taken to be absent, so a
     * read of a value that nothing wrote and no initial read saw is a violation. (An unmarked first
     * read is not trusted: it may be the very stale read a check is for.)
     */
    static String initialState(List<KeyOp> ops) {
        KeyOp first = null;
        for (KeyOp o : ops) {
            if (first == null || o.invoke() < first.invoke()) {
                first = o;
            }
        }
        if (first == null || !first.initial() || first.op() != KvOp.READ
                || (first.status() != KvStatus.OK && first.status() != KvStatus.NOT_FOUND)) {
            return ABSENT;
        }
        for (KeyOp o : ops) {
            if (o != first && o.invoke() <= first.complete()) {
                return ABSENT; // overlaps the read: not an initial read (ties count as overlapping)
            }
        }
        return first.status() == KvStatus.OK ? first.output() : ABSENT;
    }

    /** Whether the operations on one key are linearizable, starting from its {@linkplain #initialState initial state}. */
    public static boolean checkKey(List<KeyOp> ops) {
        List<Entry> events = new ArrayList<>(2 * ops.size());
        for (int i = 0; i < ops.size(); i++) {
            KeyOp o = ops.get(i);
            Entry c = new Entry(o, i, true, o.invoke());
            Entry r = new Entry(o, i, false, o.complete());
            c.match = r;
            events.add(c);
            events.add(r);
        }
        // Calls before returns at equal times: equal readings count as overlapping.
        events.sort(Comparator.comparingLong((Entry e) -> e.time).thenComparing(e -> e.call ? 0 : 1));
        Entry head = new Entry(null, -1, false, Long.MIN_VALUE);
        Entry prev = head;
        for (Entry e : events) {
            prev.next = e;
            e.prev = prev;
            prev = e;
        }
        BitSet linearized = new BitSet(ops.size());
        Set<Config> cache = new HashSet<>();
        List<Frame> stack = new ArrayList<>();
        String state = initialState(ops);
        Entry entry = head.next;
        int startAlternative = 0;
        while (head.next != null) {
            if (entry.call) {
                List<String> options = next(state, entry.op);
                boolean moved = false;
                for (int a = startAlternative; a < options.size(); a++) {
                    String s = unmark(options.get(a));
                    BitSet lin = (BitSet) linearized.clone();
                    lin.set(entry.id);
                    if (cache.add(new Config(lin, s))) {
                        stack.add(new Frame(entry, state, a));
                        state = s;
                        linearized.set(entry.id);
                        lift(entry);
                        entry = head.next;
                        moved = true;
                        break;
                    }
                }
                startAlternative = 0;
                if (!moved) {
                    entry = entry.next;
                }
            } else {
                // A return whose call is not linearised yet: backtrack.
                if (stack.isEmpty()) {
                    return false;
                }
                Frame f = stack.remove(stack.size() - 1);
                state = f.stateBefore();
                linearized.clear(f.call().id);
                unlift(f.call());
                entry = f.call();
                startAlternative = f.alternative() + 1;
                if (startAlternative >= next(state, entry.op).size()) {
                    entry = entry.next;
                    startAlternative = 0;
                }
            }
        }
        return true;
    }

    private static void lift(Entry call) {
        call.prev.next = call.next;
        call.next.prev = call.prev;
        Entry ret = call.match;
        ret.prev.next = ret.next;
        if (ret.next != null) {
            ret.next.prev = ret.prev;
        }
    }

    private static void unlift(Entry call) {
        Entry ret = call.match;
        ret.prev.next = ret;
        if (ret.next != null) {
            ret.next.prev = ret;
        }
        call.prev.next = call;
        call.next.prev = call;
    }
}
