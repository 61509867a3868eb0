package io.psmr.bench.chaos;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a fault campaign did and found: the seed, the faults (planned and carried out), the
 * operations, the unavailability windows, the digests and the checkers' verdicts. {@link #failures}
 * names every check that did not hold; the campaign passed if it is empty. Immutable.
 *
 * @param seed                 the schedule's (and clients') seed
 * @param ordering             ringpaxos, ratis or pbft
 * @param cluster              the cluster directory
 * @param durationMillis       how long the load ran, as asked
 * @param faultKinds           the kinds enabled ({@code kill}, {@code pause}, {@code byzantine}, and {@code restart} if killed nodes came
 *                             back during the load)
 * @param targets              which nodes could be faulted, per kind, with the bounds
 * @param schedule             the planned faults
 * @param faults               the faults carried out
 * @param operations           operations by outcome
 * @param unavailableThresholdMillis the shortest gap counted as unavailability
 * @param unavailable          the periods with no operation completing for longer than that
 * @param longestUnavailableMillis the longest of them (0 if none)
 * @param digests              the replicas' idle digests at one common instance, hex, after the heal
 * @param replicas             the correct replicas, whose digests are compared: the cluster's replicas less, on PBFT,
 *                             those already faulty when the campaign started
 * @param writesKept           the final reads of every key agree with the history (null: not checked)
 * @param linearizable         the history is linearizable per key (null: not checked)
 * @param keysChecked          keys the checker saw
 * @param violations           the checker's findings (the first few)
 * @param failures             what did not hold, one line each
 * @param stalled              the campaign made no progress: no operation completed, the load stalled, or the
 *                             replicas did not converge after the heal (liveness)
 * @param network              what each network fault did to the throughput of the clients on its majority side
 * @param minorityClients      how many of the clients went with the minority side of each partition (0: none did, and
 *                             {@code minority} is empty)
 * @param minority             per partition that cut the minority clients off, their operations ({@link MinorityCheck})
 * @param beyondF              the schedule could cut off more than f nodes at once ({@code --beyond-f}): only safety is
 *                             checked, and no progress is no failure
 * @param notes                with {@code beyondF}, what said that the cluster made no progress (no failures there)
 */
public record ChaosReport(long seed, String ordering, String cluster, long durationMillis, List<String> faultKinds,
                          List<String> targets, List<PlannedFault> schedule, List<InjectedFault> faults,
                          Operations operations, long unavailableThresholdMillis, List<Window> unavailable,
                          long longestUnavailableMillis, List<String> digests, int replicas, Boolean writesKept,
                          Boolean linearizable, int keysChecked, List<String> violations, List<String> failures,
                          boolean stalled, List<NetworkEffect> network, int minorityClients, List<MinoritySide> minority,
                          boolean beyondF, List<String> notes) {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * Operations by outcome, Jepsen's way.
     *
     * @param ok      answered (any status that executed: OK, NOT_FOUND, EXISTS)
     * @param failed  answered with a status that executed nothing (REJECTED, TOO_LARGE, MALFORMED)
     * @param unknown not answered (the proxy gave up or closed): may or may not have taken effect
     */
    public record Operations(long ok, long failed, long unknown) {
    }

    /** A period in which no operation completed, in milliseconds from the start of the load. */
    public record Window(long startMillis, long lengthMillis) {
    }

    /**
     * What one network fault did to the clients, who are on its majority side.
     *
     * @param kind               the fault
     * @param detail             what it did to which links
     * @param atMillis           when it struck, from the start of the load
     * @param healedMillis       when its links passed again
     * @param throughputFraction operations completed per second while it lasted, over those completed while no fault
     *                           lasted
     * @param recoveryMillis     from the heal to the first operation completed after it
     */
    public record NetworkEffect(String kind, String detail, long atMillis, long healedMillis, double throughputFraction,
                                long recoveryMillis) {
    }

    /**
     * What the clients on the minority side of one partition saw ({@link MinorityCheck}).
     *
     * @param kind          the fault: {@code partition-halves} or {@code isolate-leader}
     * @param reached       the nodes the minority clients still reached
     * @param cutMillis     when the links were cut, from the start of the load
     * @param healingMillis when the heal began
     * @param outstanding   their operations outstanding at some time in between
     * @param sent          of those, the ones invoked in between
     * @param answeredAtCut operations invoked before the cut and answered within the grace after it (their answers crossed
     *                      the links before the cut)
     * @param acknowledged  operations acknowledged in between that only the minority side can have answered: each one
     *                      a violation (expected 0)
     * @param afterHeal     operations outstanding in between and acknowledged once the heal began (allowed)
     * @param examples      the first violations, for people
     */
    public record MinoritySide(String kind, List<String> reached, long cutMillis, long healingMillis, long outstanding,
                               long sent, long answeredAtCut, long acknowledged, long afterHeal, List<String> examples) {
        /** Copies the lists. */
        public MinoritySide {
            reached = List.copyOf(reached);
            examples = List.copyOf(examples);
        }
    }

    /** A report without clients on a minority side, of a campaign within the bounds. */
    public ChaosReport(long seed, String ordering, String cluster, long durationMillis, List<String> faultKinds,
                       List<String> targets, List<PlannedFault> schedule, List<InjectedFault> faults,
                       Operations operations, long unavailableThresholdMillis, List<Window> unavailable,
                       long longestUnavailableMillis, List<String> digests, int replicas, Boolean writesKept,
                       Boolean linearizable, int keysChecked, List<String> violations, List<String> failures,
                       boolean stalled, List<NetworkEffect> network) {
        this(seed, ordering, cluster, durationMillis, faultKinds, targets, schedule, faults, operations,
                unavailableThresholdMillis, unavailable, longestUnavailableMillis, digests, replicas, writesKept,
                linearizable, keysChecked, violations, failures, stalled, network, 0, List.of(), false, List.of());
    }

    /** A report of a campaign without network faults. */
    public ChaosReport(long seed, String ordering, String cluster, long durationMillis, List<String> faultKinds,
                       List<String> targets, List<PlannedFault> schedule, List<InjectedFault> faults,
                       Operations operations, long unavailableThresholdMillis, List<Window> unavailable,
                       long longestUnavailableMillis, List<String> digests, int replicas, Boolean writesKept,
                       Boolean linearizable, int keysChecked, List<String> violations, List<String> failures,
                       boolean stalled) {
        this(seed, ordering, cluster, durationMillis, faultKinds, targets, schedule, faults, operations,
                unavailableThresholdMillis, unavailable, longestUnavailableMillis, digests, replicas, writesKept,
                linearizable, keysChecked, violations, failures, stalled, List.of());
    }

    /** Copies the lists. */
    public ChaosReport {
        faultKinds = List.copyOf(faultKinds);
        targets = List.copyOf(targets);
        schedule = List.copyOf(schedule);
        faults = List.copyOf(faults);
        unavailable = List.copyOf(unavailable);
        digests = List.copyOf(digests);
        violations = List.copyOf(violations);
        failures = List.copyOf(failures);
        network = List.copyOf(network);
        minority = List.copyOf(minority);
        notes = List.copyOf(notes);
    }

    /** Whether every check held. */
    @JsonProperty("passed")
    public boolean passed() {
        return failures.isEmpty();
    }

    /**
     * Whether a safety check failed: the replicas' digests differ, the history is not linearizable,
     * an acknowledged write was lost, or a client was acknowledged on the minority side of a partition.
     */
    @JsonProperty("unsafe")
    public boolean unsafe() {
        return digests.stream().distinct().count() > 1 || Boolean.FALSE.equals(linearizable)
                || Boolean.FALSE.equals(writesKept) || minorityAcknowledged() > 0;
    }

    /** Operations acknowledged on the minority side of a partition, over every partition: each a violation. */
    @JsonProperty("minorityAcknowledged")
    public long minorityAcknowledged() {
        return minority.stream().mapToLong(MinoritySide::acknowledged).sum();
    }

    /** The report as indented JSON. */
    public String toJson() {
        try {
            return JSON.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
        }
    }

    /** Writes {@link #toJson()} to {@code file}. */
    public void writeJson(Path file) {
        try {
            Files.writeString(file, toJson() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + file + ": " + e.getMessage(), e);
        }
    }

    /** The report for people. */
    public void printText(PrintWriter out) {
        out.printf(Locale.ROOT, "chaos: seed %d, %s cluster in %s, %s of load, faults %s%n", seed, ordering, cluster,
                seconds(durationMillis), String.join(",", faultKinds));
        targets.forEach(t -> out.println("targets: " + t));
        out.printf(Locale.ROOT, "faults injected: %d of %d planned%n", faults.size(), schedule.size());
        if (!faults.isEmpty()) {
            out.printf(Locale.ROOT, "  %8s  %8s  %-5s  %-12s  %s%n", "at", "planned", "kind", "node", "healed at");
        }
        for (InjectedFault f : faults) {
            out.printf(Locale.ROOT, "  %8s  %8s  %-5s  %-12s  %s%s%s%n", seconds(f.atMillis()), seconds(f.plannedMillis()),
                    f.kindName(), f.node(),
                    f.healedMillis() < 0 ? "NOT HEALED" : seconds(f.healedMillis()) + (f.healedAtEnd() ? " (final heal)" : ""),
                    f.detail() == null ? "" : "  " + f.detail(),
                    f.error() == null ? "" : "  error: " + f.error());
        }
        if (!network.isEmpty()) {
            out.println("network faults, seen from the clients on the majority side:");
            for (NetworkEffect e : network) {
                out.printf(Locale.ROOT, "  %-26s %8s-%8s  throughput %.2f of fault-free, first completion %s after the"
                        + " heal%n", e.kind(), seconds(e.atMillis()), seconds(e.healedMillis()), e.throughputFraction(),
                        seconds(e.recoveryMillis()));
            }
        }
        if (minorityClients > 0) {
            out.printf(Locale.ROOT, "clients on the minority side of partitions: %d; acknowledged there: %d (must be 0)%n",
                    minorityClients, minorityAcknowledged());
            for (MinoritySide m : minority) {
                out.printf(Locale.ROOT, "  %-16s %8s-%8s  reached %s: %d outstanding, %d sent during it, %d acknowledged"
                        + " during it, %d answered at the cut, %d acknowledged after the heal%n", m.kind(),
                        seconds(m.cutMillis()), seconds(m.healingMillis()), m.reached(), m.outstanding(), m.sent(),
                        m.acknowledged(), m.answeredAtCut(), m.afterHeal());
                m.examples().forEach(e -> out.println("    " + e));
            }
        }
        out.printf(Locale.ROOT, "operations: %d ok, %d failed, %d unknown%n", operations.ok(), operations.failed(),
                operations.unknown());
        out.printf(Locale.ROOT, "unavailability (no operation completed for over %d ms): %d windows%s%n",
                unavailableThresholdMillis, unavailable.size(), unavailable.isEmpty() ? ""
                        : ", longest " + seconds(longestUnavailableMillis));
        for (Window w : unavailable) {
            out.printf(Locale.ROOT, "  from %8s for %s%n", seconds(w.startMillis()), seconds(w.lengthMillis()));
        }
        out.printf(Locale.ROOT, "digests: %d of %d replicas at one idle instance: %s%s%n", digests.size(), replicas,
                digests.isEmpty() ? "none" : String.join(" ", digests),
                digests.isEmpty() ? "" : digests.stream().distinct().count() == 1 ? " (equal)" : " (DIFFER)");
        out.println("acknowledged writes kept: " + yesNo(writesKept) + (writesKept == null ? "" : " (final reads of " + keysChecked
                + " keys against the history)"));
        out.println("linearizable per key: " + yesNo(linearizable));
        violations.forEach(v -> out.println("  " + v));
        if (beyondF) {
            out.println("beyond f: more than f nodes could be cut off at once; safety alone is checked"
                    + (stalled ? " (progress stalled, which is no failure here)" : ""));
            notes.forEach(n -> out.println("  " + n));
        }
        if (failures.isEmpty()) {
            out.println("verdict: PASS");
        } else {
            out.println("verdict: FAIL");
            failures.forEach(f -> out.println("  " + f));
        }
        out.flush();
    }

    private static String yesNo(Boolean b) {
        return b == null ? "not checked" : b ? "yes" : "NO";
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.2f s", millis / 1000.0);
    }
}
