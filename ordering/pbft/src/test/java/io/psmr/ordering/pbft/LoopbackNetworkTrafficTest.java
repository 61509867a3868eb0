package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@link LoopbackNetwork#sentBytes}: each sender's encoded frames, dropped ones included, requests excluded. */
class LoopbackNetworkTrafficTest {

    private static PbftEnvelope prepare(int from, int to) {
        return new PbftEnvelope(from, to, 0, new PbftMessage.Prepare(0, 1, new byte[32], from), new byte[32]);
    }

    @Test
    void countsTheEncodedBytesOfEachSender() {
        LoopbackNetwork net = new LoopbackNetwork(4, 1, 1, 4);
        PbftEnvelope a = prepare(1, 2);
        int frame = EnvelopeCodec.encode(a).length;
        assertTrue(net.send(a));
        assertFalse(net.send(prepare(1, 2)), "the inbox of capacity 1 is full: dropped");
        assertTrue(net.send(prepare(3, 0)));
        assertEquals(2L * frame, net.sentBytes(1), "the dropped frame was sent too");
        assertEquals(frame, net.sentBytes(3));
        assertEquals(0, net.sentBytes(0));
        assertEquals(0, net.sentBytes(2));
        assertEquals(1, net.dropped(2));
        assertTrue(net.submit(0, 0, PbftMessage.Request.sign(7, 1, new byte[16], new ChecksumAuthenticator(), 4)));
        assertEquals(0, net.sentBytes(0), "client requests are not a replica's traffic");
    }
}
