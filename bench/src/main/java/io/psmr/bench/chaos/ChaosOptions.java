package io.psmr.bench.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One fault campaign, as {@code psmr chaos} was asked for it.
 *
 * @param duration how long the load runs (faults fall inside it)
 * @param kinds    the faults to inject
 * @param restart  restart killed nodes during the load (else at the end)
 * @param maxDown  most nodes faulted at once over all kinds, or 0 for the kinds' own bounds only
 * @param seed     the schedule's and the clients' seed
 * @param clients  closed-loop clients
 * @param keys     the key space
 * @param history  a file to write every operation to as JSON lines, or null
 * @param beyondF  let the schedule cut off more than f nodes from a quorum at once, and check safety alone
 */
public record ChaosOptions(Duration duration, List<FaultKind> kinds, boolean restart, int maxDown, long seed, int clients,
                           int keys, Path history, boolean beyondF) {

    /** A campaign within the bounds. */
    public ChaosOptions(Duration duration, List<FaultKind> kinds, boolean restart, int maxDown, long seed, int clients,
                        int keys, Path history) {
        this(duration, kinds, restart, maxDown, seed, clients, keys, history, false);
    }

    /** Checks nulls; ranges are the command line's. */
    public ChaosOptions {
        Objects.requireNonNull(duration, "duration");
        kinds = List.copyOf(kinds);
    }
}
