package io.psmr.ordering.ringpaxos;

/**
 * What an acceptor reports about one instance in Phase 1: the highest ballot it voted in and the
 * value, or that it knows the instance decided.
 *
 * @param instance the instance
 * @param ballot   the ballot of the vote ({@link Ballot#ZERO} when the acceptor only learnt the decision)
 * @param value    the value voted for, or decided
 * @param decided  whether the acceptor knows {@code value} is decided; a new coordinator then takes
 *                 it whatever the ballots
 */
public record Vote(long instance, Ballot ballot, Value value, boolean decided) {
}
