package io.psmr.bench.chaos;

import io.psmr.bench.load.OpRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The check that no client was acknowledged on the minority side of a partition. A campaign with partitions runs a
 * group of its clients through links of their own ({@link io.psmr.kvstore.cluster.links.LinkTable#CLIENTS_MINORITY});
 * each {@code partition-halves} and {@code isolate-leader} fault cuts them off with its minority side, so that they
 * reach only nodes that cannot make a quorum. An acknowledgement they receive then would come from a minority alone,
 * and could contradict what the majority side orders meanwhile.
 *
 * <p>The window of a partition runs from when its links were set ({@link InjectedFault#cutMillis()}) to when its heal
 * began ({@link InjectedFault#healingMillis()}). An operation of a minority client <em>violates</em> the check if it was
 * acknowledged (any status) inside the window and either was invoked inside it (its request left after the cut, so only
 * the minority side can have seen it) or was acknowledged more than {@value #GRACE_MILLIS} ms after the cut. Within that
 * grace an operation invoked before the cut may still complete: its answer crossed the links before they were cut and
 * only reached the client after. An operation acknowledged after the heal began is fine, wherever it was invoked: the
 * majority side may have ordered it, and linearizability checks its result. Stateless.
 */
public final class MinorityCheck {

    /** How long after the cut an answer that crossed the links before it may take to reach its client. */
    public static final long GRACE_MILLIS = 1000;

    private MinorityCheck() {
    }

    /**
     * What happened to the minority clients' operations in each partition that cut them off.
     *
     * @param faults   the faults carried out; those with a {@linkplain InjectedFault#minoritySide() minority side} and a
     *                 cut and heal time are checked
     * @param minority the minority clients' operations
     * @param t0Nanos  the start of the load ({@link System#nanoTime()}), time 0 of the faults
     */
    public static List<ChaosReport.MinoritySide> check(List<InjectedFault> faults, List<OpRecord> minority, long t0Nanos) {
        List<ChaosReport.MinoritySide> sides = new ArrayList<>();
        for (InjectedFault f : faults) {
            if (f.minoritySide().isEmpty() || f.cutMillis() < 0 || f.healingMillis() < 0) {
                continue;
            }
            double cut = f.cutMillis();
            double healing = f.healingMillis();
            long outstanding = 0;
            long sent = 0;
            long answeredAtCut = 0;
            long acknowledged = 0;
            long afterHeal = 0;
            List<String> examples = new ArrayList<>();
            for (OpRecord r : minority) {
                if (r.initial()) {
                    continue;
                }
                double invoke = (r.invokeNs() - t0Nanos) / 1e6;
                double complete = (r.completeNs() - t0Nanos) / 1e6;
                boolean ended = r.acknowledged() || r.error() != null;
                if (invoke >= healing || (ended && complete <= cut)) {
                    continue; // not outstanding during the partition
                }
                outstanding++;
                boolean sentDuring = invoke >= cut;
                if (sentDuring) {
                    sent++;
                }
                if (!r.acknowledged()) {
                    continue;
                }
                if (complete >= healing) {
                    afterHeal++;
                } else if (sentDuring || complete > cut + GRACE_MILLIS) {
                    acknowledged++;
                    if (examples.size() < 3) {
                        examples.add(String.format(Locale.ROOT, "client %d %s invoked at %.3f s, answered %s at %.3f s",
                                r.client(), r.op(), invoke / 1000, r.status(), complete / 1000));
                    }
                } else {
                    answeredAtCut++;
                }
            }
            sides.add(new ChaosReport.MinoritySide(f.kind().cliName(), f.minoritySide(), f.cutMillis(), f.healingMillis(),
                    outstanding, sent, answeredAtCut, acknowledged, afterHeal, examples));
        }
        return sides;
    }
}
