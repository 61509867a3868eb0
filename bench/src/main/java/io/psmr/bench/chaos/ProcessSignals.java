package io.psmr.bench.chaos;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * SIGSTOP and SIGCONT for a process: the JDK sends only SIGTERM and SIGKILL, so this runs the
 * system's {@code kill}. Stateless and thread-safe; each call blocks until {@code kill} exits (at most 10 s).
 */
public final class ProcessSignals {

    private static final String KILL = new File("/bin/kill").canExecute() ? "/bin/kill" : "/usr/bin/kill";

    private ProcessSignals() {
    }

    /** Stops {@code pid} (it cannot catch or ignore this). */
    public static void stop(long pid) throws InterruptedException {
        send("-STOP", pid);
    }

    /** Lets a stopped {@code pid} run again. */
    public static void resume(long pid) throws InterruptedException {
        send("-CONT", pid);
    }

    private static void send(String signal, long pid) throws InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(KILL, signal, Long.toString(pid)).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + KILL + " " + signal + " " + pid + ": " + e.getMessage(), e);
        }
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(KILL + " " + signal + " " + pid + " did not finish within 10 s");
        }
        if (p.exitValue() != 0) {
            String out;
            try {
                out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                out = e.getMessage();
            }
            throw new IllegalStateException(KILL + " " + signal + " " + pid + " failed (exit " + p.exitValue() + "): " + out);
        }
    }
}
