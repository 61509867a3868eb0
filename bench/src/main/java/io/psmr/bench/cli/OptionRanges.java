package io.psmr.bench.cli;

import java.util.List;
import picocli.CommandLine;

/**
 * The one range of each option that several commands share ({@code --workers}, {@code --batch},
 * {@code --pillars}), its wording in help texts, and its check, so that a flag accepts the same
 * values and is refused with the same message in every command. Stateless.
 */
public final class OptionRanges {

    /**
     * Most worker threads per replica: what a cluster.json accepts
     * ({@link io.psmr.kvstore.cluster.ClusterSettings}), and far above any machine's cores.
     */
    public static final int MAX_WORKERS = 1024;

    /**
     * Most client commands per batch: one below the store's limit of 4,096 commands per batch
     * ({@link io.psmr.kvstore.KvLimits}), because a batch that conflicts on purpose gains the hot
     * key's write.
     */
    public static final int MAX_BATCH = 4095;

    /** Most COP pillars per PBFT replica: what PBFT key files and a cluster.json accept. */
    public static final int MAX_PILLARS = 64;

    /** {@code --workers}' range as help texts say it. */
    public static final String WORKERS = "1 to " + MAX_WORKERS;

    /** {@code --batch}' range as help texts say it. */
    public static final String BATCH = "1 to " + MAX_BATCH;

    /** {@code --pillars}' range as help texts say it. */
    public static final String PILLARS = "1 to " + MAX_PILLARS;

    private OptionRanges() {
    }

    /** Checks one {@code --workers} value of {@code cl}'s command. */
    public static int workers(CommandLine cl, int value) {
        return check(cl, "--workers", value, MAX_WORKERS);
    }

    /** Checks one {@code --batch} value of {@code cl}'s command. */
    public static int batch(CommandLine cl, int value) {
        return check(cl, "--batch", value, MAX_BATCH);
    }

    /** Checks one {@code --pillars} value of {@code cl}'s command. */
    public static int pillars(CommandLine cl, int value) {
        return check(cl, "--pillars", value, MAX_PILLARS);
    }

    /** Checks every value of a comma-separated {@code --workers} list. */
    public static void workers(CommandLine cl, List<Integer> values) {
        values.forEach(v -> workers(cl, v));
    }

    /** Checks every value of a comma-separated {@code --batch} list. */
    public static void batch(CommandLine cl, List<Integer> values) {
        values.forEach(v -> batch(cl, v));
    }

    /** Checks every value of a comma-separated {@code --pillars} list. */
    public static void pillars(CommandLine cl, List<Integer> values) {
        values.forEach(v -> pillars(cl, v));
    }

    /**
     * {@code value} if it lies from 1 to {@code max}.
     *
     * @throws CommandLine.ParameterException "FLAG must be from 1 to MAX, got VALUE", a usage error
     */
    private static int check(CommandLine cl, String flag, int value, int max) {
        if (value < 1 || value > max) {
            throw new CommandLine.ParameterException(cl, flag + " must be from 1 to " + max + ", got " + value);
        }
        return value;
    }
}
