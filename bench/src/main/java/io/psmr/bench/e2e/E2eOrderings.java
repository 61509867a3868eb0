package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import java.util.List;

/**
 * Which ordering layers {@code psmr bench e2e --ordering NAME} runs: one {@link OrderingProtocol}
 * by its name, {@code both} (local, then ringpaxos: the ratio ringpaxos/local from one invocation)
 * or {@code all} (every ordering e2e can embed: local, ringpaxos and pbft). Stateless.
 */
public final class E2eOrderings {

    /** The orderings e2e embeds, in report order. Ratis runs as processes: ./psmr load or cluster. */
    public static final List<OrderingProtocol> SUPPORTED = List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS,
            OrderingProtocol.PBFT);

    private E2eOrderings() {
    }

    /**
     * The orderings {@code name} selects.
     *
     * @throws IllegalArgumentException naming what is wrong and what e2e accepts
     */
    public static List<OrderingProtocol> select(String name) {
        return switch (name) {
            case "both" -> List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS);
            case "all" -> SUPPORTED;
            default -> {
                OrderingProtocol o = OrderingProtocol.fromCliName(name);
                if (!SUPPORTED.contains(o)) {
                    throw new IllegalArgumentException("bench e2e does not embed " + o.cliName() + "; expected local, ringpaxos, "
                            + "pbft, both or all (measure ratis with ./psmr load --ordering ratis)");
                }
                yield List.of(o);
            }
        };
    }
}
