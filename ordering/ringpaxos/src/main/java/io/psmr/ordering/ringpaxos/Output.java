package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;

/**
 * What a Ring Paxos core hands its host in {@link io.psmr.ordering.protocol.Ready#outputs()}: values delivered
 * (learners), proposals known ordered (proposers), and a learner's signal that it was trimmed past.
 */
public sealed interface Output permits Output.Delivery, Output.Acknowledged, Output.TrimmedPast {

    /**
     * One value delivered by a learner, in order; never a no-op, never a proposal twice.
     *
     * @param instance the Paxos instance it was decided in (instances of no-ops and duplicates are skipped)
     * @param value    the value
     */
    record Delivery(long instance, Value value) implements Output {
    }

    /**
     * A proposal this proposer now knows is decided.
     *
     * @param id the proposal
     */
    record Acknowledged(ProposalId id) implements Output {
    }

    /**
     * Once in a learner's life: an acceptor has discarded the learner's next instance, at or below
     * {@code trimPoint}. The learner can never fetch it and has stopped; its host must install a checkpoint from
     * another replica (state transfer).
     *
     * @param trimPoint that acceptor's trim point, at least 1
     */
    record TrimmedPast(long trimPoint) implements Output {
        /** Checks the trim point. */
        public TrimmedPast {
            if (trimPoint < 1) {
                throw new IllegalArgumentException("trimPoint must be positive: " + trimPoint);
            }
        }
    }

    /** The deliveries among {@code outputs}, in order. */
    static List<Delivery> deliveries(List<? extends Output> outputs) {
        List<Delivery> out = new ArrayList<>();
        for (Output o : outputs) {
            if (o instanceof Delivery d) {
                out.add(d);
            }
        }
        return out;
    }

    /** The proposals acknowledged among {@code outputs}, in order. */
    static List<ProposalId> acknowledged(List<? extends Output> outputs) {
        List<ProposalId> out = new ArrayList<>();
        for (Output o : outputs) {
            if (o instanceof Acknowledged a) {
                out.add(a.id());
            }
        }
        return out;
    }

    /** The trim point of the trimmed-past signal among {@code outputs}, or 0 if there is none. */
    static long trimmedPast(List<? extends Output> outputs) {
        for (Output o : outputs) {
            if (o instanceof TrimmedPast t) {
                return t.trimPoint();
            }
        }
        return 0;
    }
}
