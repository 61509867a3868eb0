/**
 * PBFT (Castro and Liskov, OSDI'99) as a pure protocol core for COP pillars (Behl et al.).
 *
 * <p>{@link io.psmr.ordering.pbft.PbftPillar} runs the instances {@code c ≡ p (mod Np)} of the global
 * sequence for pillar {@code p} of one replica. It is a {@link io.psmr.ordering.pbft.PbftCore}, psmr's
 * {@link io.psmr.ordering.protocol.ProtocolCore} for PBFT: envelopes and ticks in, a
 * {@link io.psmr.ordering.protocol.Ready} out (envelopes, and {@link io.psmr.ordering.pbft.PillarOutput}s: committed
 * instances, stable checkpoints). No sockets, threads, clocks or random numbers inside. Messages are {@link io.psmr.ordering.pbft.PbftMessage} records in
 * {@link io.psmr.ordering.pbft.PbftEnvelope}s, MAC'd over {@link io.psmr.ordering.pbft.PbftCodec}'s canonical
 * bytes by an {@link io.psmr.ordering.pbft.Authenticator}. See {@code docs/pbft.md}; the design choices are in
 * {@code docs/decisions.md} (PBFT).
 */
package io.psmr.ordering.pbft;
