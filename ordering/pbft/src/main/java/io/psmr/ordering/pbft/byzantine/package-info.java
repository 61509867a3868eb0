/**
 * Byzantine replicas on purpose, for testing and demonstration only: {@link io.psmr.ordering.pbft.byzantine.ByzantineMode}
 * names what a faulty replica does, {@link io.psmr.ordering.pbft.byzantine.ByzantinePillarNetwork} makes one replica's
 * outgoing PBFT envelopes do it. {@code ./psmr cluster start --ordering pbft --byzantine replica-N=MODE} runs one node so.
 * Never use any of this in production: a replica running it is, by design, faulty.
 */
package io.psmr.ordering.pbft.byzantine;
