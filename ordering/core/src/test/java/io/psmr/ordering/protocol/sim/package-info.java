/**
 * Deterministic simulation of protocol cores: {@link io.psmr.ordering.protocol.sim.SimulatedNetwork}, a seeded
 * network with loss, duplication, delays, reordering and crashes, shared by the Ring Paxos and PBFT simulations
 * through this module's test-jar.
 */
package io.psmr.ordering.protocol.sim;
