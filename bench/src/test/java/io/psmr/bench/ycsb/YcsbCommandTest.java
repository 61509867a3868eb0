package io.psmr.bench.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.bench.cli.CliRun;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code psmr ycsb} end to end in this process, and its usage errors. */
class YcsbCommandTest {

    private static long count(String out, String op) {
        Matcher m = Pattern.compile("^\\[" + op + "\\], Operations, (\\d+)$", Pattern.MULTILINE).matcher(out);
        assertTrue(m.find(), "no [" + op + "], Operations line in:\n" + out);
        return Long.parseLong(m.group(1));
    }

    @Test
    void workloadARunsThroughYcsbsClientAndPrintsItsOutput() {
        CliRun r = CliRun.of("ycsb", "--workload", "a", "--embedded", "-p", "recordcount=200", "-p", "operationcount=500",
                "-p", "threadcount=2");
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().contains("[OVERALL], Throughput(ops/sec), "), r.out());
        assertEquals(500, count(r.out(), "READ") + count(r.out(), "UPDATE"), r.out());
        assertFalse(r.out().contains("-FAILED]"), r.out());
        assertFalse(r.out().contains("[INSERT]"), "the load phase's inserts are not in the run's output:\n" + r.out());
        assertTrue(r.err().contains("[load] [INSERT], Operations, 200"), r.err());
    }

    @Test
    void workloadDInsertsDuringTheRun() {
        CliRun r = CliRun.of("ycsb", "--workload", "d", "--embedded", "--mode", "sequential", "-p", "recordcount=100",
                "-p", "operationcount=400", "-p", "threadcount=2", "-p", "insertproportion=0.5", "-p", "readproportion=0.5");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(400, count(r.out(), "READ") + count(r.out(), "INSERT"), r.out());
        assertFalse(r.out().contains("-FAILED]"), r.out());
    }

    @Test
    void workloadCOverEmbeddedRatisTakesAPropertiesFileUnderP(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = dir.resolve("props");
        java.nio.file.Files.writeString(file, "recordcount=50\noperationcount=300\nthreadcount=3\n");
        CliRun r = CliRun.of("ycsb", "--workload", "c", "--embedded", "--ordering", "ratis", "-P", file.toString(),
                "-p", "operationcount=120");
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(120, count(r.out(), "READ"), "-p wins over -P:\n" + r.out());
        assertFalse(r.out().contains("[UPDATE]"), r.out());
        assertTrue(r.err().contains("[load] [INSERT], Operations, 50"), r.err());
    }

    private static void usage(String message, String... args) {
        CliRun r = CliRun.of(args);
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertTrue(r.err().contains("Usage: psmr ycsb"), r.err());
    }

    @Test
    void usageErrorsExit2NamingTheProblem() {
        usage("--workload: unknown workload 'e': expected a, b, c, d or f (e scans, and psmr's store has no key order)",
                "ycsb", "--workload", "e", "--embedded");
        usage("Missing required argument", "ycsb", "--workload", "a");
        usage("mutually exclusive", "ycsb", "--workload", "a", "--embedded", "--cluster", "/tmp/nowhere");
        usage("Value for option option '-p' (NAME=VALUE) should be in KEY=VALUE format but was recordcount",
                "ycsb", "--workload", "a", "--embedded", "-p", "recordcount");
        usage("-p threadcount must be a whole number, got 'two'", "ycsb", "--workload", "a", "--embedded", "-p", "threadcount=two");
        usage("Missing required option: '--workload=W'", "ycsb", "--embedded");
        usage("-p maxexecutiontime is not supported by psmr ycsb", "ycsb", "--workload", "a", "--embedded", "-p", "maxexecutiontime=5");
        usage("--mode cannot be combined with --cluster", "ycsb", "--workload", "a", "--cluster", "/tmp/nowhere", "--mode", "sequential");
    }
}
