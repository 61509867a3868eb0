/**
 * The byte format of Ring Paxos messages on the wire: {@link io.psmr.ordering.ringpaxos.wire.MessageCodec}.
 * Pure functions over byte arrays; no I/O.
 */
package io.psmr.ordering.ringpaxos.wire;
