package io.psmr.ordering.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One Netty event loop with exactly one daemon thread, owned by one component (a Ring Paxos node, a reply server,
 * a reply connector). Every socket, timer and handler of that component runs on it, so their state needs no locks.
 *
 * <p>{@link #loop()} and {@link #inEventLoop()} may be called from any thread; {@link #shutdown} from any thread,
 * including the loop's own.
 */
public final class EventLoopThread {

    private final EventLoopGroup group;
    private final EventLoop loop;

    private EventLoopThread(String threadName) {
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(threadName, true), SocketIo.current().handlerFactory());
        this.loop = group.next();
    }

    /** Starts the thread, named {@code threadName} plus a pool suffix. */
    public static EventLoopThread start(String threadName) {
        return new EventLoopThread(Objects.requireNonNull(threadName, "threadName"));
    }

    /** The loop: register channels on it, schedule on it. */
    public EventLoop loop() {
        return loop;
    }

    /** Whether the caller is this loop's thread. */
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /**
     * Runs {@code lastTask} on the loop (closing the component's channels, say), then stops the thread. From
     * another thread it waits for both; from the loop's own thread it runs the task at once and returns without
     * waiting for the thread to end (it cannot wait for itself). If the loop is already shutting down the task is
     * skipped. Idempotent.
     */
    public void shutdown(Runnable lastTask) {
        Objects.requireNonNull(lastTask, "lastTask");
        if (loop.inEventLoop()) {
            lastTask.run();
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            return;
        }
        try {
            loop.submit(lastTask).syncUninterruptibly();
        } catch (RejectedExecutionException e) {
            // already shutting down
        }
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).syncUninterruptibly();
    }

    /** Stops the thread without a last task, waiting unless called from it. */
    public void shutdown() {
        shutdown(() -> { });
    }
}
