/**
 * Ring Paxos as a pure, deterministic protocol core (Marandi et al., DSN 2010, unicast variant).
 *
 * <p>Every node ({@link io.psmr.ordering.ringpaxos.AcceptorNode}, {@link io.psmr.ordering.ringpaxos.Learner},
 * {@link io.psmr.ordering.ringpaxos.Proposer}) is a {@link io.psmr.ordering.ringpaxos.RingPaxosCore}, psmr's
 * {@link io.psmr.ordering.protocol.ProtocolCore} for Ring Paxos: it changes state only in {@code step(message)} and
 * {@code tick()}, and hands its outputs back as a {@link io.psmr.ordering.protocol.Ready}: the acceptor's
 * {@link io.psmr.ordering.ringpaxos.StorageChange}s to persist, the messages to send, and the
 * {@link io.psmr.ordering.ringpaxos.Output}s. There are no sockets, threads, clocks or random numbers inside, in
 * the manner of etcd's raft, so a whole cluster can be simulated in one thread under a seed. A transport
 * ({@code net}) persists each Ready's writes ({@code storage}), then sends its messages, then advances the core.
 * See {@code docs/ringpaxos.md}.
 */
package io.psmr.ordering.ringpaxos;
