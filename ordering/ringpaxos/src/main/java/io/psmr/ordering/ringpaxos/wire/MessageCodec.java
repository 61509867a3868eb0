package io.psmr.ordering.ringpaxos.wire;

import io.psmr.ordering.ringpaxos.Ballot;
import io.psmr.ordering.ringpaxos.Message;
import io.psmr.ordering.ringpaxos.ProposalId;
import io.psmr.ordering.ringpaxos.Value;
import io.psmr.ordering.ringpaxos.Vote;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary format of every Ring Paxos {@link Message}, and of the hello that opens a connection.
 *
 * <h2>Format (version 1)</h2>
 * A frame body (the transport adds a 4-byte length prefix) is: a version byte ({@link #VERSION}),
 * a type byte, then the fields, all big-endian, with nothing after them:
 * <pre>
 *   ballot   = round:i64 coordinator:i32
 *   value    = proposer:i32 seq:i64 length:i32 bytes[length]
 *   vote     = instance:i64 ballot value decided:u8(0|1)
 *   header   = from:i32 to:i32
 *   0 HELLO     sender:i32 receiver:i32
 *   1 PROPOSE   header value forwarded:u8(0|1)
 *   2 PREPARE   header ballot fromInstance:i64
 *   3 PROMISE   header ballot trimmedTo:i64 count:i32 vote[count]
 *   4 ACCEPT    header ballot instance:i64 value count:i32 member:i32[count] position:i32
 *   5 REJECT    header ballot
 *   6 DECISION  header instance:i64 value ballot
 *   7 HEARTBEAT header ballot highestDecided:i64 trimmedTo:i64
 *   8 FETCH     header fromInstance:i64 toInstance:i64
 *   9 DELIVERED header upTo:i64
 * </pre>
 *
 * <h2>Refusal</h2>
 * {@link #decode} and {@link #decodeHello} throw {@link MalformedFrameException}, naming the
 * problem, for an unknown version or type, a truncated frame, trailing bytes, a boolean other than
 * 0 or 1, a negative length, a value longer than {@code maxValueBytes}, a list longer than
 * {@code maxListLength}, or a frame longer than {@code maxFrameBytes}. Lengths are checked against
 * the bytes actually present before anything is allocated, so a lying length costs nothing.
 * Protocol-level nonsense in well-formed messages (a stale ballot, a bad ring) is left to the core,
 * which ignores it.
 *
 * <p>Immutable and thread-safe.
 */
public final class MessageCodec {

    /** The format version written and accepted. */
    public static final byte VERSION = 1;

    static final byte HELLO = 0;
    static final byte PROPOSE = 1;
    static final byte PREPARE = 2;
    static final byte PROMISE = 3;
    static final byte ACCEPT = 4;
    static final byte REJECT = 5;
    static final byte DECISION = 6;
    static final byte HEARTBEAT = 7;
    static final byte FETCH = 8;
    static final byte DELIVERED = 9;

    private static final int BALLOT_BYTES = 12;
    private static final int VALUE_HEADER_BYTES = 16;
    private static final int VOTE_MIN_BYTES = 8 + BALLOT_BYTES + VALUE_HEADER_BYTES + 1;

    private final int maxFrameBytes;
    private final int maxValueBytes;
    private final int maxListLength;

    /**
     * @param maxFrameBytes most bytes of one encoded frame body (without the length prefix)
     * @param maxValueBytes most payload bytes of one {@link Value}
     * @param maxListLength most votes in a Promise or members in a ring
     */
    public MessageCodec(int maxFrameBytes, int maxValueBytes, int maxListLength) {
        if (maxFrameBytes < 64 || maxValueBytes < 0 || maxListLength < 1) {
            throw new IllegalArgumentException("bad codec limits: maxFrameBytes " + maxFrameBytes + " (at least 64), maxValueBytes "
                    + maxValueBytes + ", maxListLength " + maxListLength);
        }
        this.maxFrameBytes = maxFrameBytes;
        this.maxValueBytes = maxValueBytes;
        this.maxListLength = maxListLength;
    }

    /** Most bytes of one frame body. */
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** Most payload bytes of one value. */
    public int maxValueBytes() {
        return maxValueBytes;
    }

    // ------------------------------------------------------------------------------------ encode

    /** The hello that opens a connection from {@code sender} to {@code receiver}. */
    public byte[] encodeHello(int sender, int receiver) {
        return ByteBuffer.allocate(10).put(VERSION).put(HELLO).putInt(sender).putInt(receiver).array();
    }

    /**
     * Encodes a message.
     *
     * @throws IllegalArgumentException if a value, a list or the whole frame exceeds the limits
     *                                  (the receiver would refuse it)
     */
    public byte[] encode(Message m) {
        int size = 2 + 8 + bodySize(m);
        if (size > maxFrameBytes) {
            throw new IllegalArgumentException("message " + m.getClass().getSimpleName() + " of " + size
                    + " bytes exceeds the maximum frame of " + maxFrameBytes + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.put(VERSION).put(typeOf(m)).putInt(m.from()).putInt(m.to());
        if (m instanceof Message.Propose p) {
            putValue(b, p.value());
            b.put((byte) (p.forwarded() ? 1 : 0));
        } else if (m instanceof Message.Prepare p) {
            putBallot(b, p.ballot());
            b.putLong(p.fromInstance());
        } else if (m instanceof Message.Promise p) {
            putBallot(b, p.ballot());
            b.putLong(p.trimmedTo());
            checkList("votes", p.votes().size());
            b.putInt(p.votes().size());
            for (Vote v : p.votes()) {
                b.putLong(v.instance());
                putBallot(b, v.ballot());
                putValue(b, v.value());
                b.put((byte) (v.decided() ? 1 : 0));
            }
        } else if (m instanceof Message.Accept a) {
            putBallot(b, a.ballot());
            b.putLong(a.instance());
            putValue(b, a.value());
            checkList("ring members", a.ring().size());
            b.putInt(a.ring().size());
            for (int member : a.ring()) {
                b.putInt(member);
            }
            b.putInt(a.position());
        } else if (m instanceof Message.Reject r) {
            putBallot(b, r.promised());
        } else if (m instanceof Message.Decision d) {
            b.putLong(d.instance());
            putValue(b, d.value());
            putBallot(b, d.ballot());
        } else if (m instanceof Message.Heartbeat h) {
            putBallot(b, h.promised());
            b.putLong(h.highestDecided()).putLong(h.trimmedTo());
        } else if (m instanceof Message.Fetch f) {
            b.putLong(f.fromInstance()).putLong(f.toInstance());
        } else if (m instanceof Message.Delivered d) {
            b.putLong(d.upTo());
        }
        if (b.hasRemaining()) {
            throw new IllegalStateException("codec size mismatch for " + m);
        }
        return b.array();
    }

    private static byte typeOf(Message m) {
        if (m instanceof Message.Propose) {
            return PROPOSE;
        } else if (m instanceof Message.Prepare) {
            return PREPARE;
        } else if (m instanceof Message.Promise) {
            return PROMISE;
        } else if (m instanceof Message.Accept) {
            return ACCEPT;
        } else if (m instanceof Message.Reject) {
            return REJECT;
        } else if (m instanceof Message.Decision) {
            return DECISION;
        } else if (m instanceof Message.Heartbeat) {
            return HEARTBEAT;
        } else if (m instanceof Message.Fetch) {
            return FETCH;
        } else if (m instanceof Message.Delivered) {
            return DELIVERED;
        }
        throw new IllegalArgumentException("unknown message " + m);
    }

    private int bodySize(Message m) {
        if (m instanceof Message.Propose p) {
            return valueSize(p.value()) + 1;
        } else if (m instanceof Message.Prepare) {
            return BALLOT_BYTES + 8;
        } else if (m instanceof Message.Promise p) {
            long size = BALLOT_BYTES + 8 + 4;
            for (Vote v : p.votes()) {
                size += 8 + BALLOT_BYTES + valueSize(v.value()) + 1;
            }
            return (int) Math.min(size, Integer.MAX_VALUE - 16);
        } else if (m instanceof Message.Accept a) {
            return BALLOT_BYTES + 8 + valueSize(a.value()) + 4 + 4 * a.ring().size() + 4;
        } else if (m instanceof Message.Reject) {
            return BALLOT_BYTES;
        } else if (m instanceof Message.Decision d) {
            return 8 + valueSize(d.value()) + BALLOT_BYTES;
        } else if (m instanceof Message.Heartbeat) {
            return BALLOT_BYTES + 16;
        } else if (m instanceof Message.Fetch) {
            return 16;
        } else if (m instanceof Message.Delivered) {
            return 8;
        }
        throw new IllegalArgumentException("unknown message " + m);
    }

    private int valueSize(Value v) {
        if (v.data().length > maxValueBytes) {
            throw new IllegalArgumentException("value of " + v.data().length + " bytes exceeds the maximum of "
                    + maxValueBytes + " bytes");
        }
        return VALUE_HEADER_BYTES + v.data().length;
    }

    private void checkList(String what, int n) {
        if (n > maxListLength) {
            throw new IllegalArgumentException(n + " " + what + " exceed the maximum of " + maxListLength);
        }
    }

    private static void putBallot(ByteBuffer b, Ballot ballot) {
        b.putLong(ballot.round()).putInt(ballot.coordinator());
    }

    private static void putValue(ByteBuffer b, Value v) {
        b.putInt(v.id().proposer()).putLong(v.id().seq()).putInt(v.data().length).put(v.data());
    }

    // ------------------------------------------------------------------------------------ decode

    /**
     * Decodes a hello.
     *
     * @return the sender's node id
     * @throws MalformedFrameException if the frame is not a well-formed hello addressed to {@code expectedReceiver}
     */
    public int decodeHello(byte[] frame, int expectedReceiver) {
        Reader r = new Reader(frame);
        byte type = r.header();
        if (type != HELLO) {
            throw new MalformedFrameException("expected a hello (type 0) to open the connection, got type " + type);
        }
        int sender = r.i32("hello sender");
        int receiver = r.i32("hello receiver");
        r.end();
        if (receiver != expectedReceiver) {
            throw new MalformedFrameException("hello from node " + sender + " is addressed to node " + receiver
                    + ", but this is node " + expectedReceiver);
        }
        return sender;
    }

    /**
     * Decodes one message.
     *
     * @throws MalformedFrameException naming the problem, if the frame is not a well-formed message within the limits
     */
    public Message decode(byte[] frame) {
        Reader r = new Reader(frame);
        byte type = r.header();
        if (type == HELLO) {
            throw new MalformedFrameException("unexpected hello after the connection was opened");
        }
        int from = r.i32("from");
        int to = r.i32("to");
        Message m = switch (type) {
            case PROPOSE -> new Message.Propose(from, to, r.value(), r.bool("forwarded"));
            case PREPARE -> new Message.Prepare(from, to, r.ballot(), r.i64("fromInstance"));
            case PROMISE -> {
                Ballot ballot = r.ballot();
                long trimmedTo = r.i64("trimmedTo");
                int n = r.count("votes", VOTE_MIN_BYTES);
                List<Vote> votes = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    votes.add(new Vote(r.i64("vote instance"), r.ballot(), r.value(), r.bool("vote decided")));
                }
                yield new Message.Promise(from, to, ballot, trimmedTo, votes);
            }
            case ACCEPT -> {
                Ballot ballot = r.ballot();
                long instance = r.i64("instance");
                Value value = r.value();
                int n = r.count("ring members", 4);
                List<Integer> ring = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    ring.add(r.i32("ring member"));
                }
                yield new Message.Accept(from, to, ballot, instance, value, ring, r.i32("position"));
            }
            case REJECT -> new Message.Reject(from, to, r.ballot());
            case DECISION -> new Message.Decision(from, to, r.i64("instance"), r.value(), r.ballot());
            case HEARTBEAT -> new Message.Heartbeat(from, to, r.ballot(), r.i64("highestDecided"), r.i64("trimmedTo"));
            case FETCH -> new Message.Fetch(from, to, r.i64("fromInstance"), r.i64("toInstance"));
            case DELIVERED -> new Message.Delivered(from, to, r.i64("upTo"));
            default -> throw new MalformedFrameException("unknown message type " + type);
        };
        r.end();
        return m;
    }

    /** A bounds-checked reader over one frame. */
    private final class Reader {
        private final ByteBuffer b;

        Reader(byte[] frame) {
            if (frame.length > maxFrameBytes) {
                throw new MalformedFrameException("frame of " + frame.length + " bytes exceeds the maximum of "
                        + maxFrameBytes + " bytes");
            }
            this.b = ByteBuffer.wrap(frame);
        }

        byte header() {
            need(2, "version and type");
            byte version = b.get();
            if (version != VERSION) {
                throw new MalformedFrameException("unsupported format version " + version + " (expected " + VERSION + ")");
            }
            return b.get();
        }

        private void need(int n, String what) {
            if (b.remaining() < n) {
                throw new MalformedFrameException("truncated frame: " + what + " needs " + n + " bytes at offset "
                        + b.position() + ", only " + b.remaining() + " left");
            }
        }

        int i32(String what) {
            need(4, what);
            return b.getInt();
        }

        long i64(String what) {
            need(8, what);
            return b.getLong();
        }

        boolean bool(String what) {
            need(1, what);
            byte v = b.get();
            if (v != 0 && v != 1) {
                throw new MalformedFrameException(what + " must be 0 or 1, got " + v + " at offset " + (b.position() - 1));
            }
            return v == 1;
        }

        Ballot ballot() {
            return new Ballot(i64("ballot round"), i32("ballot coordinator"));
        }

        Value value() {
            ProposalId id = new ProposalId(i32("value proposer"), i64("value seq"));
            int length = i32("value length");
            if (length < 0) {
                throw new MalformedFrameException("negative value length " + length);
            }
            if (length > maxValueBytes) {
                throw new MalformedFrameException("value of " + length + " bytes exceeds the maximum of " + maxValueBytes + " bytes");
            }
            need(length, "value payload");
            byte[] data = new byte[length];
            b.get(data);
            return new Value(id, data);
        }

        /** A list length, checked against the limit and against the bytes left (each element at least {@code minBytes}). */
        int count(String what, int minBytes) {
            int n = i32(what + " count");
            if (n < 0) {
                throw new MalformedFrameException("negative count of " + what + ": " + n);
            }
            if (n > maxListLength) {
                throw new MalformedFrameException(n + " " + what + " exceed the maximum of " + maxListLength);
            }
            if ((long) n * minBytes > b.remaining()) {
                throw new MalformedFrameException("truncated frame: " + n + " " + what + " need at least "
                        + (long) n * minBytes + " bytes, only " + b.remaining() + " left");
            }
            return n;
        }

        void end() {
            if (b.hasRemaining()) {
                throw new MalformedFrameException(b.remaining() + " trailing bytes after the message at offset " + b.position());
            }
        }
    }
}
