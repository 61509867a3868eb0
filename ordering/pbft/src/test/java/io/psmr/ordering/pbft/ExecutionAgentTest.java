package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.agent.BoundedQueue;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The execution agent driven by hand, one duty cycle at a time: what it tells the pillars, and when. */
class ExecutionAgentTest {

    private static final Authenticator AUTH = new HmacAuthenticator(PbftKeys.forTesting(1, 4, 2));

    private final List<BoundedQueue<ExecutionEvent>> events = List.of(new BoundedQueue<>("e0", 64),
            new BoundedQueue<>("e1", 64));
    private final List<BoundedQueue<PillarCommand>> commands = List.of(new BoundedQueue<>("c0", 64),
            new BoundedQueue<>("c1", 64));
    private final List<Long> delivered = new ArrayList<>();
    private boolean sinkOpen = true;

    private ExecutionAgent agent(int window, int k) {
        ExecutionStage<Request> stage = new ExecutionStage<>(2, window, k, 1, ExecutionAgent.REQUEST_KEYS,
                new RequestDeduplicator(16, 4));
        return new ExecutionAgent(0, stage, events, commands, (instance, request) -> {
            if (!sinkOpen) {
                return false;
            }
            delivered.add(instance);
            return true;
        }, 8, window);
    }

    private static Committed commit(long seq, long number) {
        Request r = Request.sign(0, number, new byte[] {(byte) number}, AUTH, 4);
        return new Committed(seq, 0, r, r.digest());
    }

    private static Committed empty(long seq) {
        return new Committed(seq, 0, null, PbftDigests.empty());
    }

    private void send(long seq, Committed c) {
        assertTrue(events.get((int) (seq % 2)).offer(new ExecutionEvent.Commit((int) (seq % 2), c)));
    }

    @Test
    void asksTheAwaitedPillarOnceForAnEmptyInstanceAndSkipsIt() {
        ExecutionAgent a = agent(16, 100);
        send(3, commit(3, 1));
        a.doWork();
        // Waits on 1, pillar 1's; 2 is missing too, but only the lowest gap is awaited.
        assertEquals(new PillarCommand.NeedEmpty(1), commands.get(1).poll());
        a.doWork();
        assertNull(commands.get(1).poll(), "asked once per awaited number");
        send(1, empty(1));
        a.doWork();
        assertEquals(new PillarCommand.NeedEmpty(2), commands.get(0).poll());
        send(2, empty(2));
        a.doWork();
        assertEquals(List.of(1L), delivered, "empties are not delivered; the request at seq 3 is instance 1");
    }

    @Test
    void sendsCheckpointDigestsToThePillarInChargeAndAnnouncesStableOnlyOnceExecuted() {
        ExecutionAgent a = agent(16, 2);
        // Checkpoint 4 became stable at pillar 0 (the one in charge: (4 / 2) mod 2 = 0) before this replica executed 4:
        // pillar 0 committed its 2 and 4 (before the checkpoint, as a pillar emits them), pillar 1's 1 and 3 lag.
        StableCheckpoint cp4 = new StableCheckpoint(4, new byte[32], List.of());
        send(2, commit(2, 2));
        send(4, commit(4, 4));
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, cp4)));
        a.doWork();
        while (commands.get(1).peek() instanceof PillarCommand.NeedEmpty) {
            commands.get(1).poll();
        }
        assertNull(commands.get(1).poll(), "not executed through 4 yet: the announcement waits");
        send(1, commit(1, 1));
        send(3, commit(3, 3));
        a.doWork();
        assertEquals(List.of(1L, 2L, 3L, 4L), delivered);
        PillarCommand c2 = commands.get(1).poll(); // checkpoint 2: pillar (2 / 2) mod 2 = 1
        assertTrue(c2 instanceof PillarCommand.CheckpointDigest d && d.seq() == 2, "got " + c2);
        PillarCommand c4 = commands.get(0).poll();
        assertTrue(c4 instanceof PillarCommand.CheckpointDigest d && d.seq() == 4, "got " + c4);
        PillarCommand stable = commands.get(1).poll();
        assertTrue(stable instanceof PillarCommand.Stable st && st.checkpoint() == cp4, "got " + stable);
        assertNull(commands.get(0).poll(), "the pillar that reported it is not told again");
    }

    @Test
    void aStableCheckpointOverAnInstanceItsPillarNeverCommittedFailStopsSayingStateTransferIsNeeded() {
        ExecutionAgent a = agent(16, 2);
        // A replica that started empty after the others made checkpoint 4 stable: pillar 0 learns it from their
        // votes, discards its log up to 4, and will never commit its 2 or 4 here.
        send(4, commit(4, 4));
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, new StableCheckpoint(4, new byte[32], List.of()))));
        IllegalStateException e = assertThrows(IllegalStateException.class, a::doWork);
        assertEquals("replica-0/execution cannot catch up: checkpoint 4 became stable at its pillar 0 (the other replicas"
                + " discarded their log up to it) while sequence number 2 of that pillar never committed here (it executed"
                + " up to 0); state transfer is needed to bring it back, and it is not built: restart it only while the"
                + " others still hold the whole log, or start a new cluster", e.getMessage());
    }

    @Test
    void aFullSinkHoldsTheOrderAndNothingIsLost() {
        ExecutionAgent a = agent(16, 100);
        sinkOpen = false;
        send(1, commit(1, 1));
        send(2, commit(2, 2));
        a.doWork();
        assertEquals(List.of(), delivered);
        sinkOpen = true;
        a.doWork();
        assertEquals(List.of(1L, 2L), delivered);
    }

    @Test
    void aCommitBeyondTheWindowWaitsAsideAndAReplicaAWindowBehindFailStops() {
        ExecutionAgent a = agent(4, 100);
        send(6, commit(6, 6)); // beyond [1, 5)
        a.doWork();
        for (long s = 1; s <= 5; s++) {
            send(s, commit(s, s));
        }
        a.doWork();
        a.doWork();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), delivered, "the set-aside commit joined the order");
        ExecutionAgent b = agent(2, 100);
        events.get(0).poll();
        for (long s = 4; s <= 8; s += 2) {
            send(s, commit(s, s)); // 3 commits beyond a window of 2 that waits for 1
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, b::doWork);
        assertEquals("replica-0/execution is too far behind: 3 commits up to sequence number 8 lie beyond its execution"
                + " window (it waits for 1); its pillars' stable checkpoint ran ahead of it, and only state transfer,"
                + " which is not built, could bring it back", e.getMessage());
    }
}
