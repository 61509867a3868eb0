package io.psmr.bench.load;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.ordering.OrderingProtocol;
import java.util.function.Consumer;

/**
 * Ring Paxos under {@code ./psmr load}: it runs as separate processes ({@code ./psmr cluster start}, then
 * {@code --cluster DIR}), so there is no in-process load run of it.
 */
final class RingPaxosLoadRun implements EmbeddedOrdering {

    static final RingPaxosLoadRun RUNNER = new RingPaxosLoadRun();

    private RingPaxosLoadRun() {
    }

    @Override
    public OrderingProtocol protocol() {
        return OrderingProtocol.RING_PAXOS;
    }

    @Override
    public String notInProcess() {
        return "--ordering " + protocol().cliName() + " runs as separate processes: start them with ./psmr cluster start, "
                + "then use --cluster DIR";
    }

    /** @throws IllegalArgumentException always: see {@link #notInProcess} */
    @Override
    public LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                          Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) {
        throw new IllegalArgumentException(notInProcess());
    }
}
