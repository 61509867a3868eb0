package io.psmr.kvstore;

import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * The binary codec of the key-value store: commands, batches (the values proposed to atomic
 * broadcast) and replies. All integers are big-endian; the byte layouts are tabled in
 * {@code docs/kvstore.md}. Every message starts with the {@link #VERSION} byte and a kind byte;
 * batches and replies then carry the proxy id and batch id at fixed offsets 2 and 10, which no
 * future version may move, so any replica can address a refusal.
 *
 * <p>Decoding never trusts a length: each is checked against the bytes that remain before anything
 * is allocated, and every failure is a {@link KvDecodeException} with a status and a message naming
 * the problem, never another exception. Decoding depends only on the bytes and the replica's
 * configuration, so every replica reaches the same verdict.
 *
 * <p>Stateless and thread-safe.
 */
public final class KvCodec {

    /** The codec version this build writes and reads. */
    public static final byte VERSION = 1;
    /** Kind byte of a batch. */
    public static final byte KIND_BATCH = 1;
    /** Kind byte of a reply. */
    public static final byte KIND_REPLY = 2;
    /** Kind byte of a single command. */
    public static final byte KIND_COMMAND = 3;
    /** Bytes of the fixed batch header: version, kind, proxy id, batch id. */
    public static final int BATCH_HEADER_BYTES = 18;
    /** Bytes a batch takes besides its commands and summary: header, command count, checksum. */
    public static final int BATCH_OVERHEAD_BYTES = BATCH_HEADER_BYTES + 4 + 4;

    private static final int COMMAND_FIXED_BYTES = 1 + 8 + 8;
    private static final int MIN_COMMAND_BYTES = COMMAND_FIXED_BYTES; // OPEN_SESSION: no key

    private KvCodec() {
    }

    // ---------------------------------------------------------------- commands

    /** The bytes {@code command} takes inside a batch; lets a proxy bound its batches' size. */
    public static int encodedSize(KvCommand command) {
        int size = COMMAND_FIXED_BYTES + (command.op() == KvOp.MULTI_PUT ? 4 : 0);
        for (int i = 0; i < command.keyCount(); i++) {
            size += 4 + command.key(i).length;
            byte[] v = command.value(i);
            if (v != null) {
                size += 4 + v.length;
            }
        }
        return size;
    }

    /** One command on its own: version, {@link #KIND_COMMAND}, then the command as inside a batch. */
    public static byte[] encodeCommand(KvCommand command) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(2 + encodedSize(command));
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(KIND_COMMAND);
            writeCommand(command, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Decodes {@link #encodeCommand}'s output. @throws KvDecodeException MALFORMED, naming the problem */
    public static KvCommand decodeCommand(byte[] bytes) throws KvDecodeException {
        Refusal r = new Refusal(false, 0, 0);
        if (bytes == null || bytes.length < 2) {
            throw r.malformed("a command needs at least 2 bytes");
        }
        checkVersionAndKind(bytes, KIND_COMMAND, "command", r);
        ByteBuffer in = ByteBuffer.wrap(bytes, 2, bytes.length - 2);
        try {
            KvCommand c = readCommand(in, 0, r);
            if (in.hasRemaining()) {
                throw r.malformed(in.remaining() + " trailing bytes after the command");
            }
            return c;
        } catch (BufferUnderflowException e) {
            throw r.malformed("the command is truncated");
        }
    }

    private static void writeCommand(KvCommand c, DataOutputStream out) throws IOException {
        out.writeByte(c.op().code());
        out.writeLong(c.clientId());
        out.writeLong(c.requestSeq());
        if (c.op() == KvOp.MULTI_PUT) {
            out.writeInt(c.keyCount());
        }
        for (int i = 0; i < c.keyCount(); i++) {
            writeBytes(c.key(i), out);
            byte[] v = c.value(i);
            if (v != null) {
                writeBytes(v, out);
            }
        }
    }

    private static void writeBytes(byte[] b, DataOutputStream out) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static KvCommand readCommand(ByteBuffer in, int index, Refusal r) throws KvDecodeException {
        if (in.remaining() < MIN_COMMAND_BYTES) {
            throw r.malformed("command " + index + " is truncated: " + in.remaining() + " bytes remain, a command needs at least "
                    + MIN_COMMAND_BYTES);
        }
        int code = in.get() & 0xff;
        KvOp op = KvOp.fromCode(code);
        if (op == null) {
            throw r.malformed("command " + index + " has unknown operation code " + code);
        }
        long clientId = in.getLong();
        long seq = in.getLong();
        if (seq < 1) {
            throw r.malformed("command " + index + " has request sequence " + seq + "; sequences start at 1");
        }
        int pairs = op == KvOp.OPEN_SESSION ? 0 : 1;
        if (op == KvOp.MULTI_PUT) {
            pairs = in.getInt();
            if (pairs < 1) {
                throw r.malformed("command " + index + " is a MULTI_PUT of " + pairs + " pairs; it needs at least 1");
            }
            if ((long) pairs * 8 > in.remaining()) {
                throw r.malformed("command " + index + " claims " + pairs + " pairs but only " + in.remaining()
                        + " bytes remain");
            }
        }
        byte[][] keys = new byte[pairs][];
        byte[][] values = op.carriesValues() ? new byte[pairs][] : null;
        for (int i = 0; i < pairs; i++) {
            keys[i] = readBytes(in, index, "key " + i, r);
            if (keys[i].length == 0) {
                throw r.malformed("command " + index + " has an empty key " + i);
            }
            if (values != null) {
                values[i] = readBytes(in, index, "value " + i, r);
            }
        }
        return KvCommand.of(op, clientId, seq, keys, values);
    }

    private static byte[] readBytes(ByteBuffer in, int index, String what, Refusal r) throws KvDecodeException {
        if (in.remaining() < 4) {
            throw r.malformed("command " + index + " is truncated before the length of its " + what);
        }
        int len = in.getInt();
        if (len < 0 || len > in.remaining()) {
            throw r.malformed("command " + index + "'s " + what + " claims " + len + " bytes but " + in.remaining()
                    + " remain");
        }
        byte[] b = new byte[len];
        in.get(b);
        return b;
    }

    // ---------------------------------------------------------------- batches

    /**
     * Encodes a batch: header, command count, commands, conflict summary, CRC-32C. Does not check
     * limits: a proxy should check each command with {@link KvLimits#checkCommand} and bound the
     * batch with {@link #encodedSize} before encoding.
     */
    public static byte[] encodeBatch(long proxyId, long batchId, List<KvCommand> commands, ConflictSummary summary) {
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(summary, "summary");
        if (commands.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one command");
        }
        int size = BATCH_OVERHEAD_BYTES + 16;
        for (KvCommand c : commands) {
            size += encodedSize(c);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(size);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeByte(KIND_BATCH);
            out.writeLong(proxyId);
            out.writeLong(batchId);
            out.writeInt(commands.size());
            for (KvCommand c : commands) {
                writeCommand(c, out);
            }
            SummaryCodec.encode(summary, out);
            out.flush();
            CRC32C crc = new CRC32C();
            byte[] soFar = bytes.toByteArray();
            crc.update(soFar, 0, soFar.length);
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** {@link #encodeBatch} of a {@link KvBatch}. */
    public static byte[] encodeBatch(KvBatch batch) {
        return encodeBatch(batch.proxyId(), batch.batchId(), batch.commands(), batch.summary());
    }

    /**
     * Decodes a batch delivered by atomic broadcast, checking it against the replica's detection
     * settings and the batch limits (not the per-command limits: a command over those is answered
     * TOO_LARGE on its own while the rest of the batch runs).
     *
     * @throws KvDecodeException MALFORMED for bytes that are not a valid batch (short, wrong version or
     *                           kind, checksum mismatch, truncated, garbled, trailing bytes); TOO_LARGE
     *                           for a batch over {@link KvLimits#maxBatchBytes()} or
     *                           {@link KvLimits#maxCommandsPerBatch()}; REJECTED for a summary made
     *                           under other detection settings
     */
    public static KvBatch decodeBatch(byte[] bytes, ConflictDetection detection, KvLimits limits)
            throws KvDecodeException {
        Objects.requireNonNull(detection, "detection");
        Objects.requireNonNull(limits, "limits");
        if (bytes == null || bytes.length < BATCH_HEADER_BYTES) {
            throw new Refusal(false, 0, 0).malformed("a batch of " + (bytes == null ? 0 : bytes.length)
                    + " bytes is shorter than its " + BATCH_HEADER_BYTES + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        Refusal r = new Refusal(true, in.getLong(2), in.getLong(10));
        checkVersionAndKind(bytes, KIND_BATCH, "batch", r);
        if (bytes.length > limits.maxBatchBytes()) {
            throw r.tooLarge("batch of " + bytes.length + " bytes exceeds the limit of " + limits.maxBatchBytes() + " bytes");
        }
        if (bytes.length < BATCH_OVERHEAD_BYTES) {
            throw r.malformed("a batch of " + bytes.length + " bytes is truncated: it needs at least "
                    + BATCH_OVERHEAD_BYTES);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        int stored = in.getInt(bytes.length - 4);
        if (stored != (int) crc.getValue()) {
            throw r.malformed("checksum mismatch: the batch is truncated or garbled (CRC-32C "
                    + Integer.toHexString((int) crc.getValue()) + ", stored " + Integer.toHexString(stored) + ")");
        }
        in.position(BATCH_HEADER_BYTES).limit(bytes.length - 4);
        try {
            int count = in.getInt();
            if (count < 1) {
                throw r.malformed("batch has " + count + " commands; it needs at least 1");
            }
            if (count > limits.maxCommandsPerBatch()) {
                throw r.tooLarge("batch has " + count + " commands; the limit is " + limits.maxCommandsPerBatch());
            }
            if ((long) count * MIN_COMMAND_BYTES > in.remaining()) {
                throw r.malformed("batch claims " + count + " commands but only " + in.remaining() + " bytes follow");
            }
            List<KvCommand> commands = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                commands.add(readCommand(in, i, r));
            }
            ConflictSummary summary = SummaryCodec.decode(in, detection, commands, r);
            if (in.hasRemaining()) {
                throw r.malformed(in.remaining() + " trailing bytes after the conflict summary");
            }
            return new KvBatch(r.proxyId, r.batchId, commands, summary);
        } catch (BufferUnderflowException e) {
            throw r.malformed("the batch is truncated");
        } catch (RuntimeException e) {
            // A defect in decoding, not in the bytes; still the same verdict on every replica.
            throw r.malformed("undecodable batch: " + e);
        }
    }

    private static void checkVersionAndKind(byte[] bytes, byte kind, String what, Refusal r) throws KvDecodeException {
        if (bytes[0] != VERSION) {
            throw r.malformed("codec version " + (bytes[0] & 0xff) + " is not supported; this build reads version " + VERSION);
        }
        if (bytes[1] != kind) {
            throw r.malformed("message kind " + (bytes[1] & 0xff) + " is not a " + what + " (kind " + kind + ")");
        }
    }

    // ---------------------------------------------------------------- replies

    /** Encodes a reply for a network transport. */
    public static byte[] encodeReply(KvReply reply) {
        KvResult res = reply.result();
        byte[] detail = res.detail().getBytes(StandardCharsets.UTF_8);
        int size = 18 + 4 + 4 + 8 + 1 + 4 + (res.value() == null ? 0 : res.value().length) + 4 + detail.length;
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(VERSION).put(KIND_REPLY).putLong(reply.proxyId()).putLong(reply.batchId())
                .putInt(reply.replicaId()).putInt(reply.index()).putLong(reply.instance()).put(res.status().code());
        if (res.value() == null) {
            out.putInt(-1);
        } else {
            out.putInt(res.value().length).put(res.value());
        }
        out.putInt(detail.length).put(detail);
        return out.array();
    }

    /** Decodes {@link #encodeReply}'s output. @throws KvDecodeException MALFORMED, naming the problem */
    public static KvReply decodeReply(byte[] bytes) throws KvDecodeException {
        if (bytes == null || bytes.length < BATCH_HEADER_BYTES) {
            throw new Refusal(false, 0, 0).malformed("a reply needs at least " + BATCH_HEADER_BYTES + " bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        Refusal r = new Refusal(true, in.getLong(2), in.getLong(10));
        checkVersionAndKind(bytes, KIND_REPLY, "reply", r);
        in.position(BATCH_HEADER_BYTES);
        try {
            int replicaId = in.getInt();
            int index = in.getInt();
            long instance = in.getLong();
            int code = in.get() & 0xff;
            KvStatus status = KvStatus.fromCode(code);
            if (status == null) {
                throw r.malformed("unknown reply status code " + code);
            }
            int vlen = in.getInt();
            if (vlen < -1 || vlen > in.remaining()) {
                throw r.malformed("reply value claims " + vlen + " bytes but " + in.remaining() + " remain");
            }
            byte[] value = null;
            if (vlen >= 0) {
                value = new byte[vlen];
                in.get(value);
            }
            int dlen = in.getInt();
            if (dlen < 0 || dlen != in.remaining()) {
                throw r.malformed("reply detail claims " + dlen + " bytes but " + in.remaining() + " remain");
            }
            byte[] detail = new byte[dlen];
            in.get(detail);
            if (index < KvReply.WHOLE_BATCH) {
                throw r.malformed("reply index " + index + " is invalid");
            }
            return new KvReply(replicaId, r.proxyId, r.batchId, index, instance,
                    new KvResult(status, value, new String(detail, StandardCharsets.UTF_8)));
        } catch (BufferUnderflowException e) {
            throw r.malformed("the reply is truncated");
        }
    }

    /**
     * Encodes the replies to one batch as one message (what a Ratis state machine returns to the
     * submitting client): a 4-byte count, then each {@link #encodeReply} with a 4-byte length.
     */
    public static byte[] encodeReplies(List<KvReply> replies) {
        byte[][] encoded = new byte[replies.size()][];
        int size = 4;
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = encodeReply(replies.get(i));
            size += 4 + encoded[i].length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(encoded.length);
        for (byte[] e : encoded) {
            out.putInt(e.length).put(e);
        }
        return out.array();
    }

    /** Decodes {@link #encodeReplies}'s output. @throws KvDecodeException MALFORMED, naming the problem */
    public static List<KvReply> decodeReplies(byte[] bytes) throws KvDecodeException {
        Refusal r = new Refusal(false, 0, 0);
        if (bytes == null || bytes.length < 4) {
            throw r.malformed("a reply list needs at least 4 bytes");
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        int n = in.getInt();
        // Each reply takes more than 4 bytes, so the count is bounded by the message's size.
        if (n < 0 || n > in.remaining() / 4) {
            throw r.malformed("a reply list claims " + n + " replies in " + in.remaining() + " bytes");
        }
        List<KvReply> replies = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = in.remaining() >= 4 ? in.getInt() : -1;
            if (len < 0 || len > in.remaining()) {
                throw r.malformed("reply " + i + " of the list is truncated");
            }
            byte[] one = new byte[len];
            in.get(one);
            replies.add(decodeReply(one));
        }
        if (in.hasRemaining()) {
            throw r.malformed(in.remaining() + " bytes follow the last reply of the list");
        }
        return replies;
    }

    /** Builds refusals carrying the header's address, if read. */
    private static final class Refusal implements SummaryCodec.Refusals {
        final boolean addressed;
        final long proxyId;
        final long batchId;

        Refusal(boolean addressed, long proxyId, long batchId) {
            this.addressed = addressed;
            this.proxyId = proxyId;
            this.batchId = batchId;
        }

        @Override
        public KvDecodeException malformed(String message) {
            return new KvDecodeException(KvStatus.MALFORMED, addressed, proxyId, batchId, message);
        }

        @Override
        public KvDecodeException rejected(String message) {
            return new KvDecodeException(KvStatus.REJECTED, addressed, proxyId, batchId, message);
        }

        KvDecodeException tooLarge(String message) {
            return new KvDecodeException(KvStatus.TOO_LARGE, addressed, proxyId, batchId, message);
        }
    }
}
