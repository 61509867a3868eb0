/**
 * Byzantine replicas on purpose, for testing and demonstration only. {@link io.psmr.ordering.pbft.byzantine.ByzantineBehaviour}
 * names the attacks and {@link io.psmr.ordering.pbft.byzantine.Adversary} carries them out on a replica's outgoing
 * envelopes, pure and clock-free; {@link io.psmr.ordering.pbft.byzantine.ByzantinePillarNetwork} drives it in a replica
 * process, as the simulated Byzantine campaign of the core's tests does in a simulation.
 * {@link io.psmr.ordering.pbft.byzantine.ByzantineMode} names what a faulty replica process does on the command line:
 * {@code ./psmr cluster start --ordering pbft --byzantine replica-N=MODE} runs one node so.
 * Never use any of this in production: a replica running it is, by design, faulty.
 */
package io.psmr.ordering.pbft.byzantine;
