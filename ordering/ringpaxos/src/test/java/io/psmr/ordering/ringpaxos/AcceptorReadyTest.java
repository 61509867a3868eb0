package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.protocol.Ready;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An acceptor's promise and vote travel in the writes of the same Ready as the messages that carry them. */
class AcceptorReadyTest {

    private static final RingPaxosConfig CONFIG = RingPaxosConfig.of(List.of(0, 1, 2), List.of(10), List.of(20));

    @Test
    void thePromiseAndTheVoteAreWritesOfTheReadyThatSendsThem() {
        AcceptorNode a = new AcceptorNode(CONFIG, 1, new AcceptorStorage(CONFIG.logCapacity()));
        Ballot b = new Ballot(5, 0);
        a.step(new Message.Prepare(0, 1, b, 1));
        Ready<Message, StorageChange, Output> promised = a.ready();
        assertEquals(List.of(new StorageChange.Promised(b)), promised.writes());
        assertTrue(promised.messages().stream().anyMatch(m -> m instanceof Message.Promise p && p.ballot().equals(b)),
                promised.messages().toString());
        a.advance(promised);

        Value v = new Value(new ProposalId(20, 1), new byte[] {7});
        a.step(new Message.Accept(0, 1, b, 1, v, List.of(0, 1), 1));
        Ready<Message, StorageChange, Output> voted = a.ready();
        assertEquals(List.of(new StorageChange.Voted(1, b, v), new StorageChange.Decided(1, v)), voted.writes(),
                "the last ring member votes and decides");
        assertTrue(voted.messages().stream().anyMatch(m -> m instanceof Message.Decision), voted.messages().toString());
        a.advance(voted);

        a.step(new Message.Prepare(0, 1, new Ballot(4, 0), 1)); // below the promise: rejected, nothing to write
        Ready<Message, StorageChange, Output> rejected = a.ready();
        assertEquals(List.of(), rejected.writes());
        assertTrue(rejected.messages().stream().allMatch(m -> m instanceof Message.Reject), rejected.messages().toString());
    }

    @Test
    void restoringFromTheWritesRebuildsTheStorage() {
        AcceptorNode a = new AcceptorNode(CONFIG, 1, new AcceptorStorage(CONFIG.logCapacity()));
        Ballot b = new Ballot(3, 0);
        a.step(new Message.Prepare(0, 1, b, 1));
        Value v = new Value(new ProposalId(20, 1), new byte[] {9});
        a.step(new Message.Accept(0, 1, b, 1, v, List.of(0, 1), 1));
        a.step(new Message.Heartbeat(2, 1, b, 1, 1)); // another acceptor trimmed through 1
        Ready<Message, StorageChange, Output> ready = a.ready();
        assertEquals(4, ready.writes().size(), "promise, vote, decision, trim: " + ready.writes());
        AcceptorStorage restored = new AcceptorStorage(CONFIG.logCapacity());
        ready.writes().forEach(restored::restore);
        assertEquals(StorageChanges.state(a.storage()), StorageChanges.state(restored));
        assertEquals(List.of(), StorageChanges.take(restored), "restoring records nothing to persist again");
    }
}
