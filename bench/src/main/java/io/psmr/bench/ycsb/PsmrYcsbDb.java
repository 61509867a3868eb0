package io.psmr.bench.ycsb;

import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.KvClient;
import io.psmr.proxy.KvRequestException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.Vector;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The YCSB binding of psmr's replicated key-value store: a {@link DB} whose operations are psmr
 * commands sent through a shared {@link ClientProxy}.
 *
 * <p><b>Mapping.</b> A record {@code (table, key)} is the psmr key {@code table/key} (UTF-8), and its
 * fields are one value ({@link RecordCodec}): a read returns the whole record atomically.
 * {@code insert} is a one-pair MULTI_PUT, an upsert like most YCSB bindings' (a second load of the
 * same records overwrites them); {@code read} is READ, {@code delete} DELETE. {@code update} keeps the
 * fields it does not name: it READs the record, merges the new fields in, and UPDATEs it (NOT_FOUND if
 * the record is gone by then). Each command is linearizable, but the read-merge-write pair is not
 * atomic: two concurrent updates of different fields of one record may lose one of them (the record
 * is last-writer-wins as a whole). psmr has no compare-and-set to close that gap; YCSB's core
 * workloads measure latency and throughput, not field-level isolation. {@code scan} is refused with
 * {@link #SCAN_REFUSED}: the store is a hash map with no key order.
 *
 * <p>Records whose key or encoded value exceed the proxy's {@link KvLimits} are refused with
 * {@link #TOO_LARGE} before anything is sent. Replica answers other than OK and NOT_FOUND become a
 * {@link Status} named after the psmr status with its detail; a request with no answer (overload,
 * timeout, proxy closed) becomes {@link #NO_ANSWER}.
 *
 * <p><b>Two ways in.</b> {@code ./psmr ycsb} hands every instance its proxy ({@link #PsmrYcsbDb(ClientProxy)}).
 * YCSB's own {@code site.ycsb.Client}, run with {@code -db io.psmr.bench.ycsb.PsmrYcsbDb} and psmr's jar on
 * its class path, creates instances by class name ({@link #PsmrYcsbDb()}); they then share one proxy per
 * JVM to the process cluster named by the property {@value #CLUSTER_PROPERTY} (a directory made by
 * {@code ./psmr cluster start}), with batches of at most {@value #BATCH_PROPERTY} commands (default 200)
 * and {@value #WINDOW_PROPERTY} outstanding batches (default 1).
 *
 * <p><b>Threads.</b> YCSB makes one instance per client thread and calls {@link #init()}, the
 * operations and {@link #cleanup()} on that thread; each instance has its own {@link KvClient} (its
 * own session), all sharing one proxy, which outlives them. Operations block until the
 * replicas answer.
 */
public final class PsmrYcsbDb extends DB {

    /** What {@link #scan} answers. */
    public static final Status SCAN_REFUSED = new Status("NOT_IMPLEMENTED",
            "scan is not supported: psmr's key-value store is a hash map with no key order");

    /** Name of the status of a record too large for psmr's limits. */
    public static final String TOO_LARGE = "TOO_LARGE";

    /** Name of the status of a request the replicas did not answer. */
    public static final String NO_ANSWER = "NO_ANSWER";

    /** The YCSB property naming the cluster directory, for instances YCSB's own client creates. */
    public static final String CLUSTER_PROPERTY = "psmr.cluster";
    /** The YCSB property with the most commands per batch (1 to 4095), for those instances. */
    public static final String BATCH_PROPERTY = "psmr.batch";
    /** The YCSB property with the batches kept outstanding (1 to 1024), for those instances. */
    public static final String WINDOW_PROPERTY = "psmr.window";

    private ClientProxy proxy;
    private KvLimits limits;
    private Path leased; // the cluster whose shared proxy this instance holds, or null
    private KvClient.Blocking client;

    /** A binding sending through {@code proxy}; the caller closes the proxy after every binding's {@link #cleanup()}. */
    public PsmrYcsbDb(ClientProxy proxy) {
        this.proxy = Objects.requireNonNull(proxy, "proxy");
        this.limits = proxy.config().limits();
    }

    /**
     * A binding for YCSB's own client, which creates bindings by class name: {@link #init()} joins the
     * JVM's shared proxy to the cluster named by {@value #CLUSTER_PROPERTY}.
     */
    public PsmrYcsbDb() {
    }

    /** Creates this thread's client (its session opens with its first request). */
    @Override
    public void init() throws DBException {
        if (proxy == null) {
            Properties p = getProperties();
            String dir = p.getProperty(CLUSTER_PROPERTY);
            if (dir == null || dir.isBlank()) {
                throw new DBException(CLUSTER_PROPERTY + " is not set: run YCSB with -p " + CLUSTER_PROPERTY
                        + "=DIR, a directory made by ./psmr cluster start (or use ./psmr ycsb)");
            }
            int batch = intProperty(p, BATCH_PROPERTY, 200, 4095);
            int window = intProperty(p, WINDOW_PROPERTY, 1, 1024);
            try {
                leased = Path.of(dir);
                proxy = ClusterProxyLease.acquire(leased, batch, window);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                leased = null;
                throw new DBException("interrupted while opening the proxy to " + dir);
            } catch (RuntimeException e) {
                leased = null;
                throw new DBException(e.getMessage(), e);
            }
            limits = proxy.config().limits();
        }
        client = proxy.newClient().blocking();
    }

    private static int intProperty(Properties p, String name, int fallback, int max) throws DBException {
        String v = p.getProperty(name);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1 && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new DBException(name + " must be a whole number from 1 to " + max + ", got '" + v + "'");
    }

    /**
     * Drops the client; its session expires on the replicas. A proxy handed to the constructor stays
     * open; the JVM's shared proxy closes with its last binding.
     */
    @Override
    public void cleanup() throws DBException {
        client = null;
        if (leased != null) {
            Path dir = leased;
            leased = null;
            proxy = null;
            try {
                ClusterProxyLease.release(dir);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new DBException("interrupted while closing the proxy to " + dir);
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        byte[] k = key(table, key);
        if (k == null) {
            return keyTooLarge(table, key);
        }
        try {
            KvResult r = client.read(k);
            if (r.status() != KvStatus.OK) {
                return status(r);
            }
            for (Map.Entry<String, byte[]> e : RecordCodec.decode(r.value(), fields).entrySet()) {
                result.put(e.getKey(), new ByteArrayByteIterator(e.getValue()));
            }
            return Status.OK;
        } catch (IllegalArgumentException e) {
            return notARecord(table, key, e);
        } catch (InterruptedException e) {
            return interrupted();
        } catch (KvRequestException e) {
            return noAnswer(e);
        }
    }

    private static Status notARecord(String table, String key, IllegalArgumentException e) {
        return new Status("UNEXPECTED_STATE", "the value of " + table + "/" + key + " is not a YCSB record: " + e.getMessage());
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        return SCAN_REFUSED;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        byte[] k = key(table, key);
        if (k == null) {
            return keyTooLarge(table, key);
        }
        SortedMap<String, byte[]> changes = fields(values);
        if (RecordCodec.encodedSize(changes) > limits.maxValueBytes()) {
            return valueTooLarge(table, key, RecordCodec.encodedSize(changes));
        }
        try {
            KvResult r = client.read(k);
            if (r.status() != KvStatus.OK) {
                return status(r);
            }
            SortedMap<String, byte[]> record = RecordCodec.decode(r.value(), null);
            record.putAll(changes);
            long size = RecordCodec.encodedSize(record);
            if (size > limits.maxValueBytes()) {
                return valueTooLarge(table, key, size);
            }
            return status(client.update(k, RecordCodec.encode(record)));
        } catch (IllegalArgumentException e) {
            return notARecord(table, key, e);
        } catch (InterruptedException e) {
            return interrupted();
        } catch (KvRequestException e) {
            return noAnswer(e);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        byte[] k = key(table, key);
        if (k == null) {
            return keyTooLarge(table, key);
        }
        SortedMap<String, byte[]> record = fields(values);
        long size = RecordCodec.encodedSize(record);
        if (size > limits.maxValueBytes()) {
            return valueTooLarge(table, key, size);
        }
        try {
            return status(client.multiPut(new byte[][] {k}, new byte[][] {RecordCodec.encode(record)}));
        } catch (InterruptedException e) {
            return interrupted();
        } catch (KvRequestException e) {
            return noAnswer(e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        byte[] k = key(table, key);
        if (k == null) {
            return keyTooLarge(table, key);
        }
        try {
            return status(client.delete(k));
        } catch (InterruptedException e) {
            return interrupted();
        } catch (KvRequestException e) {
            return noAnswer(e);
        }
    }

    /** The psmr key of a record, or null if it exceeds the key limit. */
    private byte[] key(String table, String key) {
        byte[] k = (table + "/" + key).getBytes(StandardCharsets.UTF_8);
        return k.length <= limits.maxKeyBytes() ? k : null;
    }

    private static SortedMap<String, byte[]> fields(Map<String, ByteIterator> values) {
        TreeMap<String, byte[]> fields = new TreeMap<>();
        for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
            fields.put(e.getKey(), e.getValue().toArray());
        }
        return fields;
    }

    private static Status status(KvResult r) {
        return switch (r.status()) {
            case OK -> Status.OK;
            case NOT_FOUND -> Status.NOT_FOUND;
            default -> new Status(r.status().name(), r.detail() == null ? r.status().name() : r.detail());
        };
    }

    private Status keyTooLarge(String table, String key) {
        return new Status(TOO_LARGE, "the key " + table + "/" + key + " exceeds psmr's " + limits.maxKeyBytes() + "-byte key limit");
    }

    private Status valueTooLarge(String table, String key, long size) {
        return new Status(TOO_LARGE, "the record " + table + "/" + key + " encodes to " + size
                + " bytes, over psmr's " + limits.maxValueBytes() + "-byte value limit");
    }

    private static Status interrupted() {
        Thread.currentThread().interrupt();
        return new Status(NO_ANSWER, "interrupted while waiting for the replicas");
    }

    private static Status noAnswer(KvRequestException e) {
        return new Status(NO_ANSWER, e.getMessage());
    }
}
