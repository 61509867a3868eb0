package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.LeaderRotation;
import java.util.Locale;

/**
 * One point of a {@code psmr bench e2e} sweep: what an (ordering, mode) pair runs with besides the mode.
 *
 * @param pillars   PBFT's pillars per replica (COP's Np); 0 for orderings without pillars
 * @param rotation  PBFT's leader rotation; null for orderings without it
 * @param batch     most client commands per batch (the mode may lower it: CBASE uses 1)
 * @param crossPct  percentage of operations that are MULTI_PUTs over two key partitions
 */
public record E2eVariant(int pillars, LeaderRotation rotation, int batch, int crossPct) {

    /** PBFT's pillars when {@code --pillars} is not given, as {@code ./psmr load --ordering pbft}. */
    public static final int DEFAULT_PILLARS = 2;

    /** PBFT's leader rotation when {@code --leader-rotation} is not given. */
    public static final LeaderRotation DEFAULT_ROTATION = LeaderRotation.ROTATING;

    /** This point as {@code ordering} runs it: without pillars and rotation unless it is PBFT. */
    public E2eVariant forOrdering(OrderingProtocol ordering) {
        return ordering == OrderingProtocol.PBFT ? this : new E2eVariant(0, null, batch, crossPct);
    }

    /** {@code rotating} or {@code fixed}, as the flag writes it; empty without a rotation. */
    public String rotationName() {
        return rotation == null ? "" : rotation.name().toLowerCase(Locale.ROOT);
    }

    /** A short label, e.g. {@code Np=2 rotating b=200 x=10%}, leaving out what this point does not have. */
    public String label() {
        StringBuilder b = new StringBuilder();
        if (pillars > 0) {
            b.append("Np=").append(pillars).append(' ').append(rotationName()).append(' ');
        }
        b.append("b=").append(batch);
        if (crossPct > 0) {
            b.append(" x=").append(crossPct).append('%');
        }
        return b.toString();
    }
}
