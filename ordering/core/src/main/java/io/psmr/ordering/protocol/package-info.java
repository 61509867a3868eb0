/**
 * The contract every protocol core in psmr follows, after etcd's raft: a pure state machine takes messages and ticks
 * ({@link io.psmr.ordering.protocol.ProtocolCore#step}, {@link io.psmr.ordering.protocol.ProtocolCore#tick}) and
 * hands its outputs to its host as one {@link io.psmr.ordering.protocol.Ready}: what must be persisted, then the
 * messages to send, then what the host hands to the application. The host confirms each with
 * {@link io.psmr.ordering.protocol.ProtocolCore#advance}. Cores collect their outputs in an
 * {@link io.psmr.ordering.protocol.Outbox}. Ring Paxos' acceptor, learner and proposer and PBFT's pillar implement it.
 */
package io.psmr.ordering.protocol;
