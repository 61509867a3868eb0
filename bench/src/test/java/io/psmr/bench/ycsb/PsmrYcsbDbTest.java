package io.psmr.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.kvstore.EmbeddedCluster;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.ReplicaConfig;
import io.psmr.kvstore.StoreConfig;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.ProxyConfig;
import io.psmr.scheduler.ConflictDetection;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding against three embedded replicas over the local sequencer. */
class PsmrYcsbDbTest {

    private static final ConflictDetection DETECTION = ConflictDetection.bitmap(4096);
    private static final KvLimits LIMITS = KvLimits.defaults();

    private EmbeddedCluster cluster;
    private ClientProxy proxy;
    private PsmrYcsbDb db;

    @BeforeEach
    void start() throws Exception {
        ReplicaConfig rc = ReplicaConfig.builder().detection(DETECTION).limits(LIMITS).workers(2).maxPending(64)
                .store(StoreConfig.heap()).build();
        cluster = EmbeddedCluster.start(3, rc);
        proxy = ClientProxy.start(ProxyConfig.builder().detection(DETECTION).limits(LIMITS).build(),
                cluster.broadcast(), cluster.router());
        db = new PsmrYcsbDb(proxy);
        db.init();
    }

    @AfterEach
    void stop() throws Exception {
        db.cleanup();
        proxy.close();
        cluster.close();
    }

    private static Map<String, ByteIterator> record(String... nameValue) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], nameValue[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(m);
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> s = new TreeMap<>();
        m.forEach((k, v) -> s.put(k, v.toString()));
        return s;
    }

    private Map<String, String> read(String key, Set<String> fields) {
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", key, fields, out));
        return strings(out);
    }

    @Test
    void insertThenReadReturnsTheFieldsAndHonoursTheSubset() {
        assertEquals(Status.OK, db.insert("usertable", "user1", record("field0", "a", "field1", "bb", "field2", "")));
        assertEquals(Map.of("field0", "a", "field1", "bb", "field2", ""), read("user1", null));
        assertEquals(Map.of("field1", "bb"), read("user1", Set.of("field1", "absent")));
        assertEquals(Status.NOT_FOUND, db.read("othertable", "user1", null, new HashMap<>()), "tables are separate");
    }

    @Test
    void insertOverwritesAsAnUpsert() {
        assertEquals(Status.OK, db.insert("usertable", "user1", record("field0", "a", "field1", "b")));
        assertEquals(Status.OK, db.insert("usertable", "user1", record("field0", "c")));
        assertEquals(Map.of("field0", "c"), read("user1", null));
    }

    @Test
    void updateChangesTheNamedFieldsAndKeepsTheOthers() {
        assertEquals(Status.OK, db.insert("usertable", "user2", record("field0", "a", "field1", "b", "field2", "c")));
        assertEquals(Status.OK, db.update("usertable", "user2", record("field1", "B")));
        assertEquals(Map.of("field0", "a", "field1", "B", "field2", "c"), read("user2", null));
        assertEquals(Status.NOT_FOUND, db.update("usertable", "nobody", record("field1", "B")), "update does not create");
    }

    @Test
    void deleteThenReadIsNotFound() {
        assertEquals(Status.OK, db.insert("usertable", "user3", record("field0", "a")));
        assertEquals(Status.OK, db.delete("usertable", "user3"));
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user3", null, new HashMap<>()));
        assertEquals(Status.NOT_FOUND, db.delete("usertable", "user3"));
    }

    @Test
    void scanIsRefusedNamingWhy() {
        Vector<HashMap<String, ByteIterator>> out = new Vector<>();
        Status s = db.scan("usertable", "user1", 10, null, out);
        assertSame(PsmrYcsbDb.SCAN_REFUSED, s);
        assertEquals("NOT_IMPLEMENTED", s.getName());
        assertEquals("scan is not supported: psmr's key-value store is a hash map with no key order", s.getDescription());
        assertTrue(out.isEmpty());
    }

    @Test
    void anOversizedRecordGetsAnErrorStatusAndIsNotStored() {
        String big = "x".repeat(LIMITS.maxValueBytes());
        Status s = db.insert("usertable", "user4", record("field0", big));
        assertEquals(PsmrYcsbDb.TOO_LARGE, s.getName());
        assertEquals("the record usertable/user4 encodes to " + (LIMITS.maxValueBytes() + 18)
                + " bytes, over psmr's " + LIMITS.maxValueBytes() + "-byte value limit", s.getDescription());
        assertEquals(Status.NOT_FOUND, db.read("usertable", "user4", null, new HashMap<>()));

        // An update that would grow a stored record past the limit leaves it as it was.
        assertEquals(Status.OK, db.insert("usertable", "user5", record("field0", "a")));
        Status grown = db.update("usertable", "user5", record("field1", "y".repeat(LIMITS.maxValueBytes() - 20)));
        assertEquals(PsmrYcsbDb.TOO_LARGE, grown.getName(), grown.getDescription());
        assertEquals(Map.of("field0", "a"), read("user5", null));

        Status longKey = db.insert("usertable", "k".repeat(LIMITS.maxKeyBytes()), record("field0", "a"));
        assertEquals(PsmrYcsbDb.TOO_LARGE, longKey.getName());
        assertTrue(longKey.getDescription().endsWith("exceeds psmr's " + LIMITS.maxKeyBytes() + "-byte key limit"),
                longKey.getDescription());
    }

    @Test
    void everyReplicaHoldsTheSameEncodedRecord() throws Exception {
        assertEquals(Status.OK, db.insert("usertable", "user6", record("b", "2", "a", "1")));
        assertTrue(cluster.awaitQuiescent(30, TimeUnit.SECONDS));
        byte[] expected = RecordCodec.encode(new TreeMap<>(Map.of("a", b("1"), "b", b("2"))));
        for (var r : cluster.replicas()) {
            assertArrayEquals(expected, r.store().get(b("usertable/user6")), "replica " + r.id());
        }
    }

    @Test
    void theCodecRefusesAValueThatIsNotARecord() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RecordCodec.decode(new byte[] {0, 0, 0, 1, 0, 0, 0, 9, 'a'}, null));
        assertEquals("a field length of 9 with 1 bytes left", e.getMessage());
        IllegalArgumentException cut = assertThrows(IllegalArgumentException.class, () -> RecordCodec.decode(b("abc"), null));
        assertEquals("the value ends inside a field", cut.getMessage());
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
