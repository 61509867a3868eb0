package io.psmr.bench.stats;

import java.util.concurrent.Callable;

/**
 * Runs a timed body on a thread started for it, as a scheduler's workers are. The benchmark's own thread has
 * run the setup (populating a store, executing every command once for a digest), and in one invocation of the
 * scheduler benchmark the same commands ran 22 % slower on it than on a fresh thread, which flattered every
 * fraction of a sequential reference run there. Whatever the cause (the JIT's view of that thread's loops, its
 * caches), a reference and the configurations measured against it must start alike.
 */
public final class FreshThread {

    private FreshThread() {
    }

    /**
     * Calls {@code body} on a new thread named {@code name}, waits for it, and returns its result.
     *
     * @throws RuntimeException      or {@link Error}: what the body threw, as it was
     * @throws IllegalStateException wrapping a checked exception of the body
     * @throws InterruptedException  if this thread is interrupted while waiting (the body's thread runs on)
     */
    public static <T> T call(String name, Callable<T> body) throws InterruptedException {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                result[0] = body.call();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, name);
        t.start();
        t.join();
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] instanceof Error e) {
            throw e;
        }
        if (failure[0] != null) {
            throw new IllegalStateException(name + " failed: " + failure[0], failure[0]);
        }
        @SuppressWarnings("unchecked")
        T r = (T) result[0];
        return r;
    }
}
