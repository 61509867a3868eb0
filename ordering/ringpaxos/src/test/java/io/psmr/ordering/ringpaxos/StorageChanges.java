package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;

/**
 * Test access to {@link AcceptorStorage}'s package-private changes, for tests of durable storage in other
 * packages, and a way to compare two storages' whole state.
 */
public final class StorageChanges {

    private StorageChanges() {
    }

    public static void promise(AcceptorStorage s, Ballot b) {
        s.promise(b);
    }

    public static void vote(AcceptorStorage s, long instance, Ballot b, Value v) {
        s.vote(instance, b, v);
    }

    public static void decide(AcceptorStorage s, long instance, Value v) {
        s.decide(instance, v);
    }

    public static void trim(AcceptorStorage s, long instance) {
        s.trimTo(instance);
    }

    /** The changes made to {@code s} since the last call (what a node's next Ready would carry). */
    public static List<StorageChange> take(AcceptorStorage s) {
        return s.takeChanges();
    }

    /** The storage's whole state as text, one line per change that rebuilds it (see {@link AcceptorStorage#asChanges}). */
    public static List<String> state(AcceptorStorage s) {
        List<String> lines = new ArrayList<>();
        lines.add("highestDecided " + s.highestDecided());
        for (StorageChange c : s.asChanges()) {
            if (c instanceof StorageChange.Promised p) {
                lines.add("promise " + p.ballot());
            } else if (c instanceof StorageChange.Voted v) {
                lines.add("vote " + v.instance() + " " + v.ballot() + " " + describe(v.value()));
            } else if (c instanceof StorageChange.Decided d) {
                lines.add("decide " + d.instance() + " " + describe(d.value()));
            } else if (c instanceof StorageChange.Trimmed t) {
                lines.add("trim " + t.upTo());
            }
        }
        return lines;
    }

    private static String describe(Value v) {
        return v.id() + " " + java.util.Arrays.toString(v.data());
    }
}
