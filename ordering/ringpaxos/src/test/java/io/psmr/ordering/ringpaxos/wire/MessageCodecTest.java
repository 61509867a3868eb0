package io.psmr.ordering.ringpaxos.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.Value;
import io.psmr.ordering.ringpaxos.Vote;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    private static final long SEED = Long.getLong("psmr.seed", 20260101L);
    private final MessageCodec codec = new MessageCodec(1 << 20, 4096, 1024);

    static Value randomValue(Random rnd) {
        if (rnd.nextInt(5) == 0) {
            return Value.NOOP;
        }
        byte[] data = new byte[rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(300)];
        rnd.nextBytes(data);
        return new Value(new ProposalId(rnd.nextInt(), rnd.nextLong()), data);
    }

    static Ballot randomBallot(Random rnd) {
        return rnd.nextInt(6) == 0 ? Ballot.ZERO : new Ballot(rnd.nextLong(), rnd.nextInt());
    }

    /** One random message of each of the nine types, in a random order of contents. */
    static List<Message> randomMessages(Random rnd) {
        int from = rnd.nextInt();
        int to = rnd.nextInt();
        List<Vote> votes = new ArrayList<>();
        for (int i = rnd.nextInt(6); i > 0; i--) {
            votes.add(new Vote(rnd.nextLong(), randomBallot(rnd), randomValue(rnd), rnd.nextBoolean()));
        }
        List<Integer> ring = new ArrayList<>();
        for (int i = 1 + rnd.nextInt(5); i > 0; i--) {
            ring.add(rnd.nextInt());
        }
        return List.of(
                new Message.Propose(from, to, randomValue(rnd), rnd.nextBoolean()),
                new Message.Prepare(from, to, randomBallot(rnd), rnd.nextLong()),
                new Message.Promise(from, to, randomBallot(rnd), rnd.nextLong(), votes),
                new Message.Accept(from, to, randomBallot(rnd), rnd.nextLong(), randomValue(rnd), ring, rnd.nextInt()),
                new Message.Reject(from, to, randomBallot(rnd)),
                new Message.Decision(from, to, rnd.nextLong(), randomValue(rnd), randomBallot(rnd)),
                new Message.Heartbeat(from, to, randomBallot(rnd), rnd.nextLong(), rnd.nextLong()),
                new Message.Fetch(from, to, rnd.nextLong(), rnd.nextLong()),
                new Message.Delivered(from, to, rnd.nextLong()));
    }

    @Test
    void everyMessageTypeRoundTrips() {
        for (int round = 0; round < 500; round++) {
            long seed = SEED + round;
            Random rnd = new Random(seed);
            for (Message m : randomMessages(rnd)) {
                byte[] bytes = codec.encode(m);
                assertEquals(MessageCodec.VERSION, bytes[0]);
                Message back = codec.decode(bytes);
                assertEquals(m, back, "seed " + seed);
                assertArrayEquals(bytes, codec.encode(back), "seed " + seed);
            }
        }
    }

    @Test
    void helloRoundTripsAndChecksReceiver() {
        byte[] hello = codec.encodeHello(7, 3);
        assertEquals(7, codec.decodeHello(hello, 3));
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> codec.decodeHello(hello, 4));
        assertTrue(e.getMessage().contains("addressed to node 3"), e.getMessage());
        assertThrows(MalformedFrameException.class, () -> codec.decode(hello));
        byte[] delivered = codec.encode(new Message.Delivered(1, 2, 3));
        assertThrows(MalformedFrameException.class, () -> codec.decodeHello(delivered, 2));
    }

    @Test
    void everyTruncationIsRefused() {
        Random rnd = new Random(SEED);
        for (int round = 0; round < 20; round++) {
            List<byte[]> frames = new ArrayList<>();
            for (Message m : randomMessages(rnd)) {
                frames.add(codec.encode(m));
            }
            frames.add(codec.encodeHello(1, 2));
            for (byte[] frame : frames) {
                for (int len = 0; len < frame.length; len++) {
                    byte[] cut = Arrays.copyOf(frame, len);
                    MalformedFrameException e = assertThrows(MalformedFrameException.class,
                            () -> {
                                if (frame[1] == MessageCodec.HELLO) {
                                    codec.decodeHello(cut, 2);
                                } else {
                                    codec.decode(cut);
                                }
                            }, "truncation to " + len + " of " + frame.length + " bytes, seed " + SEED);
                    assertTrue(e.getMessage().contains("truncated"), e.getMessage());
                }
            }
        }
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] frame = codec.encode(new Message.Fetch(1, 2, 3, 4));
        byte[] longer = Arrays.copyOf(frame, frame.length + 1);
        MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> codec.decode(longer));
        assertTrue(e.getMessage().contains("trailing"), e.getMessage());
    }

    @Test
    void badHeaderAndFieldsAreRefusedWithTheirReason() {
        byte[] frame = codec.encode(new Message.Propose(1, 2, new Value(new ProposalId(1, 1), new byte[10]), false));
        byte[] badVersion = frame.clone();
        badVersion[0] = 9;
        assertMessage("version", () -> codec.decode(badVersion));
        byte[] badType = frame.clone();
        badType[1] = 42;
        assertMessage("unknown message type", () -> codec.decode(badType));
        byte[] badBool = frame.clone();
        badBool[frame.length - 1] = 2;
        assertMessage("forwarded must be 0 or 1", () -> codec.decode(badBool));
        // Value length sits after version, type, from, to, proposer, seq: offset 2 + 8 + 12.
        byte[] negative = frame.clone();
        ByteBuffer.wrap(negative).putInt(22, -1);
        assertMessage("negative value length", () -> codec.decode(negative));
        byte[] huge = frame.clone();
        ByteBuffer.wrap(huge).putInt(22, 5000);
        assertMessage("exceeds the maximum of 4096", () -> codec.decode(huge));
        byte[] lying = frame.clone();
        ByteBuffer.wrap(lying).putInt(22, 4000);
        assertMessage("truncated", () -> codec.decode(lying));
    }

    @Test
    void oversizedListsAndFramesAreRefused() {
        byte[] promise = codec.encode(new Message.Promise(1, 2, Ballot.ZERO, 0, List.of()));
        ByteBuffer.wrap(promise).putInt(promise.length - 4, 2000);
        assertMessage("exceed the maximum of 1024", () -> codec.decode(promise));
        ByteBuffer.wrap(promise).putInt(promise.length - 4, 1000);
        assertMessage("truncated", () -> codec.decode(promise));
        ByteBuffer.wrap(promise).putInt(promise.length - 4, -3);
        assertMessage("negative count", () -> codec.decode(promise));

        MessageCodec small = new MessageCodec(100, 4096, 1024);
        assertMessage("exceeds the maximum frame", () -> small.encode(
                new Message.Decision(1, 2, 1, new Value(new ProposalId(1, 1), new byte[200]), Ballot.ZERO)));
        assertMessage("exceeds the maximum of 100", () -> small.decode(new byte[101]));
        assertMessage("exceeds the maximum of 4096", () -> codec.encode(
                new Message.Decision(1, 2, 1, new Value(new ProposalId(1, 1), new byte[4097]), Ballot.ZERO)));
    }

    @Test
    void randomGarbageIsRefusedOrDecodesToAMessage() {
        Random rnd = new Random(SEED);
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] garbage = new byte[rnd.nextInt(80)];
            rnd.nextBytes(garbage);
            if (rnd.nextBoolean() && garbage.length > 1) {
                garbage[0] = MessageCodec.VERSION;
                garbage[1] = (byte) rnd.nextInt(11);
            }
            try {
                Message m = codec.decode(garbage);
                // Anything accepted must be exactly what it encodes to.
                assertArrayEquals(garbage, codec.encode(m), "seed " + SEED + " garbage " + i);
            } catch (MalformedFrameException expected) {
                refused++;
            } catch (RuntimeException e) {
                fail("garbage " + i + " (seed " + SEED + ") threw " + e + " instead of MalformedFrameException", e);
            }
        }
        assertTrue(refused > 19_000, "refused " + refused);
    }

    /** Every single-byte corruption of valid frames is either refused or re-encodes exactly. */
    @Test
    void bitFlipsAreRefusedOrReencodeExactly() {
        Random rnd = new Random(SEED);
        for (Message m : randomMessages(rnd)) {
            byte[] frame = codec.encode(m);
            for (int pos = 0; pos < frame.length; pos++) {
                byte[] bad = frame.clone();
                bad[pos] ^= (byte) (1 << rnd.nextInt(8));
                try {
                    assertArrayEquals(bad, codec.encode(codec.decode(bad)));
                } catch (MalformedFrameException expected) {
                    // refused
                }
            }
        }
    }

    private static void assertMessage(String fragment, org.junit.jupiter.api.function.Executable e) {
        RuntimeException t = assertThrows(RuntimeException.class, e);
        assertTrue(t.getMessage().contains(fragment), "expected '" + fragment + "' in: " + t.getMessage());
    }
}
