package io.psmr.ordering.ringpaxos;

import io.psmr.ordering.protocol.Ready;

/** For tests that drive a core by hand: its Ready, advanced at once (nothing is persisted or sent). */
final class Cores {

    private Cores() {
    }

    static Ready<Message, StorageChange, Output> drain(RingPaxosCore core) {
        Ready<Message, StorageChange, Output> ready = core.ready();
        core.advance(ready);
        return ready;
    }
}
