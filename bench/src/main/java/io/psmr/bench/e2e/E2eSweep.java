package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import java.util.ArrayList;
import java.util.List;

/**
 * The sweep of one {@code psmr bench e2e} invocation: the values of {@code --pillars}, {@code --leader-rotation},
 * {@code --batch} and {@code --cross-partition}, and {@code --partitions}. Every (ordering, mode) pair runs at every
 * point of their product that applies to it: pillars and rotation only to PBFT.
 *
 * @param pillars    PBFT's pillars per replica, in order
 * @param rotations  PBFT's leader rotations, in order
 * @param batches    most client commands per batch, in order
 * @param crossPcts  percentages of two-partition MULTI_PUTs, in order
 * @param partitions key partitions, 0 for none
 * @param given      whether a sweep flag was given: then the report adds the sweep's columns, tables and charts
 */
public record E2eSweep(List<Integer> pillars, List<LeaderRotation> rotations, List<Integer> batches, List<Integer> crossPcts,
                       int partitions, boolean given) {

    /** Copies the lists. */
    public E2eSweep {
        pillars = List.copyOf(pillars);
        rotations = List.copyOf(rotations);
        batches = List.copyOf(batches);
        crossPcts = List.copyOf(crossPcts);
        if (pillars.isEmpty() || rotations.isEmpty() || batches.isEmpty() || crossPcts.isEmpty()) {
            throw new IllegalArgumentException("every sweep dimension needs at least one value");
        }
    }

    /** MLBFT's partitions at these points: {@code --partitions}, else the thesis' 4. */
    public int mlbftPartitions() {
        return partitions > 0 ? partitions : io.psmr.kvstore.mlbft.EmbeddedMlbftCluster.DEFAULT_PARTITIONS;
    }

    /** No sweep: one point, PBFT's defaults, {@code batch}, no partitions. */
    public static E2eSweep none(int batch) {
        return new E2eSweep(List.of(E2eVariant.DEFAULT_PILLARS), List.of(E2eVariant.DEFAULT_ROTATION), List.of(batch),
                List.of(0), 0, false);
    }

    /**
     * The points {@code ordering} runs, in report order: cross-partition share, then batch, then (PBFT only)
     * rotation, then pillars, the last varying fastest.
     */
    public List<E2eVariant> variants(OrderingProtocol ordering) {
        List<E2eVariant> out = new ArrayList<>();
        for (int x : crossPcts) {
            for (int b : batches) {
                if (ordering == OrderingProtocol.PBFT) {
                    for (LeaderRotation r : rotations) {
                        for (int p : pillars) {
                            out.add(new E2eVariant(p, r, b, x));
                        }
                    }
                } else {
                    out.add(new E2eVariant(0, null, b, x));
                }
            }
        }
        return out;
    }
}
