/**
 * Ring Paxos as a pure, deterministic protocol core (Marandi et al., DSN 2010, unicast variant).
 *
 * <p>Every node ({@link io.psmr.ordering.ringpaxos.AcceptorNode}, {@link io.psmr.ordering.ringpaxos.Learner},
 * {@link io.psmr.ordering.ringpaxos.Proposer}) is a {@link io.psmr.ordering.ringpaxos.ProtocolNode}:
 * it changes state only in {@code step(message)} and {@code tick()}, and hands its outputs back as a
 * {@link io.psmr.ordering.ringpaxos.Ready}. There are no sockets, threads, clocks or random numbers
 * inside, in the manner of etcd's raft, so a whole cluster can be simulated in one thread under a
 * seed. A transport ({@code net}) moves the messages, and makes {@link io.psmr.ordering.ringpaxos.AcceptorStorage}
 * durable through its {@link io.psmr.ordering.ringpaxos.AcceptorJournal} ({@code storage}) before sending.
 * See {@code docs/ringpaxos.md}.
 */
package io.psmr.ordering.ringpaxos;
