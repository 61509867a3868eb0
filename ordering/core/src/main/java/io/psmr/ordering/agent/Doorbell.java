package io.psmr.ordering.agent;

/**
 * Wakes the consumer of a {@link BoundedQueue}: the queue rings it on every element it takes. An {@link AgentRunner}
 * thread's bell unparks the thread; a {@link LoopAgentRunner}'s bell queues a duty cycle on its event loop. So an
 * idle agent waits without polling and still takes the next message at once.
 *
 * <p>Threads: {@link #ring} from any thread; it never blocks.
 */
public interface Doorbell {

    /** The consumer's queue took an element. */
    void ring();
}
