package io.psmr.kvstore;

import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.BitmapSummary;
import io.psmr.scheduler.BloomBitmap;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictMode;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.RwBitmapSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/**
 * Encodes and decodes the conflict summary section of a batch (layout in {@code docs/kvstore.md}).
 * Bitmaps travel in RoaringBitmap's portable serialisation whatever their in-memory
 * representation; exact-key summaries travel as nothing, because the keys are in the commands and
 * the replica rebuilds the summary from them.
 */
final class SummaryCodec {

    static final byte MODE_KEYS_PAIRWISE = 1;
    static final byte MODE_KEYS_HASHED = 2;
    static final byte MODE_BITMAP = 3;
    static final byte MODE_RW_BITMAP = 4;
    static final byte REPR_ROARING = 1;
    static final byte REPR_DENSE = 2;

    private SummaryCodec() {
    }

    static byte modeCode(ConflictMode mode) {
        return switch (mode) {
            case KEYS_PAIRWISE -> MODE_KEYS_PAIRWISE;
            case KEYS_HASHED -> MODE_KEYS_HASHED;
            case BITMAP -> MODE_BITMAP;
            case RW_BITMAP -> MODE_RW_BITMAP;
        };
    }

    static ConflictMode mode(int code) {
        return switch (code) {
            case MODE_KEYS_PAIRWISE -> ConflictMode.KEYS_PAIRWISE;
            case MODE_KEYS_HASHED -> ConflictMode.KEYS_HASHED;
            case MODE_BITMAP -> ConflictMode.BITMAP;
            case MODE_RW_BITMAP -> ConflictMode.RW_BITMAP;
            default -> null;
        };
    }

    static void encode(ConflictSummary summary, DataOutputStream out) throws IOException {
        out.writeByte(modeCode(summary.mode()));
        if (summary instanceof BitmapSummary b) {
            writeBitmapHeader(b.bitmap(), out);
            writeBitmap(b.bitmap(), out);
        } else if (summary instanceof RwBitmapSummary rw) {
            writeBitmapHeader(rw.writes(), out);
            writeBitmap(rw.reads(), out);
            writeBitmap(rw.writes(), out);
        }
    }

    private static void writeBitmapHeader(BloomBitmap b, DataOutputStream out) throws IOException {
        out.writeInt(b.sizeBits());
        out.writeByte(b.representation() == BitmapRepresentation.ROARING ? REPR_ROARING : REPR_DENSE);
    }

    private static void writeBitmap(BloomBitmap b, DataOutputStream out) throws IOException {
        RoaringBitmap r = new RoaringBitmap();
        b.forEachSetBit(r::add);
        r.runOptimize();
        out.writeInt(r.serializedSizeInBytes());
        r.serialize(out);
    }

    /**
     * Decodes a summary, which must be of the replica's detection settings.
     *
     * @param in       positioned at the summary's mode byte
     * @param problems builds the refusal
     */
    static ConflictSummary decode(ByteBuffer in, ConflictDetection detection, List<KvCommand> commands,
                                  Refusals problems) throws KvDecodeException {
        if (in.remaining() < 1) {
            throw problems.malformed("the batch is truncated before its conflict summary");
        }
        int code = in.get() & 0xff;
        ConflictMode mode = mode(code);
        if (mode == null) {
            throw problems.malformed("unknown conflict summary mode code " + code);
        }
        if (mode != detection.mode()) {
            throw problems.rejected("conflict summary mode " + mode + " does not match the replica's " + detection.mode());
        }
        if (!mode.usesBitmaps()) {
            return SummaryBuilder.summarize(detection, commands);
        }
        if (in.remaining() < 5) {
            throw problems.malformed("the batch is truncated in its bitmap header");
        }
        int bits = in.getInt();
        int reprCode = in.get() & 0xff;
        if (bits != detection.bitmapBits()) {
            throw problems.rejected("bitmap has " + bits + " bits but the replica is configured for "
                    + detection.bitmapBits() + " bits");
        }
        BitmapRepresentation repr = reprCode == REPR_ROARING ? BitmapRepresentation.ROARING
                : reprCode == REPR_DENSE ? BitmapRepresentation.DENSE : null;
        if (repr == null) {
            throw problems.malformed("unknown bitmap representation code " + reprCode);
        }
        if (repr != detection.representation()) {
            throw problems.rejected("bitmap representation " + repr + " does not match the replica's "
                    + detection.representation());
        }
        if (mode == ConflictMode.BITMAP) {
            return new BitmapSummary(readBitmap(in, repr, bits, "bitmap", problems));
        }
        BloomBitmap reads = readBitmap(in, repr, bits, "read bitmap", problems);
        BloomBitmap writes = readBitmap(in, repr, bits, "write bitmap", problems);
        return new RwBitmapSummary(reads, writes);
    }

    private static BloomBitmap readBitmap(ByteBuffer in, BitmapRepresentation repr, int bits, String what,
                                          Refusals problems) throws KvDecodeException {
        if (in.remaining() < 4) {
            throw problems.malformed("the batch is truncated before the length of its " + what);
        }
        int len = in.getInt();
        if (len < 0 || len > in.remaining()) {
            throw problems.malformed("the " + what + " claims " + len + " bytes but " + in.remaining() + " remain");
        }
        ByteBuffer slice = in.slice();
        slice.limit(len);
        RoaringBitmap r = new RoaringBitmap();
        boolean valid;
        try {
            r.deserialize(slice);
            // Deserialising trusts the container keys and values to be sorted; a bitmap that is not could set a bit
            // beyond r.last(), which the range check below reads.
            valid = Boolean.TRUE.equals(r.validate());
        } catch (IOException | RuntimeException e) {
            throw problems.malformed("the " + what + " is not a valid portable Roaring bitmap: " + e);
        }
        if (!valid) {
            throw problems.malformed("the " + what + " is not a valid portable Roaring bitmap: its containers or their"
                    + " values are not sorted and distinct");
        }
        if (r.serializedSizeInBytes() != len) {
            throw problems.malformed("the " + what + " is " + len + " bytes but its Roaring serialisation takes "
                    + r.serializedSizeInBytes());
        }
        in.position(in.position() + len);
        if (!r.isEmpty() && Integer.toUnsignedLong(r.last()) >= bits) {
            throw problems.malformed("the " + what + " sets bit " + Integer.toUnsignedLong(r.last())
                    + ", outside a bitmap of " + bits + " bits");
        }
        BloomBitmap b = BloomBitmap.create(repr, bits);
        r.forEach((org.roaringbitmap.IntConsumer) b::set);
        return b;
    }

    /** Makes refusals that carry the batch's address. */
    interface Refusals {
        KvDecodeException malformed(String message);

        KvDecodeException rejected(String message);
    }
}
