package io.psmr.bench.stats;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The garbage collector and heap limit of this JVM, printed beside every benchmark figure: the
 * collector changes allocation-heavy results (Chronicle Map's off-heap store less than the heap map).
 * Static and stateless; any thread.
 */
public final class JvmCollector {

    private JvmCollector() {
    }

    /** The collector(s) in use, e.g. {@code G1}; several are joined with {@code +}. */
    public static String name() {
        return name(ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList());
    }

    /**
     * The collector family of the MXBean names {@code beans}: {@code G1}, {@code Parallel},
     * {@code Serial}, {@code ZGC} or {@code Shenandoah}, else the raw names; {@code none} if there are none.
     */
    public static String name(List<String> beans) {
        Set<String> families = new LinkedHashSet<>();
        for (String b : beans) {
            families.add(family(b));
        }
        return families.isEmpty() ? "none" : String.join("+", families);
    }

    private static String family(String bean) {
        if (bean.startsWith("G1 ")) {
            return "G1";
        }
        if (bean.startsWith("PS ")) {
            return "Parallel";
        }
        if (bean.equals("Copy") || bean.equals("MarkSweepCompact")) {
            return "Serial";
        }
        if (bean.startsWith("ZGC")) {
            return "ZGC";
        }
        if (bean.startsWith("Shenandoah")) {
            return "Shenandoah";
        }
        return bean;
    }

    /** The heap limit ({@code -Xmx} or the JVM's default), e.g. {@code 5.9 GiB}. */
    public static String heapMax() {
        long max = Runtime.getRuntime().maxMemory();
        return max == Long.MAX_VALUE ? "unlimited" : String.format(Locale.ROOT, "%.1f GiB", max / (double) (1L << 30));
    }

    /** Collector and heap, e.g. {@code G1 collector, heap max 5.9 GiB}. */
    public static String describe() {
        return name() + " collector, heap max " + heapMax();
    }
}
