package io.psmr.ordering.agent;

import java.util.List;

/**
 * A unit of work with a duty cycle, run by an {@link AgentRunner} (the shape of Agrona's {@code Agent}, and of the
 * actors of seed 001): a COP pillar, the execution stage, a transport endpoint.
 *
 * <h2>Concurrency contract</h2>
 * An agent's state is touched only by the one runner thread that calls its methods: {@link #onStart()}, then
 * {@link #doWork()} repeatedly, then {@link #onClose()}, all on that thread, never concurrently. Agents share no
 * mutable state; they talk to each other only through {@link BoundedQueue}s, whose {@code offer} fails when full, so a
 * sender must keep what it could not send and retry on a later duty cycle (backpressure), never grow a buffer without
 * bound. {@code doWork} must not block: the thread may run other agents too.
 */
public interface Agent {

    /** A name for logs and thread dumps, unique within a runner (for example {@code replica-2/pillar-1}). */
    String roleName();

    /**
     * The queues this agent consumes. The runner wakes the agent's thread whenever one of them takes an element, so
     * the thread may park long while idle; work that arrives any other way (a clock, a full queue that drains, a
     * flag another thread sets) waits at most the runner's longest park. Called once, before {@link #onStart()}.
     */
    default List<BoundedQueue<?>> inboxes() {
        return List.of();
    }

    /** Called once on the runner thread before the first {@link #doWork()}. */
    default void onStart() {
    }

    /**
     * One duty cycle: do what is ready, without blocking.
     *
     * @return how much work was done (messages handled, values released); 0 lets the runner's thread back off
     * @throws Exception to fail-stop the runner: it logs the failure naming this agent, closes every agent and
     *                   reports the failure through {@link AgentRunner#failure()}
     */
    int doWork() throws Exception;

    /** Called once on the runner thread after the last {@link #doWork()} (also after a failure). */
    default void onClose() {
    }
}
