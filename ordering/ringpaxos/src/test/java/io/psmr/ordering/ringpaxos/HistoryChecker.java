package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks learners' delivery histories against atomic broadcast's properties. Independent of the
 * protocol's code: it sees only what was proposed and what each learner delivered.
 */
final class HistoryChecker {

    private HistoryChecker() {
    }

    /**
     * Returns every violation found (empty when the histories are correct).
     *
     * @param delivered  learner id → its deliveries, in order
     * @param proposed   every proposal made, with its payload
     * @param requireAll whether every proposal must have been delivered by every learner (liveness)
     */
    static List<String> violations(Map<Integer, List<Output.Delivery>> delivered, Map<ProposalId, byte[]> proposed,
                                   boolean requireAll) {
        List<String> out = new ArrayList<>();
        // Agreement: one value per instance across all learners.
        Map<Long, Value> byInstance = new HashMap<>();
        for (Map.Entry<Integer, List<Output.Delivery>> e : delivered.entrySet()) {
            Set<ProposalId> seen = new HashSet<>();
            long lastInstance = 0;
            for (Output.Delivery d : e.getValue()) {
                Value prior = byInstance.putIfAbsent(d.instance(), d.value());
                if (prior != null && !prior.equals(d.value())) {
                    out.add("agreement: instance " + d.instance() + " is " + prior + " and " + d.value()
                            + " (learner " + e.getKey() + ")");
                }
                // Integrity: only proposed values, each once.
                byte[] data = proposed.get(d.value().id());
                if (data == null || !Arrays.equals(data, d.value().data())) {
                    out.add("integrity: learner " + e.getKey() + " delivered " + d.value() + " that was never proposed");
                }
                if (!seen.add(d.value().id())) {
                    out.add("integrity: learner " + e.getKey() + " delivered " + d.value().id() + " twice");
                }
                if (d.instance() <= lastInstance) {
                    out.add("order: learner " + e.getKey() + " delivered instance " + d.instance() + " after " + lastInstance);
                }
                lastInstance = d.instance();
            }
        }
        // Total order: every learner's sequence is a prefix of every longer one.
        List<List<Output.Delivery>> all = new ArrayList<>(delivered.values());
        for (int i = 0; i < all.size(); i++) {
            for (int j = i + 1; j < all.size(); j++) {
                List<Output.Delivery> a = all.get(i);
                List<Output.Delivery> b = all.get(j);
                int n = Math.min(a.size(), b.size());
                for (int k = 0; k < n; k++) {
                    if (!a.get(k).equals(b.get(k))) {
                        out.add("total order: learners differ at position " + k + ": " + a.get(k) + " vs " + b.get(k));
                        break;
                    }
                }
            }
        }
        if (requireAll) {
            for (Map.Entry<Integer, List<Output.Delivery>> e : delivered.entrySet()) {
                Set<ProposalId> got = new HashSet<>();
                e.getValue().forEach(d -> got.add(d.value().id()));
                long missing = proposed.keySet().stream().filter(id -> !got.contains(id)).count();
                if (missing > 0) {
                    out.add("liveness: learner " + e.getKey() + " is missing " + missing + " of " + proposed.size()
                            + " proposals");
                }
            }
        }
        return out;
    }
}
