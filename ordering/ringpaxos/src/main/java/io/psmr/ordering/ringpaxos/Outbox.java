package io.psmr.ordering.ringpaxos;

import java.util.ArrayList;
import java.util.List;

/** Accumulates a node's outputs between two drains; the mutable side of {@link Ready}. */
final class Outbox {
    private final List<Message> messages = new ArrayList<>();
    private final List<Ready.Delivery> deliveries = new ArrayList<>();
    private final List<ProposalId> acknowledged = new ArrayList<>();
    private long trimmedPast;

    void send(Message message) {
        messages.add(message);
    }

    void deliver(long instance, Value value) {
        deliveries.add(new Ready.Delivery(instance, value));
    }

    void acknowledge(ProposalId id) {
        acknowledged.add(id);
    }

    void trimmedPast(long trimPoint) {
        trimmedPast = trimPoint;
    }

    /** Returns everything accumulated and starts empty again. */
    Ready drain() {
        if (messages.isEmpty() && deliveries.isEmpty() && acknowledged.isEmpty() && trimmedPast == 0) {
            return Ready.EMPTY;
        }
        Ready ready = new Ready(messages, deliveries, acknowledged, trimmedPast);
        messages.clear();
        deliveries.clear();
        acknowledged.clear();
        trimmedPast = 0;
        return ready;
    }
}
