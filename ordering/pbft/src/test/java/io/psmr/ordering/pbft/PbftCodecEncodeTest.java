package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.psmr.ordering.pbft.PbftMessage.Commit;
import io.psmr.ordering.pbft.PbftMessage.Prepare;
import org.junit.jupiter.api.Test;

/** A broadcast encodes its message once per thread; equal messages still encode to equal bytes. */
class PbftCodecEncodeTest {

    private static final byte[] DIGEST = PbftDigests.of(1, 1, new byte[] {1, 2, 3});

    @Test
    void theSameMessageObjectIsEncodedOnceAndDecodesToItself() {
        Prepare p = new Prepare(3, 17, DIGEST, 2);
        byte[] first = PbftCodec.encode(p);
        assertSame(first, PbftCodec.encode(p), "sealing and framing for every peer reuse one encoding");
        assertEquals(p, PbftCodec.decode(first));
        byte[] other = PbftCodec.encode(new Prepare(3, 17, DIGEST, 2));
        assertNotSame(first, other);
        assertArrayEquals(first, other, "an equal message encodes to the same bytes");
    }

    @Test
    void anotherMessageInBetweenIsEncodedAfresh() {
        Prepare p = new Prepare(1, 5, DIGEST, 1);
        Commit c = new Commit(1, 5, DIGEST, 1);
        byte[] prepare = PbftCodec.encode(p);
        byte[] commit = PbftCodec.encode(c);
        assertEquals(c, PbftCodec.decode(commit));
        assertArrayEquals(prepare, PbftCodec.encode(p));
        assertEquals(p, PbftCodec.decode(PbftCodec.encode(p)));
    }

    @Test
    void eachPeersMacCoversItsOwnHeaderOverTheSharedBody() {
        Prepare p = new Prepare(0, 9, DIGEST, 3);
        byte[] to1 = PbftCodec.signedBytes(3, 1, 0, p);
        byte[] to2 = PbftCodec.signedBytes(3, 2, 0, p);
        assertEquals(to1.length, to2.length);
        assertEquals(1, to1[7]);
        assertEquals(2, to2[7]);
    }
}
