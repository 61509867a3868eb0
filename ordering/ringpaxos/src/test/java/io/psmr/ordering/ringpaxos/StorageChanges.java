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

    /** The storage's whole state as text, one line per change that rebuilds it (see {@link AcceptorStorage#writeTo}). */
    public static List<String> state(AcceptorStorage s) {
        List<String> lines = new ArrayList<>();
        lines.add("highestDecided " + s.highestDecided());
        s.writeTo(new AcceptorJournal() {
            @Override
            public void promised(Ballot ballot) {
                lines.add("promise " + ballot);
            }

            @Override
            public void voted(long instance, Ballot ballot, Value value) {
                lines.add("vote " + instance + " " + ballot + " " + describe(value));
            }

            @Override
            public void decided(long instance, Value value) {
                lines.add("decide " + instance + " " + describe(value));
            }

            @Override
            public void trimmed(long upTo) {
                lines.add("trim " + upTo);
            }
        });
        return lines;
    }

    private static String describe(Value v) {
        return v.id() + " " + java.util.Arrays.toString(v.data());
    }
}
