package io.psmr.kvstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.BitmapSummary;
import io.psmr.scheduler.ConflictDetection;
import io.psmr.scheduler.ConflictSummary;
import io.psmr.scheduler.RwBitmapSummary;
import io.psmr.scheduler.SummaryBuilder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KvCodecTest {

    static Stream<ConflictDetection> detections() {
        return Stream.of(ConflictDetection.keysPairwise(), ConflictDetection.keysHashed(),
                ConflictDetection.bitmap(4096), ConflictDetection.bitmap(4096).withRepresentation(BitmapRepresentation.DENSE),
                ConflictDetection.rwBitmap(1_024_000));
    }

    private static long seed(String test) {
        long seed = Long.getLong("psmr.seed", System.nanoTime()); // re-run a failure with -Dpsmr.seed=SEED
        System.out.println(test + " seed=" + seed);
        return seed;
    }

    @ParameterizedTest
    @MethodSource("detections")
    void batchesRoundTripInEveryMode(ConflictDetection detection) throws Exception {
        long seed = seed("batchesRoundTripInEveryMode " + detection);
        Workload w = new Workload(seed, 1000, 64);
        for (int round = 0; round < 50; round++) {
            List<KvCommand> commands = w.commands(w.random.nextLong(), 1 + w.random.nextInt(1000), 1 + w.random.nextInt(40));
            ConflictSummary summary = SummaryBuilder.summarize(detection, commands);
            long proxy = w.random.nextLong();
            long batchId = w.random.nextLong();
            byte[] bytes = KvCodec.encodeBatch(proxy, batchId, commands, summary);
            KvBatch back = KvCodec.decodeBatch(bytes, detection, KvLimits.defaults());
            assertEquals(proxy, back.proxyId(), "seed " + seed);
            assertEquals(batchId, back.batchId(), "seed " + seed);
            assertEquals(commands, back.commands(), "seed " + seed);
            detection.requireMatches(back.summary());
            assertSameSummary(summary, back.summary());
        }
    }

    private static void assertSameSummary(ConflictSummary a, ConflictSummary b) {
        assertEquals(a.mode(), b.mode());
        if (a instanceof BitmapSummary x) {
            assertEquals(bits(x.bitmap()), bits(((BitmapSummary) b).bitmap()));
        } else if (a instanceof RwBitmapSummary x) {
            assertEquals(bits(x.reads()), bits(((RwBitmapSummary) b).reads()));
            assertEquals(bits(x.writes()), bits(((RwBitmapSummary) b).writes()));
        }
    }

    private static List<Integer> bits(io.psmr.scheduler.BloomBitmap b) {
        List<Integer> l = new ArrayList<>();
        b.forEachSetBit(l::add);
        return l;
    }

    @Test
    void commandsAndRepliesRoundTrip() throws Exception {
        long seed = seed("commandsAndRepliesRoundTrip");
        Workload w = new Workload(seed, 100, 100);
        for (int i = 0; i < 200; i++) {
            KvCommand c = w.command(w.random.nextLong(), 1 + w.random.nextInt(Integer.MAX_VALUE));
            byte[] bytes = KvCodec.encodeCommand(c);
            assertEquals(2 + KvCodec.encodedSize(c), bytes.length, "seed " + seed);
            assertEquals(c, KvCodec.decodeCommand(bytes), "seed " + seed);
        }
        for (KvStatus s : KvStatus.values()) {
            KvResult r = s == KvStatus.OK ? KvResult.ok(new byte[] {1, 2, 3}) : KvResult.of(s, "why: " + s + " ü");
            KvReply reply = new KvReply(3, -7, 42, s.ordinal() - 1, 99, r);
            assertEquals(reply, KvCodec.decodeReply(KvCodec.encodeReply(reply)));
        }
        KvReply empty = new KvReply(1, 2, 3, 0, 4, KvResult.ok(new byte[0]));
        KvReply back = KvCodec.decodeReply(KvCodec.encodeReply(empty));
        assertArrayEquals(new byte[0], back.result().value());
        assertNull(KvCodec.decodeReply(KvCodec.encodeReply(new KvReply(1, 2, 3, 0, 4, KvResult.ok()))).result().value());
    }

    @Test
    void everyTruncationIsMalformedAndAddressedOnceTheHeaderIsThere() throws Exception {
        long seed = seed("everyTruncationIsMalformedAndAddressedOnceTheHeaderIsThere");
        Workload w = new Workload(seed, 100, 20);
        ConflictDetection d = ConflictDetection.rwBitmap(4096);
        byte[] bytes = Workload.encode(5, 6, w.commands(1, 1, 5), d);
        for (int len = 0; len < bytes.length; len++) {
            byte[] cut = java.util.Arrays.copyOf(bytes, len);
            KvDecodeException e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(cut, d, KvLimits.defaults()),
                    "length " + len);
            assertEquals(KvStatus.MALFORMED, e.status(), e.getMessage());
            assertEquals(len >= KvCodec.BATCH_HEADER_BYTES, e.addressed());
            if (e.addressed()) {
                assertEquals(5, e.proxyId());
                assertEquals(6, e.batchId());
            }
        }
    }

    @Test
    void garbledBytesAreRefusedNeverCrash() throws Exception {
        long seed = seed("garbledBytesAreRefusedNeverCrash");
        Workload w = new Workload(seed, 100, 20);
        ConflictDetection d = ConflictDetection.bitmap(4096);
        for (int round = 0; round < 2000; round++) {
            byte[] bytes = Workload.encode(1, round, w.commands(1, 1, 1 + w.random.nextInt(5)), d);
            int flips = 1 + w.random.nextInt(4);
            for (int f = 0; f < flips; f++) {
                int pos = KvCodec.BATCH_HEADER_BYTES + w.random.nextInt(bytes.length - KvCodec.BATCH_HEADER_BYTES);
                bytes[pos] ^= (byte) (1 + w.random.nextInt(255));
            }
            boolean fixCrc = w.random.nextBoolean();
            if (fixCrc) {
                reseal(bytes); // garbage with a valid checksum reaches the structural checks
            }
            try {
                KvBatch b = KvCodec.decodeBatch(bytes, d, KvLimits.defaults());
                assertFalse(b.commands().isEmpty());
            } catch (KvDecodeException e) {
                assertTrue(e.addressed());
                assertTrue(e.status() == KvStatus.MALFORMED || e.status() == KvStatus.REJECTED
                        || e.status() == KvStatus.TOO_LARGE, "seed " + seed + ": " + e.getMessage());
                if (!fixCrc) {
                    assertTrue(e.getMessage().startsWith("checksum mismatch"), "seed " + seed + ": " + e.getMessage());
                }
            }
        }
    }

    static void reseal(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    }

    @Test
    void headerProblemsAreNamed() throws Exception {
        ConflictDetection d = ConflictDetection.bitmap(4096);
        byte[] good = Workload.encode(9, 10, List.of(KvCommand.read(1, 1, Workload.key(1))), d);

        byte[] version = good.clone();
        version[0] = 2;
        KvDecodeException e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(version, d, KvLimits.defaults()));
        assertEquals(KvStatus.MALFORMED, e.status());
        assertTrue(e.getMessage().contains("codec version 2 is not supported"), e.getMessage());
        assertEquals(9, e.proxyId());

        byte[] kind = good.clone();
        kind[1] = KvCodec.KIND_REPLY;
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(kind, d, KvLimits.defaults()));
        assertTrue(e.getMessage().contains("is not a batch"), e.getMessage());

        byte[] noCommands = good.clone();
        ByteBuffer.wrap(noCommands).putInt(KvCodec.BATCH_HEADER_BYTES, 0);
        reseal(noCommands);
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(noCommands, d, KvLimits.defaults()));
        assertTrue(e.getMessage().contains("needs at least 1"), e.getMessage());

        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 3);
        System.arraycopy(good, good.length - 4, trailing, trailing.length - 4, 4);
        reseal(trailing);
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(trailing, d, KvLimits.defaults()));
        assertTrue(e.getMessage().contains("trailing bytes"), e.getMessage());

        assertThrows(KvDecodeException.class, () -> KvCodec.decodeCommand(new byte[] {1}));
        assertThrows(KvDecodeException.class, () -> KvCodec.decodeReply(new byte[5]));
        assertThrows(IllegalArgumentException.class, () -> KvCodec.encodeBatch(1, 1, List.of(),
                SummaryBuilder.summarize(d, List.of())));
    }

    @Test
    void summariesOfOtherSettingsAreRejected() {
        List<KvCommand> cmds = List.of(KvCommand.read(1, 1, Workload.key(1)));
        ConflictDetection replica = ConflictDetection.bitmap(4096);
        byte[] otherSize = Workload.encode(1, 1, cmds, ConflictDetection.bitmap(1024));
        KvDecodeException e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(otherSize, replica, KvLimits.defaults()));
        assertEquals(KvStatus.REJECTED, e.status());
        assertTrue(e.getMessage().contains("1024 bits but the replica is configured for 4096"), e.getMessage());

        byte[] otherMode = Workload.encode(1, 1, cmds, ConflictDetection.keysHashed());
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(otherMode, replica, KvLimits.defaults()));
        assertEquals(KvStatus.REJECTED, e.status());
        assertTrue(e.getMessage().contains("mode KEYS_HASHED does not match the replica's BITMAP"), e.getMessage());

        byte[] otherRepr = Workload.encode(1, 1, cmds, replica.withRepresentation(BitmapRepresentation.DENSE));
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(otherRepr, replica, KvLimits.defaults()));
        assertTrue(e.getMessage().contains("representation DENSE"), e.getMessage());
    }

    @Test
    void bitsOutsideTheBitmapAreMalformed() {
        // A hand-made batch whose bitmap sets bit 5000 of a 4096-bit bitmap.
        List<KvCommand> cmds = List.of(KvCommand.read(1, 1, Workload.key(1)));
        io.psmr.scheduler.BloomBitmap big = io.psmr.scheduler.BloomBitmap.create(BitmapRepresentation.ROARING, 8192);
        big.set(5000);
        byte[] bytes = KvCodec.encodeBatch(1, 1, cmds, new BitmapSummary(big));
        // Patch the declared size from 8192 to 4096: mode byte, then the size.
        int summaryAt = bytes.length - 4 - 1 - 4 - 1 - 4 - serializedSizeOf(5000);
        ByteBuffer.wrap(bytes).putInt(summaryAt + 1, 4096);
        reseal(bytes);
        KvDecodeException e = assertThrows(KvDecodeException.class,
                () -> KvCodec.decodeBatch(bytes, ConflictDetection.bitmap(4096), KvLimits.defaults()));
        assertEquals(KvStatus.MALFORMED, e.status());
        assertTrue(e.getMessage().contains("sets bit 5000, outside a bitmap of 4096 bits"), e.getMessage());
    }

    private static int serializedSizeOf(int bit) {
        org.roaringbitmap.RoaringBitmap r = org.roaringbitmap.RoaringBitmap.bitmapOf(bit);
        r.runOptimize();
        return r.serializedSizeInBytes();
    }

    @Test
    void everyLimitIsEnforcedWithAStatus() throws Exception {
        KvLimits limits = new KvLimits(8, 16, 3, 4, 400);
        assertNull(limits.checkCommand(KvCommand.create(1, 1, new byte[8], new byte[16])));
        assertTrue(limits.checkCommand(KvCommand.read(1, 1, new byte[9])).contains("key 0 is 9 bytes; the limit is 8"));
        assertTrue(limits.checkCommand(KvCommand.update(1, 1, new byte[1], new byte[17])).contains("value 0 is 17 bytes; the limit is 16"));
        byte[][] four = {new byte[1], new byte[1], new byte[1], new byte[1]};
        assertTrue(limits.checkCommand(KvCommand.multiPut(1, 1, four, four)).contains("4 keys; the limit is 3"));
        byte[][] three = {new byte[1], new byte[1], new byte[1]};
        assertNull(limits.checkCommand(KvCommand.multiPut(1, 1, three, three)));

        KvService service = new KvService(new HeapKvStore(), limits);
        KvResult tooLarge = service.execute(KvCommand.create(1, 1, new byte[9], new byte[1]));
        assertEquals(KvStatus.TOO_LARGE, tooLarge.status());

        ConflictDetection d = ConflictDetection.keysHashed();
        List<KvCommand> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(KvCommand.read(1, i + 1, Workload.key(i)));
        }
        KvDecodeException e = assertThrows(KvDecodeException.class,
                () -> KvCodec.decodeBatch(Workload.encode(1, 1, five, d), d, limits));
        assertEquals(KvStatus.TOO_LARGE, e.status());
        assertTrue(e.getMessage().contains("batch has 5 commands; the limit is 4"), e.getMessage());
        assertEquals(4, KvCodec.decodeBatch(Workload.encode(1, 1, five.subList(0, 4), d), d, limits).commands().size());

        List<KvCommand> big = List.of(KvCommand.create(1, 1, new byte[1], new byte[400]));
        e = assertThrows(KvDecodeException.class, () -> KvCodec.decodeBatch(Workload.encode(1, 1, big, d), d, limits));
        assertEquals(KvStatus.TOO_LARGE, e.status());
        assertTrue(e.getMessage().contains("exceeds the limit of 400 bytes"), e.getMessage());

        assertThrows(IllegalArgumentException.class, () -> new KvLimits(0, 1, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> KvLimits.defaults().withMaxBatchBytes(-1));
    }

    @Test
    void commandFactoriesRefuseBadStructure() {
        assertThrows(IllegalArgumentException.class, () -> KvCommand.read(1, 0, new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> KvCommand.read(1, 1, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> KvCommand.create(1, 1, new byte[1], null));
        assertThrows(IllegalArgumentException.class, () -> KvCommand.multiPut(1, 1, new byte[0][], new byte[0][]));
        assertThrows(IllegalArgumentException.class, () -> KvCommand.multiPut(1, 1, new byte[2][], new byte[1][]));
    }
}
