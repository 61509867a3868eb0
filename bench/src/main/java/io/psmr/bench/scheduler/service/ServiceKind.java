package io.psmr.bench.scheduler.service;

import java.util.Locale;

/** The service {@code psmr bench} drives ({@code --service}). */
public enum ServiceKind {
    /** {@code KvService} on Chronicle Map (or the heap store): the real replica's service. */
    KV,
    /** One {@code ConcurrentHashMap} get or merge per command: {@link MapService}. */
    MAP;

    /** The name on the command line. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The kind named {@code name} on the command line, or null. */
    public static ServiceKind parse(String name) {
        for (ServiceKind k : values()) {
            if (k.cliName().equals(name)) {
                return k;
            }
        }
        return null;
    }
}
