package io.psmr.bench.e2e;

import io.psmr.ordering.OrderingProtocol;
import java.util.ArrayList;
import java.util.List;

/**
 * Which ordering layers {@code psmr bench e2e --ordering NAME} runs: one {@link OrderingProtocol}
 * by its name, a comma-separated list of them (e.g. {@code local,ringpaxos,ratis}: run interleaved, in
 * that order), {@code both} (local, then ringpaxos: the ratio ringpaxos/local from one invocation)
 * or {@code all} (every engine: local, ringpaxos, pbft and ratis; mlbft, a baseline, runs when named). Stateless.
 */
public final class E2eOrderings {

    /** The orderings e2e embeds, in report order. */
    public static final List<OrderingProtocol> SUPPORTED = List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS,
            OrderingProtocol.PBFT, OrderingProtocol.RATIS, OrderingProtocol.MLBFT);

    /** What {@code all} runs: every engine behind psmr's ordering SPI; MLBFT, a baseline, runs when named. */
    public static final List<OrderingProtocol> ENGINES = List.of(OrderingProtocol.LOCAL, OrderingProtocol.RING_PAXOS,
            OrderingProtocol.PBFT, OrderingProtocol.RATIS);

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
            case "all" -> ENGINES;
            default -> {
                List<OrderingProtocol> out = new ArrayList<>();
                for (String one : name.split(",", -1)) {
                    OrderingProtocol o = OrderingProtocol.fromCliName(one.trim());
                    if (!SUPPORTED.contains(o)) {
                        throw new IllegalArgumentException("bench e2e does not embed " + o.cliName() + "; expected local, "
                                + "ringpaxos, pbft, ratis, mlbft, a comma-separated list of them, both or all");
                    }
                    if (out.contains(o)) {
                        throw new IllegalArgumentException("ordering " + o.cliName() + " is listed twice in '" + name + "'");
                    }
                    out.add(o);
                }
                yield List.copyOf(out);
            }
        };
    }
}
