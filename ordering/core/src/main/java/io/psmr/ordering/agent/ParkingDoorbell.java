package io.psmr.ordering.agent;

import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@link Doorbell} of an {@link AgentRunner} thread that parks while its agents have nothing to do: a ring unparks
 * the thread if it is parked or about to park. So an idle thread can park long, which keeps an idle process nearly off
 * the CPU, and still takes the next message at once.
 *
 * <p>No wake-up is lost: the thread {@link #arm arms} the bell before the duty cycle that looks at its inboxes, and
 * parks only if that cycle found nothing; a producer adds its element and then reads whether the bell is armed. One
 * of the two sees the other's write (the flag is volatile, the queue takes a lock), so either the cycle finds the
 * element or the producer unparks the thread, and an unpark before the park makes the park return at once.
 *
 * <p>Threads: {@link #ring} from any thread; {@link #arm} and {@link #disarm} from the owning thread only.
 */
final class ParkingDoorbell implements Doorbell {

    private final Thread thread;
    private volatile boolean armed;

    /** A bell for {@code thread}, the only thread that arms it. */
    ParkingDoorbell(Thread thread) {
        this.thread = Objects.requireNonNull(thread, "thread");
    }

    /** Unparks the owning thread if it parks or is about to. Never blocks. */
    @Override
    public void ring() {
        if (armed) {
            armed = false;
            LockSupport.unpark(thread);
        }
    }

    /** Before parking: from now on a ring unparks this thread. */
    void arm() {
        armed = true;
    }

    /** After parking, or instead of it. */
    void disarm() {
        armed = false;
    }
}
