package io.psmr.kvstore.mlbft;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * What an MLBFT ordering instance orders: a store batch with the id that matches its copies across the instances of a
 * cross-border request ({@code 'M'}, the id, 8 bytes big-endian, then the batch). A proposer gives every proposal its
 * own id, so a proxy's retry of a batch is another request (the store's session table answers its commands once).
 *
 * @param id    the request's id, unique per proposal
 * @param batch the encoded store batch
 */
public record MlbftEnvelope(long id, byte[] batch) {

    /** Bytes the envelope adds to a batch. */
    public static final int OVERHEAD = 9;

    private static final byte MAGIC = 'M';

    /** The envelope's bytes. */
    public byte[] encode() {
        return ByteBuffer.allocate(OVERHEAD + batch.length).put(MAGIC).putLong(id).put(batch).array();
    }

    /**
     * Reads an envelope.
     *
     * @throws IllegalArgumentException naming the problem, if {@code bytes} is not one
     */
    public static MlbftEnvelope decode(byte[] bytes) {
        if (bytes.length < OVERHEAD) {
            throw new IllegalArgumentException("an MLBFT request has at least " + OVERHEAD + " bytes, got " + bytes.length);
        }
        if (bytes[0] != MAGIC) {
            throw new IllegalArgumentException("an MLBFT request starts with 'M' (0x4d), got 0x"
                    + Integer.toHexString(bytes[0] & 0xff));
        }
        return new MlbftEnvelope(ByteBuffer.wrap(bytes, 1, 8).getLong(), Arrays.copyOfRange(bytes, OVERHEAD, bytes.length));
    }
}
