package io.psmr.bench.load;

import io.psmr.proxy.ClientProxy;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How a {@link LoadGenerator} run is watched and tagged, beside the {@link WorkloadSpec} of what it does.
 *
 * @param session      the run's session number, part of every value written ({@code s<session>.c<client>.<op>}),
 *                     so values differ from one run to the next on one store; 0 for embedded runs
 * @param initialReads whether each client first reads its share of the key space (keys {@code k<i>}
 *                     with {@code i % clients == client - 1}), recorded in the history before the timed
 *                     load, so a checker sees each key's initial value
 * @param stallTimeout how long the run may go without any operation completing, and how long the
 *                     drain after the duration may take, before it ends with {@link LoadStalledException};
 *                     null for no bound
 * @param probe        names what the run cannot hear from, for the stall message
 * @param notices      receives one-line notices while the run waits (the drain); called on the
 *                     thread that runs the generator
 * @param proxyStarted receives the proxy before the clients start, on the thread that runs the generator
 *                     (the load process binds its meters to it); it must not block
 */
public record RunControls(long session, boolean initialReads, Duration stallTimeout, StallProbe probe,
                          Consumer<String> notices, Consumer<ClientProxy> proxyStarted) {

    /** Session 0, no initial reads, no stall bound, no notices: what the tests and benchmarks use. */
    public static final RunControls NONE = new RunControls(0, false, null, StallProbe.NONE, s -> { });

    /** Controls that tell nobody about the proxy. */
    public RunControls(long session, boolean initialReads, Duration stallTimeout, StallProbe probe, Consumer<String> notices) {
        this(session, initialReads, stallTimeout, probe, notices, p -> { });
    }

    /** Checks the fields. */
    public RunControls {
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(notices, "notices");
        Objects.requireNonNull(proxyStarted, "proxyStarted");
        if (session < 0) {
            throw new IllegalArgumentException("session must be at least 0, got " + session);
        }
        if (stallTimeout != null && (stallTimeout.isNegative() || stallTimeout.isZero())) {
            throw new IllegalArgumentException("stallTimeout must be positive, got " + stallTimeout);
        }
    }

    /** These controls with another session number. */
    public RunControls withSession(long s) {
        return new RunControls(s, initialReads, stallTimeout, probe, notices, proxyStarted);
    }

    /** These controls, handing the proxy to {@code c} before the clients start. */
    public RunControls withProxyStarted(Consumer<ClientProxy> c) {
        return new RunControls(session, initialReads, stallTimeout, probe, notices, c);
    }

    /** These controls with another probe. */
    public RunControls withProbe(StallProbe p) {
        return new RunControls(session, initialReads, stallTimeout, p, notices, proxyStarted);
    }
}
