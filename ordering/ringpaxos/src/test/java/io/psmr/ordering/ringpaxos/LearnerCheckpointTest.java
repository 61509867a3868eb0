package io.psmr.ordering.ringpaxos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The learner's resume state: its encoding, its refusals, and a learner resumed from it. */
class LearnerCheckpointTest {

    private static final long SEED = Long.getLong("psmr.seed", 20261201L);
    private static final RingPaxosConfig CONFIG = RingPaxosConfig.of(List.of(0, 1, 2), List.of(10, 11), List.of(20, 21));

    private static LearnerCheckpoint random(Random rnd) {
        List<LearnerCheckpoint.ProposerState> ps = new ArrayList<>();
        int n = rnd.nextInt(5);
        for (int i = 0; i < n; i++) {
            ps.add(new LearnerCheckpoint.ProposerState(i * 3 + rnd.nextInt(3), 1 + (rnd.nextLong() >>> 2), rnd.nextLong() | 1));
        }
        return new LearnerCheckpoint(rnd.nextLong() >>> 1, ps);
    }

    @Test
    void roundTripsAndEqualStatesGiveEqualBytes() {
        Random rnd = new Random(SEED);
        for (int round = 0; round < 500; round++) {
            LearnerCheckpoint c = random(rnd);
            byte[] bytes = c.toBytes();
            assertEquals(c, LearnerCheckpoint.fromBytes(bytes), "seed " + SEED + " round " + round);
            List<LearnerCheckpoint.ProposerState> shuffled = new ArrayList<>(c.proposers());
            Collections.shuffle(shuffled, rnd);
            assertArrayEquals(bytes, LearnerCheckpoint.of(c.deliveredThrough(), shuffled).toBytes(),
                    "seed " + SEED + " round " + round);
        }
        assertEquals(13, LearnerCheckpoint.INITIAL.toBytes().length);
    }

    private static String refusal(byte[] bytes) {
        return assertThrows(IllegalArgumentException.class, () -> LearnerCheckpoint.fromBytes(bytes)).getMessage();
    }

    private static byte[] encode(int version, long through, int count, long[]... entries) {
        ByteBuffer b = ByteBuffer.allocate(13 + 20 * entries.length);
        b.put((byte) version).putLong(through).putInt(count);
        for (long[] e : entries) {
            b.putInt((int) e[0]).putLong(e[1]).putLong(e[2]);
        }
        return b.array();
    }

    @Test
    void malformedBytesAreRefusedNamingTheProblem() {
        assertEquals("learner checkpoint: no bytes", refusal(null));
        assertEquals("learner checkpoint: truncated: 5 bytes, the header alone is 13", refusal(new byte[5]));
        assertEquals("learner checkpoint: unknown version 2 (expected 1)", refusal(encode(2, 5, 0)));
        assertEquals("learner checkpoint: negative proposer count -1", refusal(encode(1, 5, -1)));
        byte[] one = encode(1, 5, 1, new long[] {20, 7, 1});
        assertEquals(new LearnerCheckpoint(5, List.of(new LearnerCheckpoint.ProposerState(20, 7, 1))),
                LearnerCheckpoint.fromBytes(one));
        assertEquals("learner checkpoint: 1 proposers need 33 bytes, got 32 (truncated)",
                refusal(java.util.Arrays.copyOf(one, 32)));
        assertEquals("learner checkpoint: 1 proposers need 33 bytes, got 34 (trailing bytes)",
                refusal(java.util.Arrays.copyOf(one, 34)));
        assertEquals("learner checkpoint: 2 proposers need 53 bytes, got 33 (truncated)",
                refusal(encode(1, 5, 2, new long[] {20, 7, 1})));
        assertEquals("learner checkpoint: deliveredThrough must be non-negative: -3", refusal(encode(1, -3, 0)));
        assertEquals("learner checkpoint: proposers must be in increasing id order, each once: 21 then 20",
                refusal(encode(1, 5, 2, new long[] {21, 7, 1}, new long[] {20, 7, 1})));
        assertEquals("learner checkpoint: proposers must be in increasing id order, each once: 20 then 20",
                refusal(encode(1, 5, 2, new long[] {20, 7, 1}, new long[] {20, 8, 1})));
        assertEquals("learner checkpoint: entry 0: proposer 20: mask lacks bit 0 (the highest sequence number 7 was delivered)",
                refusal(encode(1, 5, 1, new long[] {20, 7, 2})));
        assertEquals("learner checkpoint: entry 0: proposer 20: highest sequence number must be at least 1: 0",
                refusal(encode(1, 5, 1, new long[] {20, 0, 1})));
        assertEquals("learner checkpoint: entry 1: proposer id must be non-negative: -4",
                refusal(encode(1, 5, 2, new long[] {20, 7, 1}, new long[] {-4, 7, 1})));
    }

    private static Message.Decision decision(int learner, long instance, int proposer, long seq) {
        return new Message.Decision(0, learner, instance, new Value(new ProposalId(proposer, seq), new byte[] {(byte) seq}),
                Ballot.ZERO);
    }

    private static List<Output.Delivery> feed(Learner l, List<Message.Decision> decisions) {
        List<Output.Delivery> out = new ArrayList<>();
        for (Message.Decision d : decisions) {
            l.step(new Message.Decision(d.from(), l.id(), d.instance(), d.value(), d.ballot()));
            out.addAll(Output.deliveries(Cores.drain(l).outputs()));
        }
        return out;
    }

    /** A proposal decided before the checkpoint and again after it (a retry) is delivered once by a resumed learner. */
    @Test
    void aProposalDecidedTwiceAroundTheCheckpointIsDeliveredOnce() {
        List<Message.Decision> before = List.of(decision(10, 1, 20, 1), decision(10, 2, 21, 1), decision(10, 3, 20, 2));
        List<Message.Decision> after = List.of(decision(10, 4, 20, 1), decision(10, 5, 20, 3), decision(10, 6, 21, 1),
                decision(10, 7, 21, 2));
        Learner original = new Learner(CONFIG, 10);
        assertEquals(3, feed(original, before).size());
        LearnerCheckpoint state = original.checkpoint();
        assertEquals(3, state.deliveredThrough());
        List<Output.Delivery> continued = feed(original, after);
        assertEquals(List.of(5L, 7L), continued.stream().map(Output.Delivery::instance).toList());

        // The resumed learner (another id, as after a state transfer, through the encoding) delivers exactly the same.
        Learner resumed = new Learner(CONFIG, 11, LearnerCheckpoint.fromBytes(state.toBytes()), Learner.Reporting.CHECKPOINTS);
        assertEquals(4, resumed.nextInstance());
        assertEquals(continued, feed(resumed, after));

        // Without the duplicate filter, the retries at 4 and 6 would be delivered a second time: the filter matters.
        Learner forgetful = new Learner(CONFIG, 11, new LearnerCheckpoint(3, List.of()), Learner.Reporting.CHECKPOINTS);
        assertEquals(List.of(4L, 5L, 6L, 7L), feed(forgetful, after).stream().map(Output.Delivery::instance).toList());
    }

    /** A tracker fed one delivery at a time gives the learner's state as of each of them. */
    @Test
    void trackerGivesTheStateAsOfEachDelivery() {
        Random rnd = new Random(SEED);
        Learner l = new Learner(CONFIG, 10);
        CheckpointTracker t = new CheckpointTracker(CONFIG, LearnerCheckpoint.INITIAL);
        long[] seq = {0, 0};
        for (long i = 1; i <= 300; i++) {
            int p = rnd.nextInt(2);
            long s = rnd.nextInt(4) == 0 && seq[p] > 2 ? seq[p] - rnd.nextInt(3) : ++seq[p]; // some retries
            l.step(decision(10, i, 20 + p, s));
            List<Output.Delivery> ds = Output.deliveries(Cores.drain(l).outputs());
            for (Output.Delivery d : ds) {
                t.delivered(d);
            }
            if (ds.isEmpty()) { // a skipped retry: the learner is one instance further, its filter unchanged
                assertEquals(l.checkpoint().proposers(), t.checkpoint().proposers(), "seed " + SEED + " instance " + i);
            } else {
                assertEquals(l.checkpoint(), t.checkpoint(), "seed " + SEED + " instance " + i);
            }
        }
        long last = t.checkpoint().deliveredThrough();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> t.delivered(new Output.Delivery(last, Value.NOOP)));
        assertEquals("delivery at instance " + last + " is not after instance " + last, e.getMessage());
    }

    @Test
    void checkpointReportsAndTheirRefusals() {
        Learner l = new Learner(CONFIG, 10, new LearnerCheckpoint(2, List.of()), Learner.Reporting.CHECKPOINTS);
        assertEquals(2, l.safeInstance());
        feed(l, List.of(decision(10, 3, 20, 1), decision(10, 4, 20, 2)));
        assertEquals(2, l.safeInstance(), "delivering is not checkpointing");
        l.checkpointed(4);
        assertEquals(4, l.safeInstance());
        l.checkpointed(3);
        assertEquals(4, l.safeInstance(), "never goes back");
        assertEquals("learner 10 cannot have a checkpoint through instance 5: it has delivered only through 4",
                assertThrows(IllegalArgumentException.class, () -> l.checkpointed(5)).getMessage());
        assertEquals("learner 10 reports deliveries, not checkpoints",
                assertThrows(IllegalStateException.class, () -> new Learner(CONFIG, 10).checkpointed(0)).getMessage());
        for (int t = 0; t < CONFIG.reportTicks(); t++) {
            l.tick();
        }
        List<Message> reports = Cores.drain(l).messages();
        assertEquals(3, reports.size());
        assertTrue(reports.stream().allMatch(m -> m instanceof Message.Delivered d && d.upTo() == 4), reports.toString());
    }

    @Test
    void aLearnerTrimmedPastSaysSoOnceAndStops() {
        Learner l = new Learner(CONFIG, 10, new LearnerCheckpoint(40, List.of()), Learner.Reporting.CHECKPOINTS);
        l.step(new Message.Heartbeat(1, 10, Ballot.ZERO, 60, 40)); // trimmed to 40: 41 is still there
        assertEquals(0, Output.trimmedPast(Cores.drain(l).outputs()));
        l.step(new Message.Heartbeat(1, 10, Ballot.ZERO, 60, 45));
        assertEquals(List.of(new Output.TrimmedPast(45)), Cores.drain(l).outputs());
        assertTrue(l.isTrimmedPast());
        l.step(new Message.Heartbeat(2, 10, Ballot.ZERO, 70, 50));
        l.step(decision(10, 41, 20, 1));
        for (int t = 0; t < 20; t++) {
            l.tick();
        }
        assertTrue(Cores.drain(l).isEmpty(), "stopped: no second signal, no delivery, no fetch, no report");
        assertEquals(41, l.nextInstance());
    }
}
