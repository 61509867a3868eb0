package io.psmr.bench.clusterbench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the JIT compilers' CPU from {@code /proc/PID/task/TID/stat} lines. */
class ClusterCpuTest {

    @TempDir
    Path dir;

    private long ticksOf(String line) throws Exception {
        Path stat = dir.resolve("stat");
        Files.writeString(stat, line);
        return ClusterCpu.compilerTicks(stat);
    }

    @Test
    void aCompilerThreadCountsItsUserAndSystemTicks() throws Exception {
        assertEquals(157, ticksOf("4242 (C2 CompilerThre) S 1 4242 4242 0 -1 4194368 100 0 0 0 150 7 0 0 20 0 1 0 99 0 0\n"));
        assertEquals(12, ticksOf("4243 (C1 CompilerThre) S 1 4242 4242 0 -1 4194368 100 0 0 0 10 2 0 0 20 0 1 0 99 0 0\n"));
    }

    @Test
    void otherThreadsAndUnreadableLinesCountNothing() throws Exception {
        assertEquals(0, ticksOf("4244 (psmr-pbft-0-0) S 1 4242 4242 0 -1 4194368 100 0 0 0 150 7 0 0 20 0 1 0 99 0 0\n"));
        assertEquals(0, ticksOf("4245 (a (C2 CompilerThre) S 1 4242 4242 0 -1 4194368 100 0 0 0 150 7 0 0 20 0 1 0 99\n"));
        assertEquals(0, ticksOf("garbage"));
        assertEquals(0, ticksOf("4246 (C2 CompilerThre) S 1 4242"), "a line cut short");
        assertEquals(0, ticksOf("4247 (C2 CompilerThre)"));
        assertEquals(0, ClusterCpu.compilerTicks(dir.resolve("gone")));
    }
}
