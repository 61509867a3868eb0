package io.psmr.bench.scheduler.service;

import io.psmr.kvstore.ChronicleKvStore;
import io.psmr.kvstore.KvStore;
import io.psmr.kvstore.StoreConfig;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The store under {@code psmr bench --service kv} ({@code --store}). Several may be named in one
 * invocation: the first runs the whole matrix, each further one runs it again as an A/B twin, in the
 * same rounds, so that before-and-after figures come from one invocation.
 */
public enum BenchStore {
    /** Chronicle Map, as a replica runs it: through reused query contexts ({@link ChronicleKvStore}). */
    CHRONICLE("chronicle", "Chronicle Map store"),
    /**
     * The same map through Chronicle Map's plain {@code Map} methods, which allocate key and value wrappers and
     * copy the previous value on every call ({@link ChronicleKvStore#openMapApi}): the reference for the store call.
     */
    CHRONICLE_MAP_API("chronicle-map-api", "Chronicle Map store through its Map methods"),
    /** A {@code ConcurrentHashMap}: shows the store's share of a command. */
    HEAP("heap", "heap (ConcurrentHashMap) store");

    private final String cliName;
    private final String description;

    BenchStore(String cliName, String description) {
        this.cliName = cliName;
        this.description = description;
    }

    /** The name on the command line and in results. */
    public String cliName() {
        return cliName;
    }

    /** What the machine line says of it. */
    public String describe() {
        return description;
    }

    /** Opens an empty store of this kind sized for {@code entries} keys and values of the given sizes. */
    public KvStore open(long entries, int keyBytes, int valueBytes) {
        return switch (this) {
            case CHRONICLE -> StoreConfig.defaults().sized(entries, keyBytes, valueBytes).open();
            case CHRONICLE_MAP_API -> ChronicleKvStore.openMapApi(StoreConfig.defaults().sized(entries, keyBytes, valueBytes));
            case HEAP -> StoreConfig.heap().sized(entries, keyBytes, valueBytes).open();
        };
    }

    /** Every name, comma-separated. */
    public static String cliNames() {
        return Arrays.stream(values()).map(BenchStore::cliName).collect(Collectors.joining(", "));
    }

    /** The store named {@code name}, or null. */
    public static BenchStore parse(String name) {
        for (BenchStore s : values()) {
            if (s.cliName.equals(name)) {
                return s;
            }
        }
        return null;
    }
}
