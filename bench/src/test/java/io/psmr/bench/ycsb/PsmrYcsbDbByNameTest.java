package io.psmr.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cluster.ProcessCluster;
import io.psmr.kvstore.cluster.ClusterSpec;
import io.psmr.kvstore.cluster.ClusterLauncher;
import io.psmr.kvstore.cluster.ClusterSettings;
import io.psmr.scheduler.SchedulerMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.htrace.core.Tracer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.DBFactory;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;
import site.ycsb.measurements.Measurements;

/**
 * The binding as YCSB's own {@code Client} makes it: by class name through {@link DBFactory}, configured only by
 * properties, against a process cluster (one Ratis peer, to keep the test short).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PsmrYcsbDbByNameTest {

    private static final String CLASS = "io.psmr.bench.ycsb.PsmrYcsbDb";
    private static final Tracer TRACER = new Tracer.Builder("psmr-test").build();

    @TempDir
    Path dir;

    @RegisterExtension
    final ProcessCluster processes = new ProcessCluster();

    private static DB byName(Properties p) throws Exception {
        Measurements.setProperties(p); // as YCSB's Client does before it makes any binding
        DB db = DBFactory.newDB(CLASS, p, TRACER);
        db.init();
        return db;
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void ycsbsOwnFactoryMakesBindingsThatShareOneProxyToTheCluster() throws Exception {
        ClusterLauncher launcher = processes.in(dir);
        launcher.start(ClusterSpec.ratis(1, new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 256, 10)), Duration.ofSeconds(90));
        Properties p = props(PsmrYcsbDb.CLUSTER_PROPERTY, dir.toString(), PsmrYcsbDb.BATCH_PROPERTY, "50");
        DB writer = byName(p);
        DB reader = byName(p);
        Map<String, ByteIterator> record = new HashMap<>();
        record.put("field0", new StringByteIterator("zero"));
        record.put("field1", new StringByteIterator("one"));
        assertEquals(Status.OK, writer.insert("usertable", "user1", record));
        Map<String, ByteIterator> read = new HashMap<>();
        assertEquals(Status.OK, reader.read("usertable", "user1", Set.of("field1"), read));
        assertEquals(Map.of("field1", "one"), StringByteIterator.getStringMap(read));
        assertEquals(Status.NOT_FOUND, reader.read("usertable", "nobody", null, new HashMap<>()));
        writer.cleanup();
        // The proxy is still open for the other binding, and closes with it.
        assertEquals(Status.OK, reader.delete("usertable", "user1"));
        reader.cleanup();
        // A later binding opens a new proxy, and sees what the first ones did.
        DB again = byName(p);
        assertEquals(Status.NOT_FOUND, again.read("usertable", "user1", null, new HashMap<>()));
        again.cleanup();
    }

    @Test
    void aBindingWithoutAClusterOrWithBadSettingsSaysWhatIsWrong() {
        DBException none = assertThrows(DBException.class, () -> byName(new Properties()));
        assertEquals("psmr.cluster is not set: run YCSB with -p psmr.cluster=DIR, a directory made by ./psmr cluster start "
                + "(or use ./psmr ycsb)", none.getMessage());
        DBException batch = assertThrows(DBException.class,
                () -> byName(props(PsmrYcsbDb.CLUSTER_PROPERTY, dir.toString(), PsmrYcsbDb.BATCH_PROPERTY, "5000")));
        assertEquals("psmr.batch must be a whole number from 1 to 4095, got '5000'", batch.getMessage());
        DBException window = assertThrows(DBException.class,
                () -> byName(props(PsmrYcsbDb.CLUSTER_PROPERTY, dir.toString(), PsmrYcsbDb.WINDOW_PROPERTY, "x")));
        assertEquals("psmr.window must be a whole number from 1 to 1024, got 'x'", window.getMessage());
        Path nowhere = dir.resolve("nowhere");
        DBException missing = assertThrows(DBException.class, () -> byName(props(PsmrYcsbDb.CLUSTER_PROPERTY, nowhere.toString())));
        assertTrue(missing.getMessage().startsWith("cannot open a proxy to the cluster in " + nowhere + ": "), missing.getMessage());
    }
}
