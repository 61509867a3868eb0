package io.psmr.bench.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import io.psmr.scheduler.GraphKind;
import io.psmr.scheduler.SchedulerBuilder;
import io.psmr.scheduler.SchedulerMode;
import io.psmr.scheduler.WakePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The design variants of {@code --modes} ({@code MODE[/GRAPH][+spinN][+wakeeager|+wakelazy]}) that A/B the scheduler's concurrency. */
class BenchModeTest {

    @Test
    void variantsNameAGraphAndASpinCountAndRoundTrip() {
        BenchMode locked = BenchMode.fromCliName("bitmap-indexed/indexed");
        assertEquals(new BenchMode.Psmr(SchedulerMode.BITMAP_INDEXED, GraphKind.INDEXED, 0), locked);
        assertEquals("bitmap-indexed/indexed", locked.cliName());
        BenchMode spin = BenchMode.fromCliName("bitmap-indexed+spin2000");
        assertEquals(new BenchMode.Psmr(SchedulerMode.BITMAP_INDEXED, GraphKind.SPLIT_INDEXED, 2000), spin);
        assertEquals("bitmap-indexed+spin2000", spin.cliName());
        BenchMode both = BenchMode.fromCliName("rw-bitmap/monitor+spin10");
        assertEquals(new BenchMode.Psmr(SchedulerMode.RW_BITMAP, GraphKind.MONITOR, 10), both);
        assertEquals("rw-bitmap/monitor+spin10", both.cliName());
        BenchMode plain = BenchMode.fromCliName("bitmap-indexed");
        assertFalse(((BenchMode.Psmr) plain).isVariant());
        assertTrue(((BenchMode.Psmr) locked).isVariant());
        assertEquals("bitmap-indexed", plain.cliName());
        // The mode's own graph named explicitly is the mode itself.
        assertEquals(plain, BenchMode.fromCliName("bitmap-indexed/split-indexed"));
    }

    @Test
    void variantsNameAWakePolicyThatStaysInTheName() {
        BenchMode lazy = BenchMode.fromCliName("bitmap-indexed+wakelazy");
        assertEquals(new BenchMode.Psmr(SchedulerMode.BITMAP_INDEXED, GraphKind.SPLIT_INDEXED, 0,
                WakePolicy.WHEN_OUTNUMBERED), lazy);
        assertEquals("bitmap-indexed+wakelazy", lazy.cliName());
        assertEquals(WakePolicy.WHEN_OUTNUMBERED, new Cell(lazy, 200, 2, 0).wakePolicy());
        BenchMode eager = BenchMode.fromCliName("bitmap-indexed+wakeeager");
        assertEquals("bitmap-indexed+wakeeager", eager.cliName());
        assertEquals(WakePolicy.EAGER, new Cell(eager, 200, 2, 0).wakePolicy());
        // Named explicitly, a policy is a variant even when it is the default, so both sides of an A/B are cells.
        assertTrue(((BenchMode.Psmr) eager).isVariant());
        assertNotEquals(BenchMode.fromCliName("bitmap-indexed"), eager);
        assertEquals(SchedulerBuilder.DEFAULT_WAKE_POLICY,
                new Cell(BenchMode.fromCliName("bitmap-indexed"), 200, 2, 0).wakePolicy());
        // With a graph and a spin count, in either order.
        BenchMode all = BenchMode.fromCliName("rw-bitmap/indexed+wakelazy+spin10");
        assertEquals(new BenchMode.Psmr(SchedulerMode.RW_BITMAP, GraphKind.INDEXED, 10, WakePolicy.WHEN_OUTNUMBERED), all);
        assertEquals("rw-bitmap/indexed+spin10+wakelazy", all.cliName());
        assertEquals(all, BenchMode.fromCliName(all.cliName()));
    }

    @Test
    void badVariantsAreRefusedNamingTheProblem() {
        assertEquals("mode variant 'bitmap-indexed+wakeup': '+wakeup' is not +wakeeager or +wakelazy",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("bitmap-indexed+wakeup")).getMessage());
        assertEquals("mode variant 'bitmap-indexed+fast': '+fast' is not +spinN with N from 0 to 9999999, +wakeeager or +wakelazy",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("bitmap-indexed+fast")).getMessage());
        assertEquals("mode variant 'sequential+wakelazy': sequential is a reference and has no variants",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("sequential+wakelazy")).getMessage());
        assertEquals("mode variant 'bitmap-indexed/heap': unknown graph 'heap'; graphs: monitor, indexed, split-indexed",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("bitmap-indexed/heap")).getMessage());
        assertEquals("mode variant 'bitmap-indexed+spinx': '+spinx' is not +spinN with N from 0 to 9999999",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("bitmap-indexed+spinx")).getMessage());
        assertEquals("mode variant 'sequential/indexed': sequential is a reference and has no variants",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("sequential/indexed")).getMessage());
        assertEquals("mode variant 'cbase+spin5': cbase is a reference and has no variants",
                assertThrows(IllegalArgumentException.class, () -> BenchMode.fromCliName("cbase+spin5")).getMessage());
        CliRun r = CliRun.of("bench", "--modes", "bitmap-indexed/heap");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("unknown graph 'heap'"), r.err());
        assertTrue(r.err().contains("Usage:"), r.err());
    }

    @Test
    void aVariantRunsBesideItsModeAndIsComparedWithIt(@TempDir Path tmp) throws IOException {
        CliRun r = CliRun.of("bench", "--service", "map", "--modes", "bitmap-indexed,bitmap-indexed/indexed+spin100",
                "--workers", "2", "--batch", "50", "--conflict", "0", "--duration", "40ms", "--warmup", "20ms",
                "--runs", "1", "--bitmap-bits", "102400", "--out", tmp.toString());
        assertEquals(0, r.exitCode(), "stderr:\n" + r.err());
        Path dir;
        try (Stream<Path> s = Files.list(tmp)) {
            dir = s.findFirst().orElseThrow();
        }
        List<String> rows = new ArrayList<>();
        for (String line : Files.readAllLines(dir.resolve("results.csv"))) {
            String[] f = line.split(",", -1);
            if (f[0].startsWith("bitmap-indexed")) {
                rows.add(f[0] + "," + f[1] + "," + f[2] + "," + f[3]);
            }
        }
        assertEquals(List.of("bitmap-indexed,split-indexed,50,2", "bitmap-indexed/indexed+spin100,indexed,50,2"), rows);
        assertTrue(r.out().contains("A/B bitmap-indexed/indexed+spin100 vs bitmap-indexed, batch 50, 2 worker(s), "
                + "0% conflicts: "), r.out());
    }
}
