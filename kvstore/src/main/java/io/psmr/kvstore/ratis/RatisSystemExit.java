package io.psmr.kvstore.ratis;

import org.apache.ratis.util.ExitUtils;

/**
 * Keeps Apache Ratis from calling {@link System#exit} in a JVM that embeds Ratis peers.
 *
 * <p>Ratis ends the process through {@link ExitUtils#terminate} where it gives up on a server: in 3.3.0, its gRPC
 * server that cannot bind its port. psmr runs Ratis' Netty RPC ({@link RatisNettyRpc}), whose failed bind is an
 * exception, and no other Ratis 3.3.0 class it runs calls {@code terminate}; this is the guard that keeps it so
 * (another RPC, a Ratis upgrade). psmr runs Ratis peers inside larger JVMs ({@code ./psmr load --ordering ratis},
 * the tests, a cluster node process), where a peer that fails must be an error that names it, not a JVM that
 * vanishes without one. With System.exit disabled, {@code terminate} throws {@link ExitUtils.ExitException} on the
 * thread that called it, which {@link RatisPeer#start} turns into an {@link java.io.IOException} when it is the
 * starting thread.
 *
 * <p>Initialising {@link ExitUtils} also installs Ratis' own default uncaught-exception handler, which
 * would send every thread's uncaught exception (psmr's included) to {@code terminate}, logged as an
 * exit that no longer happens. {@link #disable} puts back the handler the JVM had before: a peer's
 * Ratis daemon threads report to that peer's thread group instead ({@link RatisPeer}).
 *
 * <p>The setting is JVM-wide and cannot be undone (Ratis has no switch back); psmr never relies on
 * Ratis exiting the process.
 */
final class RatisSystemExit {

    private static boolean disabled;

    private RatisSystemExit() {
    }

    /**
     * Disables Ratis' System.exit for this JVM; call before any Ratis server starts. Idempotent and
     * thread-safe (callers serialise on the class); does not block otherwise.
     */
    static synchronized void disable() {
        if (disabled) {
            return;
        }
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        ExitUtils.disableSystemExit();
        Thread.setDefaultUncaughtExceptionHandler(before);
        disabled = true;
    }
}
