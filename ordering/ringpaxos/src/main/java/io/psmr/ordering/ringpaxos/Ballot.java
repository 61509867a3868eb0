package io.psmr.ordering.ringpaxos;

/**
 * A Paxos ballot: a round, with the id of the coordinator that owns it as tie-breaker, so two
 * coordinators never share a ballot.
 *
 * @param round       the round, 0 only for {@link #ZERO}
 * @param coordinator the acceptor id that owns the ballot, -1 only for {@link #ZERO}
 */
public record Ballot(long round, int coordinator) implements Comparable<Ballot> {

    /** Below every real ballot: what an acceptor has promised before any Phase 1. */
    public static final Ballot ZERO = new Ballot(0, -1);

    @Override
    public int compareTo(Ballot other) {
        int byRound = Long.compare(round, other.round);
        return byRound != 0 ? byRound : Integer.compare(coordinator, other.coordinator);
    }

    /** Whether this ballot is strictly higher than {@code other}. */
    public boolean isAbove(Ballot other) {
        return compareTo(other) > 0;
    }

    /** Whether this ballot is strictly lower than {@code other}. */
    public boolean isBelow(Ballot other) {
        return compareTo(other) < 0;
    }

    /** The larger of two ballots. */
    public static Ballot max(Ballot a, Ballot b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
