/**
 * Agents (after Agrona's {@code Agent} and seed 001's actors): units of work with a duty cycle that share no mutable
 * state and talk only through bounded queues, and the {@link io.psmr.ordering.agent.AgentRunner} that maps any
 * number of them onto a configured number of threads. Each agent's state is touched only by the one thread that runs
 * it; queues refuse when full, so a sender keeps what it could not send (backpressure) and nothing grows unbounded.
 */
package io.psmr.ordering.agent;
