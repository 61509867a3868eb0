package io.psmr.bench.faults;

import io.psmr.ordering.pbft.byzantine.ByzantineMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One fault that {@code psmr bench faults} injects into a PBFT cluster under load: a crash (SIGKILL), a pause
 * (SIGSTOP for the faulty window, then SIGCONT), or a warm replica turning Byzantine in one {@link ByzantineMode}.
 * The Byzantine scenarios are every constant of {@link ByzantineMode}, so a mode added there is benchmarked too.
 * Immutable; any thread.
 *
 * @param kind what is done to the target replicas
 * @param mode the Byzantine mode of a {@link Kind#BYZANTINE} scenario, else null
 */
public record FaultScenario(Kind kind, ByzantineMode mode) {

    /** What a scenario does to its targets. */
    public enum Kind {
        /** SIGKILL: the replica is gone for the rest of the run. */
        CRASH,
        /** SIGSTOP for the faulty window, then SIGCONT: the replica is alive but silent. */
        PAUSE,
        /**
         * The replica, started as a dormant Byzantine replica in a mode (correct until cued), is cued at the onset and
         * acts in its mode for the faulty window, without a restart.
         */
        BYZANTINE
    }

    /** Checks that a mode goes with the Byzantine kind, and only with it. */
    public FaultScenario {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.BYZANTINE) != (mode != null)) {
            throw new IllegalArgumentException("a Byzantine scenario needs a mode, and only it: " + kind + ", " + mode);
        }
    }

    /** A crash. */
    public static final FaultScenario CRASH = new FaultScenario(Kind.CRASH, null);

    /** A pause. */
    public static final FaultScenario PAUSE = new FaultScenario(Kind.PAUSE, null);

    /** A warm replica turning Byzantine in {@code mode}. */
    public static FaultScenario byzantine(ByzantineMode mode) {
        return new FaultScenario(Kind.BYZANTINE, Objects.requireNonNull(mode, "mode"));
    }

    /** Every scenario: crash, pause, then each Byzantine mode in declaration order. */
    public static List<FaultScenario> all() {
        List<FaultScenario> all = new ArrayList<>(List.of(CRASH, PAUSE));
        for (ByzantineMode m : ByzantineMode.values()) {
            all.add(byzantine(m));
        }
        return List.copyOf(all);
    }

    /** Every scenario's name, comma-separated, in the order of {@link #all()}. */
    public static String names() {
        return all().stream().map(FaultScenario::name).collect(Collectors.joining(", "));
    }

    /**
     * The scenario called {@code name}: {@code crash}, {@code pause} or a Byzantine mode's name.
     *
     * @throws IllegalArgumentException naming the unknown fault and listing the valid ones
     */
    public static FaultScenario fromName(String name) {
        for (FaultScenario s : all()) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + name + "'; the faults are " + names());
    }

    /** The name on the command line and in the report: {@code crash}, {@code pause}, or the mode's name. */
    public String name() {
        return kind == Kind.BYZANTINE ? mode.cliName() : kind.name().toLowerCase(Locale.ROOT);
    }

    /** What is done to {@code targets}, in words. */
    public String describe(List<String> targets) {
        String who = String.join(" and ", targets);
        return switch (kind) {
            case CRASH -> "SIGKILL " + who;
            case PAUSE -> "SIGSTOP " + who + " for the faulty window, then SIGCONT";
            case BYZANTINE -> "cue " + who + " to turn Byzantine: " + mode.cliName() + " (" + mode.description() + ")";
        };
    }

    @Override
    public String toString() {
        return name();
    }
}
