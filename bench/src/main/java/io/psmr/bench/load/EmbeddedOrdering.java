package io.psmr.bench.load;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.ratis.RatisDurability;
import io.psmr.ordering.OrderingProtocol;
import io.psmr.ordering.pbft.PbftConfig;
import java.util.List;
import java.util.function.Consumer;

/**
 * How one ordering protocol runs inside the load process: how its embedded cluster starts and takes
 * load, which settings a target of it carries, and what reports say about those settings. Commands
 * and reports ask the runner of a target's protocol ({@link #of}) instead of branching on the protocol.
 *
 * <p>Implementations are stateless singletons; any thread may ask them, and {@link #run} runs on the
 * calling thread, blocking until the run ends.
 */
public interface EmbeddedOrdering {

    /** The settings a command has parsed, asked for only by the runner whose protocol takes them. */
    interface Settings {

        /** The PBFT configuration of the flags; a usage error if they are bad. */
        PbftConfig pbft();

        /** How embedded Ratis peers store their log; a usage error if the flag is bad. */
        RatisDurability ratisDurability();

        /** MLBFT's partitions and the f of its PBFT instances, as a target; a usage error if the flags are bad. */
        LoadTarget mlbft();
    }

    /** Every runner, one per protocol, in the order commands check their settings' flags. */
    static List<EmbeddedOrdering> all() {
        return List.of(LocalLoadRun.RUNNER, RingPaxosLoadRun.RUNNER, PbftLoadRun.RUNNER, RatisLoadRun.RUNNER,
                MlbftLoadRun.RUNNER);
    }

    /** The runner of {@code protocol}. */
    static EmbeddedOrdering of(OrderingProtocol protocol) {
        return switch (protocol) {
            case LOCAL -> LocalLoadRun.RUNNER;
            case RING_PAXOS -> RingPaxosLoadRun.RUNNER;
            case PBFT -> PbftLoadRun.RUNNER;
            case RATIS -> RatisLoadRun.RUNNER;
            case MLBFT -> MlbftLoadRun.RUNNER;
        };
    }

    /** The protocol this runner runs. */
    OrderingProtocol protocol();

    /**
     * Whether {@code ./psmr load} runs this protocol inside its own process; if not, the message
     * that says how to run it instead.
     */
    default String notInProcess() {
        return null;
    }

    /** Whether clients accept a result only from {@code f + 1} matching replies, so that a target carries its {@link PbftConfig}. */
    default boolean needsMatchingReplies() {
        return false;
    }

    /** Whether embedded peers may store their log less durably than {@link RatisDurability#SYNC}. */
    default boolean tradesDurability() {
        return false;
    }

    /** The flags of this protocol's own settings, refused under any other. */
    default List<String> settingFlags() {
        return List.of();
    }

    /** What usage errors call this protocol's settings, e.g. {@code PBFT} in "--pillars is a PBFT setting". */
    default String settingsName() {
        return protocol().description();
    }

    /** The embedded target of this protocol with the settings it takes from {@code settings}. */
    default LoadTarget target(Settings settings) {
        return LoadTarget.embedded(protocol());
    }

    /** What a report appends to the protocol's description for {@code target}'s settings; empty if nothing. */
    default String describeSettings(LoadTarget target) {
        return "";
    }

    /** Adds {@code target}'s settings to a JSON report. */
    default void putSettings(LoadTarget target, ObjectNode report) {
    }

    /**
     * Runs the load over an embedded cluster of this protocol and returns the report.
     *
     * @param started called with the embedded cluster once it runs, before the clients start; may be null;
     *                called only by runners whose cluster is an {@link EmbeddedCluster}
     * @param inspect called with the quiescent cluster before it closes; may be null; called only as {@code started}
     * @throws LoadStalledException if the run stalled; it carries the report of what completed (no digests)
     * @throws IllegalStateException if the replicas do not apply everything in time once the clients stop
     */
    LoadReport run(LoadOptions o, LoadTarget target, HistorySink history, RunControls controls,
                   Consumer<EmbeddedCluster> started, Consumer<EmbeddedCluster> inspect) throws InterruptedException;
}
