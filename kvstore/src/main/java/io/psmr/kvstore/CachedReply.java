package io.psmr.kvstore;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The result of one (client, request) pair, as the reply cache keeps it: empty while the command
 * waits or executes, then its result, once. Duplicates that arrive before the result wait on it,
 * without holding a worker.
 *
 * <p>Thread-safe: completed by the worker that executes the command, waited on by the workers of
 * duplicates. The result depends only on delivered data, so the duplicate's answer does too.
 */
final class CachedReply {

    private KvResult result;
    private List<Consumer<KvResult>> waiters;

    /** Records the result and runs the waiters (on the calling thread). Only the first call counts. */
    void complete(KvResult r) {
        List<Consumer<KvResult>> toRun;
        synchronized (this) {
            if (result != null) {
                return;
            }
            result = r;
            toRun = waiters;
            waiters = null;
        }
        if (toRun != null) {
            for (Consumer<KvResult> w : toRun) {
                w.accept(r);
            }
        }
    }

    /** Runs {@code action} with the result: now, on this thread, if known; else when it is recorded. */
    void whenComplete(Consumer<KvResult> action) {
        KvResult r;
        synchronized (this) {
            r = result;
            if (r == null) {
                if (waiters == null) {
                    waiters = new ArrayList<>(1);
                }
                waiters.add(action);
                return;
            }
        }
        action.accept(r);
    }

    /** The result, or null while unknown. */
    synchronized KvResult result() {
        return result;
    }
}
