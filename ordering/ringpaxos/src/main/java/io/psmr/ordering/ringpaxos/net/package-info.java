/**
 * Ring Paxos over TCP: {@link io.psmr.ordering.ringpaxos.net.RingPaxosNode} hosts one pure protocol core on one
 * Netty event-loop thread, and {@link io.psmr.ordering.ringpaxos.net.RingPaxosBroadcast} puts a learner (and
 * optionally a proposer) behind the {@link io.psmr.ordering.AtomicBroadcast} SPI.
 * {@link io.psmr.ordering.ringpaxos.net.RingPaxosAcceptor} is one restartable acceptor on durable storage, and
 * {@link io.psmr.ordering.ringpaxos.net.RingPaxosProposerClient} a proposer-only
 * {@link io.psmr.ordering.OrderingClient}.
 */
package io.psmr.ordering.ringpaxos.net;
