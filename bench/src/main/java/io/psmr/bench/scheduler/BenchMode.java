package io.psmr.bench.scheduler;

import io.psmr.bench.cos.CosVariant;
import io.psmr.scheduler.SchedulerMode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a cell of {@code psmr bench} runs: one of psmr's {@link SchedulerMode}s, or one of the COS
 * baselines ({@link CosVariant}: Escobar et al., Middleware '19). Kept on the bench side so that the
 * scheduler module's vocabulary knows nothing of the baselines. Immutable; any thread.
 */
public sealed interface BenchMode permits BenchMode.Psmr, BenchMode.Cos {

    /** The name on the command line, in results files and charts. */
    String cliName();

    /** Whether this runs worker threads (everything but {@link SchedulerMode#SEQUENTIAL}). */
    boolean parallel();

    /** Whether each delivery carries one command whatever the batch size asked (CBASE, COS). */
    boolean batchOfOne();

    /** Report order: psmr's modes in declaration order, then the COS variants. */
    int order();

    /** A psmr scheduler configuration. */
    record Psmr(SchedulerMode mode) implements BenchMode {
        public Psmr {
            if (mode == null) {
                throw new IllegalArgumentException("mode is null");
            }
        }

        @Override
        public String cliName() {
            return mode.cliName();
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

    /** Every name, comma-separated: psmr's modes, then the COS variants. */
    static String cliNames() {
        return SchedulerMode.cliNames() + ", " + CosVariant.cliNames();
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
        try {
            return new Psmr(SchedulerMode.fromCliName(name));
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith("unknown mode")) {
                throw new IllegalArgumentException("unknown mode '" + name + "'; modes: " + cliNames(), e);
            }
            throw e;
        }
    }
}
