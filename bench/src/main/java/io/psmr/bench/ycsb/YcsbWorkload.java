package io.psmr.bench.ycsb;

import java.util.Locale;
import java.util.Properties;

/**
 * YCSB's standard core workloads, with the property values of YCSB 0.17.0's {@code workloads/workloada}
 * and the others (E, whose operations are scans, is left out: psmr's store has no key order).
 */
public enum YcsbWorkload {
    /** Update heavy: 50% reads, 50% updates, zipfian. */
    A(0.5, 0.5, 0, 0, "zipfian"),
    /** Read mostly: 95% reads, 5% updates, zipfian. */
    B(0.95, 0.05, 0, 0, "zipfian"),
    /** Read only: 100% reads, zipfian. */
    C(1, 0, 0, 0, "zipfian"),
    /** Read latest: 95% reads, 5% inserts, reads favour the latest records. */
    D(0.95, 0, 0.05, 0, "latest"),
    /** Read-modify-write: 50% reads, 50% read-modify-writes, zipfian. */
    F(0.5, 0, 0, 0.5, "zipfian");

    private final double read;
    private final double update;
    private final double insert;
    private final double readModifyWrite;
    private final String distribution;

    YcsbWorkload(double read, double update, double insert, double readModifyWrite, String distribution) {
        this.read = read;
        this.update = update;
        this.insert = insert;
        this.readModifyWrite = readModifyWrite;
        this.distribution = distribution;
    }

    /** The workload named {@code a}, {@code b}, {@code c}, {@code d} or {@code f} (any case). */
    public static YcsbWorkload fromName(String name) {
        for (YcsbWorkload w : values()) {
            if (w.name().equalsIgnoreCase(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "': expected a, b, c, d or f"
                + ("e".equalsIgnoreCase(name) ? " (e scans, and psmr's store has no key order)" : ""));
    }

    /** The properties of YCSB's workload file, e.g. {@code workloads/workloada}. */
    public Properties properties() {
        Properties p = new Properties();
        p.setProperty("workload", "site.ycsb.workloads.CoreWorkload");
        p.setProperty("recordcount", "1000");
        p.setProperty("operationcount", "1000");
        p.setProperty("readallfields", "true");
        p.setProperty("readproportion", number(read));
        p.setProperty("updateproportion", number(update));
        p.setProperty("scanproportion", "0");
        p.setProperty("insertproportion", number(insert));
        if (readModifyWrite > 0) {
            p.setProperty("readmodifywriteproportion", number(readModifyWrite));
        }
        p.setProperty("requestdistribution", distribution);
        return p;
    }

    /** The CLI name, {@code a} to {@code f}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
