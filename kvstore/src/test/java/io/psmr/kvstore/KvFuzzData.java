package io.psmr.kvstore;

import io.psmr.scheduler.BitmapRepresentation;
import io.psmr.scheduler.ConflictDetection;
import java.util.List;

/** Detection settings and commands shared by the key-value codec's fuzz tests and their seeds. */
final class KvFuzzData {

    /** The replica settings a fuzz input chooses from with its first byte (small bitmaps keep runs fast). */
    static final List<ConflictDetection> DETECTIONS = List.of(ConflictDetection.keysPairwise(),
            ConflictDetection.keysHashed(), ConflictDetection.bitmap(1024),
            ConflictDetection.bitmap(1024).withRepresentation(BitmapRepresentation.DENSE), ConflictDetection.rwBitmap(1024),
            ConflictDetection.rwBitmap(1024).withRepresentation(BitmapRepresentation.DENSE));

    private KvFuzzData() {
    }

    static ConflictDetection detection(byte b) {
        return DETECTIONS.get((b & 0xff) % DETECTIONS.size());
    }

    /** One command of every kind. */
    static List<KvCommand> commands() {
        return List.of(KvCommand.openSession(5, 1), KvCommand.create(5, 2, bytes("k1"), bytes("v1")),
                KvCommand.read(5, 3, bytes("k1")), KvCommand.update(5, 4, bytes("k2"), bytes("value two")),
                KvCommand.delete(5, 5, bytes("k1")),
                KvCommand.multiPut(5, 6, new byte[][] {bytes("a"), bytes("b")}, new byte[][] {bytes("1"), bytes("")}));
    }

    static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
