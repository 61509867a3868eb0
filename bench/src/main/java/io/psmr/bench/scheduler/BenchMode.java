package io.psmr.bench.scheduler;

import io.psmr.bench.cos.CosVariant;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.scheduler.WakePolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * What a cell of {@code psmr bench} runs: one of psmr's {@link SchedulerMode}s, or one of the COS
 * baselines ({@link CosVariant}: Escobar et al., Middleware '19). Kept on the bench side so that the
 * scheduler module's vocabulary knows nothing of the baselines. Immutable; any thread.
 *
 * <p><b>Design variants</b>, for A/B runs of the scheduler's concurrency in one invocation: a psmr
 * mode may name another graph, a worker spin count and a wake-up policy, as
 * {@code MODE[/GRAPH][+spinN][+wakeeager|+wakelazy]}, for example {@code bitmap-indexed/indexed}
 * (the index under the graph lock, the design before issue 14), {@code bitmap-indexed+spin2000} or
 * {@code bitmap-indexed+wakelazy} ({@link WakePolicy#WHEN_OUTNUMBERED}; {@code +wakeeager} is
 * {@link WakePolicy#EAGER}). The plain name is the mode as a replica runs it, with the scheduler's
 * default wake-up policy; a named policy stays in the name even when it is the default, so that an
 * A/B of the two policies reads the same whichever is the default.
 */
public sealed interface BenchMode permits BenchMode.Psmr, BenchMode.Cos, BenchMode.Partitioned {

    /** The name on the command line, in results files and charts. */
    String cliName();

    /** Whether this runs worker threads (everything but {@link SchedulerMode#SEQUENTIAL}). */
    boolean parallel();

    /** Whether each delivery carries one command whatever the batch size asked (CBASE, COS). */
    boolean batchOfOne();

    /** Report order: psmr's modes in declaration order, then the COS variants, then {@code partitioned}. */
    int order();

    /**
     * A psmr scheduler configuration, on {@code graph} with workers that spin {@code spins} checks
     * before parking and are woken by {@code wake} (null: the scheduler's default,
     * {@link io.psmr.scheduler.SchedulerBuilder#DEFAULT_WAKE_POLICY}); {@link #Psmr(SchedulerMode)}
     * is the mode as a replica runs it.
     */
    record Psmr(SchedulerMode mode, GraphKind graph, int spins, WakePolicy wake) implements BenchMode {
        public Psmr {
            if (mode == null) {
                throw new IllegalArgumentException("mode is null");
            }
            if (!mode.parallel() && (graph != null || spins != 0 || wake != null)) {
                throw new IllegalArgumentException("mode '" + mode.cliName() + "' has no graph and no workers to vary");
            }
            if (mode.parallel() && graph == null) {
                throw new IllegalArgumentException("graph is null");
            }
            if (spins < 0) {
                throw new IllegalArgumentException("spins must be at least 0, got " + spins);
            }
        }

        /** A configuration with the scheduler's default wake-up policy. */
        public Psmr(SchedulerMode mode, GraphKind graph, int spins) {
            this(mode, graph, spins, null);
        }

        /** The mode as a replica runs it: its own graph, workers that park at once. */
        public Psmr(SchedulerMode mode) {
            this(mode, mode == null ? null : mode.graph(), 0, null);
        }

        /** Whether this differs from the mode as a replica runs it (a named wake-up policy counts). */
        public boolean isVariant() {
            return graph != mode.graph() || spins != 0 || wake != null;
        }

        /** The wake-up policy the scheduler runs with. */
        public WakePolicy wakePolicy() {
            return wake != null ? wake : io.psmr.scheduler.SchedulerBuilder.DEFAULT_WAKE_POLICY;
        }

        @Override
        public String cliName() {
            return mode.cliName() + (graph != mode.graph() ? "/" + graph.cliName() : "")
                    + (spins > 0 ? "+spin" + spins : "")
                    + (wake == null ? "" : wake == WakePolicy.EAGER ? "+wakeeager" : "+wakelazy");
        }

        @Override
        public boolean parallel() {
            return mode.parallel();
        }

        @Override
        public boolean batchOfOne() {
            return mode.batchOfOne();
        }

        @Override
        public int order() {
            return mode.ordinal();
        }
    }

    /** A COS baseline: commands one at a time through a {@link io.psmr.bench.cos.CosScheduler}. */
    record Cos(CosVariant variant) implements BenchMode {
        public Cos {
            if (variant == null) {
                throw new IllegalArgumentException("variant is null");
            }
        }

        @Override
        public String cliName() {
            return variant.cliName();
        }

        @Override
        public boolean parallel() {
            return true;
        }

        @Override
        public boolean batchOfOne() {
            return true;
        }

        @Override
        public int order() {
            return SchedulerMode.values().length + variant.ordinal();
        }
    }

    /**
     * The {@code partitioned} reference: the cell's command stream split by key over its worker count of
     * threads, each running only the commands of its keys, in order, with no scheduler and no graph (see
     * {@link PartitionedRun}). The most the service itself allows that many threads: the ceiling that
     * {@code ceiling_fraction} divides by.
     */
    record Partitioned() implements BenchMode {

        /** The name on the command line and in results. */
        public static final String NAME = "partitioned";

        @Override
        public String cliName() {
            return NAME;
        }

        @Override
        public boolean parallel() {
            return true;
        }

        @Override
        public boolean batchOfOne() {
            return false;
        }

        @Override
        public int order() {
            return SchedulerMode.values().length + CosVariant.values().length;
        }
    }

    /** The {@code partitioned} reference. */
    static BenchMode partitioned() {
        return new Partitioned();
    }

    /** The cell mode of a psmr scheduler mode. */
    static BenchMode of(SchedulerMode mode) {
        return new Psmr(mode);
    }

    /** The cell mode of a COS variant. */
    static BenchMode of(CosVariant variant) {
        return new Cos(variant);
    }

    /** Every COS baseline, in declaration order. */
    static List<BenchMode> cosBaselines() {
        List<BenchMode> out = new ArrayList<>();
        for (CosVariant v : CosVariant.values()) {
            out.add(new Cos(v));
        }
        return List.copyOf(out);
    }

    /** Every name, comma-separated: psmr's modes, the COS variants, then {@code partitioned}. */
    static String cliNames() {
        return SchedulerMode.cliNames() + ", " + CosVariant.cliNames() + ", " + Partitioned.NAME;
    }

    /**
     * The mode named {@code name}: a COS variant's name, or a {@link SchedulerMode}'s.
     *
     * @throws IllegalArgumentException as {@link SchedulerMode#fromCliName} does for an old spelling,
     *                                  or listing every name, COS included
     */
    static BenchMode fromCliName(String name) {
        for (CosVariant v : CosVariant.values()) {
            if (v.cliName().equals(name)) {
                return new Cos(v);
            }
        }
        if (Partitioned.NAME.equals(name)) {
            return new Partitioned();
        }
        if (name != null && (name.indexOf('/') > 0 || name.indexOf('+') > 0)) {
            return variant(name);
        }
        try {
            return new Psmr(SchedulerMode.fromCliName(name));
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith("unknown mode")) {
                throw new IllegalArgumentException("unknown mode '" + name + "'; modes: " + cliNames(), e);
            }
            throw e;
        }
    }

    /** Parses {@code MODE[/GRAPH][+spinN][+wakeeager|+wakelazy]}; the suffixes in any order. */
    private static BenchMode variant(String name) {
        String rest = name;
        int spins = 0;
        WakePolicy wake = null;
        int plus = rest.indexOf('+');
        if (plus > 0) {
            for (String part : rest.substring(plus + 1).split("\\+", -1)) {
                if (part.equals("wakeeager")) {
                    wake = WakePolicy.EAGER;
                } else if (part.equals("wakelazy")) {
                    wake = WakePolicy.WHEN_OUTNUMBERED;
                } else if (part.startsWith("wake")) {
                    throw new IllegalArgumentException("mode variant '" + name + "': '+" + part
                            + "' is not +wakeeager or +wakelazy");
                } else if (part.matches("spin[0-9]{1,7}")) {
                    spins = Integer.parseInt(part.substring(4));
                } else {
                    throw new IllegalArgumentException("mode variant '" + name + "': '+" + part
                            + "' is not +spinN with N from 0 to 9999999"
                            + (part.startsWith("spin") ? "" : ", +wakeeager or +wakelazy"));
                }
            }
            rest = rest.substring(0, plus);
        }
        GraphKind graph = null;
        int slash = rest.indexOf('/');
        if (slash > 0) {
            String g = rest.substring(slash + 1);
            rest = rest.substring(0, slash);
            for (GraphKind k : GraphKind.values()) {
                if (k.cliName().equals(g)) {
                    graph = k;
                }
            }
            if (graph == null) {
                throw new IllegalArgumentException("mode variant '" + name + "': unknown graph '" + g + "'; graphs: "
                        + java.util.Arrays.stream(GraphKind.values()).map(GraphKind::cliName)
                        .collect(java.util.stream.Collectors.joining(", ")));
            }
        }
        SchedulerMode mode = SchedulerMode.fromCliName(rest);
        if (!mode.parallel() || mode.batchOfOne()) {
            throw new IllegalArgumentException("mode variant '" + name + "': " + mode.cliName()
                    + " is a reference and has no variants");
        }
        return new Psmr(mode, graph == null ? mode.graph() : graph, spins, wake);
    }
}
