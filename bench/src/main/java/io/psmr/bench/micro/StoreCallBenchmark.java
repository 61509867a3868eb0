package io.psmr.bench.micro;

import io.psmr.kvstore.ChronicleKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StoreConfig;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One store call as {@link io.psmr.kvstore.KvService} makes it, on a populated in-memory Chronicle
 * Map, single thread: a READ ({@code get}, which returns a fresh array) or an UPDATE
 * ({@code replaceReturningPreviousSize}) of a 16-byte key with a 16-byte value, cycling through
 * {@code keys} present keys. {@code path} is {@code chronicle} ({@link StoreConfig#open()}, the
 * replica's store) or {@code chronicle-map-api} ({@link ChronicleKvStore#openMapApi}, the plain
 * {@code Map} methods, the "before" reference). Run with {@code --gc} for bytes allocated per call.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class StoreCallBenchmark {

    @Param({"chronicle", "chronicle-map-api"})
    public String path;

    @Param({"READ", "UPDATE"})
    public String op;

    @Param({"10000"})
    public int keys;

    private KvStore store;
    private byte[][] keyBytes;
    private byte[][] values;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        StoreConfig config = StoreConfig.defaults().sized(keys * 2L, 16, 16);
        store = switch (path) {
            case "chronicle" -> config.open();
            case "chronicle-map-api" -> ChronicleKvStore.openMapApi(config);
            default -> throw new IllegalArgumentException("path must be chronicle or chronicle-map-api, got " + path);
        };
        keyBytes = new byte[keys][];
        values = new byte[2][16];
        values[1][0] = 1;
        for (int i = 0; i < keys; i++) {
            byte[] k = new byte[16];
            for (int b = 0; b < 4; b++) {
                k[b] = (byte) (i >>> (8 * b));
            }
            k[15] = (byte) 0x5a;
            keyBytes[i] = k;
            store.put(k, values[0]);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        store.close();
    }

    @Benchmark
    public Object call() {
        int i = next;
        next = i + 1 == keys ? 0 : i + 1;
        if (op.equals("READ")) {
            return store.get(keyBytes[i]);
        }
        return store.replaceReturningPreviousSize(keyBytes[i], values[i & 1]);
    }
}
