package io.psmr.ordering.ringpaxos;

import java.util.Arrays;
import java.util.Objects;

/**
 * A Paxos value: one proposal (for psmr, one batch of a client proxy) or the no-op that fills an
 * instance nobody proposed for. No-ops are decided like any value but never delivered.
 *
 * <p>The payload is shared, never copied: nobody may modify it after construction.
 *
 * @param id   the proposal's identity, {@link ProposalId#NOOP} for the no-op
 * @param data the payload
 */
public record Value(ProposalId id, byte[] data) {

    /** The no-op value. */
    public static final Value NOOP = new Value(ProposalId.NOOP, new byte[0]);

    /** Validates the components. */
    public Value {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(data, "data");
    }

    /** Whether this is the no-op. */
    public boolean isNoop() {
        return id.equals(ProposalId.NOOP);
    }

    // Records compare arrays by reference; values must compare by content, because two acceptors'
    // copies of one proposal are different arrays.
    @Override
    public boolean equals(Object o) {
        return o instanceof Value v && id.equals(v.id) && Arrays.equals(data, v.data);
    }

    @Override
    public int hashCode() {
        return 31 * id.hashCode() + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return isNoop() ? "Value[NOOP]" : "Value[" + id.proposer() + ":" + id.seq() + ", " + data.length + " bytes]";
    }
}
