/**
 * Durable storage for Ring Paxos acceptors: {@link io.psmr.ordering.ringpaxos.storage.FileAcceptorLog}, an
 * append-only, checksummed, self-compacting log of the changes an
 * {@link io.psmr.ordering.ringpaxos.AcceptorStorage} reports through its
 * {@link io.psmr.ordering.ringpaxos.AcceptorJournal}. The protocol core stays free of I/O; the runtime
 * ({@link io.psmr.ordering.ringpaxos.net.RingPaxosAcceptor}) writes the log before it sends.
 */
package io.psmr.ordering.ringpaxos.storage;
