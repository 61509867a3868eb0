package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PillarOutput.Committed;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import io.psmr.ordering.agent.BoundedQueue;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * PBFT checkpoints coupled to the application's: the resume state recorded at a checkpoint instance, the digest that
 * covers it, a stage resumed from it continuing exactly as one that never stopped, and the execution agent asking
 * for state transfer (instead of fail-stopping) when a stable checkpoint leaves it behind.
 */
class ApplicationCheckpointsTest {

    private static final Authenticator AUTH = new HmacAuthenticator(PbftKeys.forTesting(1, 4, 2));

    /** Records what the agent hands the application. */
    private static final class Recorder implements ApplicationCheckpoints {
        final long interval;
        final TreeMap<Long, PbftResumeState> states = new TreeMap<>();
        final ArrayDeque<Durable> durable = new ArrayDeque<>();
        final List<StableCheckpoint> transfers = new ArrayList<>();

        Recorder(long interval) {
            this.interval = interval;
        }

        @Override
        public long interval() {
            return interval;
        }

        @Override
        public void resumeState(long instance, PbftResumeState state) {
            states.put(instance, state);
        }

        @Override
        public Durable pollDurable() {
            return durable.poll();
        }

        @Override
        public void transferNeeded(StableCheckpoint stable) {
            transfers.add(stable);
        }
    }

    private final List<BoundedQueue<ExecutionEvent>> events = List.of(new BoundedQueue<>("e0", 256),
            new BoundedQueue<>("e1", 256));
    private final List<BoundedQueue<PillarCommand>> commands = List.of(new BoundedQueue<>("c0", 256),
            new BoundedQueue<>("c1", 256));
    private final List<Long> delivered = new ArrayList<>();

    private ExecutionAgent agent(ExecutionStage<Request> stage, Recorder app, long resumedAt, List<PillarCommand> onStart) {
        return new ExecutionAgent(0, stage, events, commands, (instance, request) -> delivered.add(instance), 64, 64, app,
                resumedAt, onStart);
    }

    private static ExecutionStage<Request> fresh() {
        return new ExecutionStage<>(2, 64, 1, 1, ExecutionAgent.REQUEST_KEYS, new RequestDeduplicator(16, 4), false);
    }

    /** The resume state of a stage that released seq 1..20 ({@link #at}). */
    private static PbftResumeState resumeStateAt20() {
        ExecutionStage<Request> first = fresh();
        for (long s = 1; s <= 20; s++) {
            Committed c = at(s);
            assertTrue(c.isEmpty() ? first.offerEmpty(s) : first.offer(s, c.request()));
            first.poll();
        }
        return first.resumeState();
    }

    private static Committed commit(long seq, long client, long number) {
        Request r = Request.sign(client, number, new byte[] {(byte) number}, AUTH, 4);
        return new Committed(seq, 0, r, r.digest());
    }

    private static Committed empty(long seq) {
        return new Committed(seq, 0, null, PbftDigests.empty());
    }

    private void send(Committed c) {
        int p = (int) (c.seq() % 2);
        assertTrue(events.get(p).offer(new ExecutionEvent.Commit(p, c)));
    }

    /** seq 1..n: requests of clients 0 and 1, an EMPTY at every 5th, a duplicate at seq 7 (of seq 3's request). */
    private static Committed at(long seq) {
        if (seq % 5 == 0) {
            return empty(seq);
        }
        if (seq == 7) {
            return commit(7, 1, 3);
        }
        return commit(seq, seq % 2, seq);
    }

    @Test
    void recordsTheResumeStateAtEveryCheckpointInstanceAndCertifiesDurableOnesAtTheirSequenceNumber() {
        Recorder app = new Recorder(4);
        ExecutionAgent a = agent(fresh(), app, 0, List.of());
        for (long s = 1; s <= 12; s++) {
            send(at(s));
        }
        a.doWork();
        // Delivered: seqs 1 2 3 4 6 8 9 11 12 (5 and 10 empty, 7 a duplicate): instance 4 at seq 4, instance 8 at seq 11.
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L), delivered);
        assertEquals(List.of(4L, 8L), new ArrayList<>(app.states.keySet()));
        assertEquals(4, app.states.get(4L).seq());
        assertEquals(5, app.states.get(4L).nextInstance());
        assertEquals(11, app.states.get(8L).seq());
        assertEquals(9, app.states.get(8L).nextInstance());
        assertTrue(commandsOf(0).isEmpty() && commandsOf(1).isEmpty(), "no chain checkpoints: nothing certified yet");

        byte[] d = ApplicationCheckpoints.digest(42, app.states.get(8L).toBytes());
        app.durable.add(new ApplicationCheckpoints.Durable(11, d));
        a.doWork();
        List<PillarCommand> toPillar1 = commandsOf(1);
        assertEquals(1, toPillar1.size(), "checkpoint 11 goes to pillar 11 mod 2 = 1: " + toPillar1);
        assertTrue(commandsOf(0).isEmpty());
        PillarCommand.CheckpointDigest cd = (PillarCommand.CheckpointDigest) toPillar1.get(0);
        assertEquals(11, cd.seq());
        assertArrayEquals(d, cd.digest());
    }

    @Test
    void theDigestCoversTheStoreDigestAndEveryByteOfTheState() {
        ExecutionStage<Request> stage = fresh();
        for (long s = 1; s <= 9; s++) {
            Committed c = at(s);
            assertTrue(c.isEmpty() ? stage.offerEmpty(s) : stage.offer(s, c.request()));
            stage.poll();
        }
        byte[] state = stage.resumeState().toBytes();
        byte[] d = ApplicationCheckpoints.digest(7, state);
        assertEquals(32, d.length);
        assertArrayEquals(d, ApplicationCheckpoints.digest(7, state.clone()), "deterministic");
        assertFalse(Arrays.equals(d, ApplicationCheckpoints.digest(8, state)), "store digest covered");
        for (int i = 0; i < state.length; i++) {
            byte[] changed = state.clone();
            changed[i] ^= 1;
            assertFalse(Arrays.equals(d, ApplicationCheckpoints.digest(7, changed)), "byte " + i + " of state.bin covered");
        }
    }

    @Test
    void aStageResumedFromTheResumeStateContinuesExactlyAsOneThatNeverStopped() throws IOException {
        ExecutionStage<Request> whole = fresh();
        ExecutionStage<Request> first = fresh();
        List<String> wholeOut = new ArrayList<>();
        List<String> resumedOut = new ArrayList<>();
        ExecutionStage<Request> resumed = null;
        for (long s = 1; s <= 40; s++) {
            Committed c = s == 23 ? commit(23, 0, 4) : at(s); // seq 23 repeats seq 4's request: a duplicate across the cut
            ExecutionStage<Request> target = s <= 20 ? first : resumed;
            for (ExecutionStage<Request> st : s <= 20 ? List.of(whole, first) : List.of(whole, resumed)) {
                assertTrue(c.isEmpty() ? st.offerEmpty(s) : st.offer(s, c.request()));
                ExecutionStage.Released<Request> r = st.poll();
                (st == whole ? wholeOut : resumedOut).add(r.seq() + ":" + r.instance());
            }
            if (s == 20) {
                PbftResumeState state = PbftResumeState.fromBytes(first.resumeState().toBytes());
                assertEquals(first.resumeState(), state, "the bytes round-trip");
                resumed = ExecutionStage.resumed(2, 64, state, ExecutionAgent.REQUEST_KEYS, false);
                assertEquals(21, resumed.nextSeq());
            }
            assertTrue(target != null);
        }
        assertEquals(wholeOut, resumedOut, "same instances, same duplicates skipped");
        assertArrayEquals(whole.digest(), resumed.digest(), "same chain digest");
        assertArrayEquals(whole.resumeState().toBytes(), resumed.resumeState().toBytes());
        assertTrue(wholeOut.contains("23:0"), "seq 23 is a duplicate on both");
    }

    @Test
    void aStableCheckpointAboveAGapAsksForStateTransferInsteadOfFailStoppingAndFreezesExecution() {
        Recorder app = new Recorder(4);
        ExecutionAgent a = agent(fresh(), app, 0, List.of());
        send(at(1));
        send(at(2));
        a.doWork();
        assertEquals(List.of(1L, 2L), delivered);
        // Checkpoint 40 became stable at pillar 0 (40 mod 2) while its seqs 4..40 never committed here.
        StableCheckpoint cp40 = new StableCheckpoint(40, new byte[32], List.of());
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, cp40)));
        a.doWork();
        assertEquals(List.of(cp40), app.transfers);
        assertTrue(a.transferring());
        send(at(3));
        a.doWork();
        assertEquals(List.of(1L, 2L), delivered, "frozen: nothing more released while waiting for the transfer");
        StableCheckpoint cp60 = new StableCheckpoint(60, new byte[32], List.of());
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, cp60)));
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, cp40)));
        a.doWork();
        assertEquals(List.of(cp40, cp60), app.transfers, "each newer stable checkpoint is passed on, an older one not");
    }

    @Test
    void withoutApplicationCheckpointsTheSameGapStillFailStopsNamingStateTransfer() {
        ExecutionStage<Request> stage = new ExecutionStage<>(2, 64, 4, 1, ExecutionAgent.REQUEST_KEYS,
                new RequestDeduplicator(16, 4));
        ExecutionAgent a = new ExecutionAgent(0, stage, events, commands, (i, r) -> true, 64, 64);
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, new StableCheckpoint(40, new byte[32], List.of()))));
        IllegalStateException e = assertThrows(IllegalStateException.class, a::doWork);
        assertTrue(e.getMessage().contains("state transfer is needed"), e.getMessage());
    }

    @Test
    void aResumedAgentAdoptsTheCheckpointTellsThePillarsTheExecutedClientsAndIgnoresCommitsBelowIt() throws IOException {
        PbftResumeState state = resumeStateAt20();
        StableCheckpoint adopt = new StableCheckpoint(20, new byte[32], List.of());
        List<PillarCommand> onStart = new ArrayList<>();
        onStart.add(new PillarCommand.Stable(adopt));
        state.dedup().forEachClient((client, number) -> onStart.add(new PillarCommand.ClientExecuted(client, number)));
        assertEquals(List.of(new PillarCommand.Stable(adopt), new PillarCommand.ClientExecuted(0, 18),
                new PillarCommand.ClientExecuted(1, 19)), onStart, "client 0's highest is 18 (20 is EMPTY), least recent first");
        Recorder app = new Recorder(4);
        ExecutionAgent a = agent(ExecutionStage.resumed(2, 64, state, ExecutionAgent.REQUEST_KEYS, true), app, 20, onStart);
        a.onStart();
        for (int p = 0; p < 2; p++) {
            assertEquals(onStart, commandsOf(p), "pillar " + p);
        }
        send(at(3)); // a pillar that started at the beginning may still order old numbers: ignored, no double commit
        send(at(21));
        a.doWork();
        assertEquals(List.of(state.nextInstance()), delivered);
        assertNull(commands.get(0).poll());
    }

    @Test
    void aStageResumedFromItsOwnCheckpointTellsTheOtherPillarsOnceTheRevotedCheckpointIsStableAgain() throws IOException {
        // A whole cluster resumed from its own checkpoints: each replica votes for seq 20 again, and the pillar in
        // charge of it (20 mod 2 = 0) makes it stable. Pillar 1 started at sequence number 1 and learns it only from
        // this agent; without that it would order below everything the stage releases, and the stage wait for ever.
        PbftResumeState state = resumeStateAt20();
        ExecutionAgent a = agent(ExecutionStage.resumed(2, 64, state, ExecutionAgent.REQUEST_KEYS, false), new Recorder(4),
                20, List.of());
        a.onStart();
        StableCheckpoint again = new StableCheckpoint(20, new byte[32], List.of());
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, again)));
        a.doWork();
        assertEquals(List.of(new PillarCommand.Stable(again)), commandsOf(1), "pillar 1 adopts the checkpoint");
        assertEquals(List.of(), commandsOf(0), "pillar 0 made it stable itself");

        // A certified checkpoint the pillars adopt at start is not announced a second time.
        ExecutionAgent adopted = agent(ExecutionStage.resumed(2, 64, state, ExecutionAgent.REQUEST_KEYS, true),
                new Recorder(4), 20, List.of());
        adopted.onStart();
        assertTrue(events.get(0).offer(new ExecutionEvent.Stable(0, again)));
        adopted.doWork();
        assertEquals(List.of(), commandsOf(1));
    }

    @Test
    void theResumeStateRefusesDamage() {
        ExecutionStage<Request> stage = fresh();
        byte[] ok = stage.resumeState().toBytes();
        IOException v = assertThrows(IOException.class, () -> PbftResumeState.fromBytes(new byte[] {2}));
        assertEquals("PBFT resume state version 2 is not supported (expected 1)", v.getMessage());
        IOException t = assertThrows(IOException.class, () -> PbftResumeState.fromBytes(Arrays.copyOf(ok, ok.length - 1)));
        assertTrue(t.getMessage().startsWith("PBFT resume state is truncated"), t.getMessage());
        IOException x = assertThrows(IOException.class, () -> PbftResumeState.fromBytes(Arrays.copyOf(ok, ok.length + 2)));
        assertEquals("PBFT resume state has 2 trailing bytes", x.getMessage());
    }

    @Test
    void configurationIsCheckedWithAClearMessage() {
        PbftConfig d = PbftConfig.defaults();
        IllegalArgumentException k = assertThrows(IllegalArgumentException.class,
                () -> PbftReplicaNode.checkAppCheckpoints(d, 64));
        assertTrue(k.getMessage().contains("checkpointInterval must be 1, got 1024"), k.getMessage());
        PbftConfig one = new PbftConfig(1, 2, 1, 200, d.requestTimeoutTicks(), d.maxViewChangeTimeoutTicks(),
                d.emptyInstanceDelayTicks(), d.retransmitTicks(), d.leaderRotation(), d.maxRequestBytes(), d.maxPendingRequests());
        IllegalArgumentException l = assertThrows(IllegalArgumentException.class,
                () -> PbftReplicaNode.checkAppCheckpoints(one, 64));
        assertEquals("watermarkWindow 200 is too small for an application checkpoint every 64 instances with 2 pillars:"
                + " up to 128 sequence numbers lie between two checkpoints, so it must be at least 256 (or checkpoint more"
                + " often)", l.getMessage());
        PbftReplicaNode.checkAppCheckpoints(one, 50);
    }

    private List<PillarCommand> commandsOf(int p) {
        List<PillarCommand> out = new ArrayList<>();
        PillarCommand c;
        while ((c = commands.get(p).poll()) != null) {
            out.add(c);
        }
        return out;
    }
}
