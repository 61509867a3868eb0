package io.psmr.bench.cos;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The two implementations of the COS dependency graph (Escobar, Alchieri, Dotti, Pedone et al.,
 * "Boosting concurrency in Parallel State Machine Replication", Middleware '19) that {@code psmr bench}
 * runs as baselines. Immutable; any thread.
 */
public enum CosVariant {

    /** The whole graph is one critical section; semaphores count free space and ready commands: {@link CoarseLockCos}. */
    COARSE("cos-coarse"),
    /** A linked list of nodes with atomic status, claimed with compare-and-set: {@link LockFreeCos}. */
    LOCK_FREE("cos-lockfree");

    private final String cliName;

    CosVariant(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line, in results files and charts. */
    public String cliName() {
        return cliName;
    }

    /** A new, empty graph of this variant holding at most {@code maxSize} commands. */
    public <C extends io.psmr.scheduler.Command> CosGraph<C> newGraph(int maxSize) {
        return switch (this) {
            case COARSE -> new CoarseLockCos<>(maxSize);
            case LOCK_FREE -> new LockFreeCos<>(maxSize);
        };
    }

    /** Every name, comma-separated, in declaration order. */
    public static String cliNames() {
        return Arrays.stream(values()).map(CosVariant::cliName).collect(Collectors.joining(", "));
    }

    /**
     * The variant named {@code name}.
     *
     * @throws IllegalArgumentException listing the names, if none has this name
     */
    public static CosVariant fromCliName(String name) {
        for (CosVariant v : values()) {
            if (v.cliName.equals(name)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown COS variant '" + name + "'; variants: " + cliNames());
    }
}
