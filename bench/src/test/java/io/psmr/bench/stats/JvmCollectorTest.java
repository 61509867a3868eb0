package io.psmr.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JvmCollectorTest {

    @Test
    void beanNamesMapToCollectorFamilies() {
        assertEquals("G1", JvmCollector.name(List.of("G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation")));
        assertEquals("Parallel", JvmCollector.name(List.of("PS Scavenge", "PS MarkSweep")));
        assertEquals("Serial", JvmCollector.name(List.of("Copy", "MarkSweepCompact")));
        assertEquals("ZGC", JvmCollector.name(List.of("ZGC Cycles", "ZGC Pauses")));
        assertEquals("Shenandoah", JvmCollector.name(List.of("Shenandoah Pauses", "Shenandoah Cycles")));
        assertEquals("ParNew+ConcurrentMarkSweep", JvmCollector.name(List.of("ParNew", "ConcurrentMarkSweep")));
        assertEquals("none", JvmCollector.name(List.of()));
    }

    @Test
    void describesThisJvm() {
        String name = JvmCollector.name();
        assertFalse(name.isBlank());
        assertFalse(name.contains(","), "usable as a CSV field: " + name);
        assertTrue(JvmCollector.describe().startsWith(name + " collector, heap max "), JvmCollector.describe());
    }
}
