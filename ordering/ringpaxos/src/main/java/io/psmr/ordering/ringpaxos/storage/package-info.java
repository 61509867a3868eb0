/**
 * Durable storage for Ring Paxos acceptors: {@link io.psmr.ordering.ringpaxos.storage.FileAcceptorLog}, an
 * append-only, checksummed, self-compacting log of the {@link io.psmr.ordering.ringpaxos.StorageChange}s an
 * acceptor's Readys carry in their writes. The protocol core stays free of I/O; the runtime
 * ({@link io.psmr.ordering.ringpaxos.net.RingPaxosAcceptor}) writes the log before it sends.
 */
package io.psmr.ordering.ringpaxos.storage;
