package io.psmr.ordering.pbft;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.Complaint;
import io.psmr.ordering.pbft.PbftMessage.NewView;
import io.psmr.ordering.pbft.PbftMessage.PrePrepare;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import io.psmr.ordering.pbft.PbftMessage.PrePrepared;
import io.psmr.ordering.pbft.PbftMessage.Request;
import io.psmr.ordering.pbft.PbftMessage.ViewChange;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The canonical byte encoding of {@link PbftMessage}s: big-endian, a one-byte type tag, fixed
 * fields in declaration order, byte arrays and lists as a 4-byte length then the items. The same
 * message always encodes to the same bytes, which is what MACs are computed over and what a
 * transport sends. Decoding is strict: unknown tags, negative or oversized lengths and trailing
 * bytes are refused with a {@link IllegalArgumentException} naming the problem.
 */
public final class PbftCodec {

    /** The most items any encoded list may hold (bounds what a decoder allocates). */
    public static final int MAX_LIST = 1 << 16;
    /** The most bytes any encoded byte array may hold. */
    public static final int MAX_BYTES = 64 << 20;
    /** The most replicas a leader policy may name (the largest cluster a key file describes). */
    public static final int MAX_REPLICAS = 64;

    private static final byte REQUEST = 1;
    private static final byte PRE_PREPARE = 2;
    private static final byte PREPARE = 3;
    private static final byte COMMIT = 4;
    private static final byte CHECKPOINT = 5;
    private static final byte VIEW_CHANGE = 6;
    private static final byte NEW_VIEW = 7;
    private static final byte COMPLAINT = 8;

    private PbftCodec() {
    }

    /** What a client's MAC covers: client, number and payload. */
    public static byte[] requestBytes(long client, long number, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(21 + payload.length);
        b.put((byte) 0x52).putLong(client).putLong(number).putInt(payload.length).put(payload);
        return b.array();
    }

    /** What an envelope's MAC covers: from, to, pillar, then the message's encoding. */
    public static byte[] signedBytes(int from, int to, int pillar, PbftMessage message) {
        byte[] body = encode(message);
        ByteBuffer b = ByteBuffer.allocate(12 + body.length);
        b.putInt(from).putInt(to).putInt(pillar).put(body);
        return b.array();
    }

    /**
     * What a CHECKPOINT's signature covers: a domain byte, seq, state digest and replica (not the
     * pillar: checkpoints are replica-wide, and a proof agreed on one pillar is shown to all).
     */
    public static byte[] signedContent(Checkpoint c) {
        byte[] digest = c.stateDigest();
        return ByteBuffer.allocate(17 + digest.length).put((byte) 'C').putLong(c.seq()).putInt(digest.length).put(digest)
                .putInt(c.replica()).array();
    }

    /**
     * What a VIEW-CHANGE's signature covers: a domain byte, the pillar (a VIEW-CHANGE of one pillar
     * must not pass for one of another), then its encoding without the signature.
     */
    public static byte[] signedContent(int pillar, ViewChange v) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte('V');
            out.writeInt(pillar);
            writeViewChangeBody(out, v);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    // The last message this thread encoded, and its bytes: a broadcast seals and frames one message object for
    // every peer, which encoded it 2(n - 1) times.
    private static final ThreadLocal<Object[]> LAST_ENCODED = ThreadLocal.withInitial(() -> new Object[2]);

    /**
     * Encodes a message. Encoding the same message object again on the same thread returns the same array: callers
     * read it and never write to it.
     */
    public static byte[] encode(PbftMessage message) {
        Object[] last = LAST_ENCODED.get();
        if (last[0] == message) {
            return (byte[]) last[1];
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(out, message);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
        }
        byte[] encoded = bytes.toByteArray();
        last[0] = message;
        last[1] = encoded;
        return encoded;
    }

    /** Decodes one message that fills {@code bytes} exactly. */
    public static PbftMessage decode(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            PbftMessage m = read(in);
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("malformed PBFT message: " + in.remaining() + " trailing bytes");
            }
            return m;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("malformed PBFT message: truncated", e);
        }
    }

    private static void write(DataOutputStream out, PbftMessage message) throws IOException {
        if (message instanceof Request r) {
            out.writeByte(REQUEST);
            out.writeLong(r.client());
            out.writeLong(r.number());
            writeBytes(out, r.payload());
            out.writeInt(r.macs().size());
            for (byte[] mac : r.macs()) {
                writeBytes(out, mac);
            }
        } else if (message instanceof PrePrepare p) {
            out.writeByte(PRE_PREPARE);
            out.writeLong(p.view());
            out.writeLong(p.seq());
            writeBytes(out, p.digest());
            out.writeBoolean(p.request() != null);
            if (p.request() != null) {
                write(out, p.request());
            }
        } else if (message instanceof Prepare p) {
            out.writeByte(PREPARE);
            out.writeLong(p.view());
            out.writeLong(p.seq());
            writeBytes(out, p.digest());
            out.writeInt(p.replica());
        } else if (message instanceof Commit c) {
            out.writeByte(COMMIT);
            out.writeLong(c.view());
            out.writeLong(c.seq());
            writeBytes(out, c.digest());
            out.writeInt(c.replica());
        } else if (message instanceof Checkpoint c) {
            out.writeByte(CHECKPOINT);
            out.writeLong(c.seq());
            writeBytes(out, c.stateDigest());
            out.writeInt(c.replica());
            writeBytes(out, c.signature());
        } else if (message instanceof ViewChange v) {
            out.writeByte(VIEW_CHANGE);
            writeViewChangeBody(out, v);
            writeBytes(out, v.signature());
        } else if (message instanceof Complaint c) {
            out.writeByte(COMPLAINT);
            out.writeLong(c.newView());
            out.writeInt(c.replica());
        } else if (message instanceof NewView nv) {
            out.writeByte(NEW_VIEW);
            out.writeLong(nv.view());
            out.writeInt(nv.viewChanges().size());
            for (ViewChange v : nv.viewChanges()) {
                write(out, v);
            }
            out.writeInt(nv.prePrepares().size());
            for (PrePrepare p : nv.prePrepares()) {
                write(out, p);
            }
            out.writeInt(nv.replica());
        }
    }

    private static void writeViewChangeBody(DataOutputStream out, ViewChange v) throws IOException {
        out.writeLong(v.newView());
        out.writeLong(v.stableSeq());
        out.writeInt(v.stableProof().size());
        for (Checkpoint c : v.stableProof()) {
            write(out, c);
        }
        out.writeInt(v.prepared().size());
        for (PrePrepare p : v.prepared()) {
            write(out, p);
        }
        out.writeInt(v.prePrepared().size());
        for (PrePrepared q : v.prePrepared()) {
            out.writeLong(q.seq());
            out.writeLong(q.view());
            writeBytes(out, q.digest());
        }
        out.writeInt(v.suspect());
        LeaderPolicy leaders = v.leaders();
        out.writeInt(leaders.size());
        for (int r = 0; r < leaders.size(); r++) {
            out.writeLong(leaders.excludedThrough(r));
            out.writeInt(leaders.strikes(r));
        }
        out.writeInt(v.replica());
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static PbftMessage read(ByteBuffer in) {
        byte tag = in.get();
        return switch (tag) {
            case REQUEST -> {
                long client = in.getLong();
                long number = in.getLong();
                byte[] payload = readBytes(in);
                int count = count(in);
                List<byte[]> macs = new ArrayList<>(capacity(count, in));
                for (int i = 0; i < count; i++) {
                    macs.add(readBytes(in));
                }
                yield new Request(client, number, payload, macs);
            }
            case PRE_PREPARE -> {
                long view = in.getLong();
                long seq = in.getLong();
                byte[] digest = readBytes(in);
                Request r = flag(in, "a PRE-PREPARE's request flag") ? nested(in, REQUEST, Request.class) : null;
                yield new PrePrepare(view, seq, digest, r);
            }
            case PREPARE -> new Prepare(in.getLong(), in.getLong(), readBytes(in), in.getInt());
            case COMMIT -> new Commit(in.getLong(), in.getLong(), readBytes(in), in.getInt());
            case CHECKPOINT -> new Checkpoint(in.getLong(), readBytes(in), in.getInt(), readBytes(in));
            case VIEW_CHANGE -> {
                long newView = in.getLong();
                long stableSeq = in.getLong();
                int proofs = count(in);
                List<Checkpoint> proof = new ArrayList<>(capacity(proofs, in));
                for (int i = 0; i < proofs; i++) {
                    proof.add(nested(in, CHECKPOINT, Checkpoint.class));
                }
                int ps = count(in);
                List<PrePrepare> prepared = new ArrayList<>(capacity(ps, in));
                for (int i = 0; i < ps; i++) {
                    prepared.add(nested(in, PRE_PREPARE, PrePrepare.class));
                }
                int qs = count(in);
                List<PrePrepared> prePrepared = new ArrayList<>(capacity(qs, in));
                for (int i = 0; i < qs; i++) {
                    prePrepared.add(new PrePrepared(in.getLong(), in.getLong(), readBytes(in)));
                }
                int suspect = in.getInt();
                LeaderPolicy leaders = readLeaderPolicy(in);
                int replica = in.getInt();
                yield new ViewChange(newView, stableSeq, proof, prepared, prePrepared, suspect, leaders, replica,
                        readBytes(in));
            }
            case NEW_VIEW -> {
                long view = in.getLong();
                int vcs = count(in);
                List<ViewChange> changes = new ArrayList<>(capacity(vcs, in));
                for (int i = 0; i < vcs; i++) {
                    changes.add(nested(in, VIEW_CHANGE, ViewChange.class));
                }
                int pps = count(in);
                List<PrePrepare> prePrepares = new ArrayList<>(capacity(pps, in));
                for (int i = 0; i < pps; i++) {
                    prePrepares.add(nested(in, PRE_PREPARE, PrePrepare.class));
                }
                yield new NewView(view, changes, prePrepares, in.getInt());
            }
            case COMPLAINT -> new Complaint(in.getLong(), in.getInt());
            default -> throw new IllegalArgumentException("malformed PBFT message: unknown type tag " + tag);
        };
    }

    private static LeaderPolicy readLeaderPolicy(ByteBuffer in) {
        int size = in.getInt();
        if (size < 0 || size > MAX_REPLICAS) {
            throw new IllegalArgumentException("malformed PBFT message: leader policy of " + size
                    + " replicas (limit " + MAX_REPLICAS + ")");
        }
        if (size == 0) {
            return LeaderPolicy.NONE;
        }
        long[] excluded = new long[size];
        int[] strikes = new int[size];
        for (int r = 0; r < size; r++) {
            excluded[r] = in.getLong();
            strikes[r] = in.getInt();
            if (excluded[r] < 0 || strikes[r] < 0) {
                throw new IllegalArgumentException("malformed PBFT message: negative leader policy value for replica " + r);
            }
        }
        return LeaderPolicy.of(excluded, strikes);
    }

    /**
     * Reads a message nested in another, which must be of {@code type}. The tag is checked before the message is
     * read, so nesting is as deep as the message types allow (NEW-VIEW, VIEW-CHANGE, PRE-PREPARE, REQUEST) and a
     * frame of nested PRE-PREPAREs cannot recurse until the stack overflows.
     */
    private static <T extends PbftMessage> T nested(ByteBuffer in, byte tag, Class<T> type) {
        if (!in.hasRemaining()) {
            throw new BufferUnderflowException(); // reported as truncated, as everywhere else
        }
        byte found = in.get(in.position());
        if (found != tag) {
            throw new IllegalArgumentException("malformed PBFT message: expected " + type.getSimpleName() + " (tag "
                    + tag + ") but found type tag " + found);
        }
        return type.cast(read(in));
    }

    /** A list's initial capacity: every item takes at least a byte, so a count beyond the bytes left allocates nothing. */
    private static int capacity(int count, ByteBuffer in) {
        return Math.min(count, in.remaining());
    }

    /** A boolean, strictly 0 or 1: any other byte would decode to a message whose encoding differs. */
    private static boolean flag(ByteBuffer in, String what) {
        byte b = in.get();
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException("malformed PBFT message: " + what + " must be 0 or 1, got " + b);
        }
        return b == 1;
    }

    private static int count(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > MAX_LIST) {
            throw new IllegalArgumentException("malformed PBFT message: list length " + n + " outside [0, " + MAX_LIST + "]");
        }
        return n;
    }

    private static byte[] readBytes(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > MAX_BYTES || n > in.remaining()) {
            throw new IllegalArgumentException("malformed PBFT message: byte array length " + n
                    + " (remaining " + in.remaining() + ", limit " + MAX_BYTES + ")");
        }
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }
}
