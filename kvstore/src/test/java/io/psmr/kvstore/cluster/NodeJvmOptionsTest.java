package io.psmr.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.psmr.kvstore.ChronicleJvmFlags;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JVM options {@link ClusterLauncher} gives a node, with and without {@code PSMR_NODE_JAVA_OPTS}. */
class NodeJvmOptionsTest {

    private static List<String> chronicleAnd(String... more) {
        List<String> expected = new ArrayList<>(ChronicleJvmFlags.CHRONICLE);
        expected.addAll(List.of(more));
        return expected;
    }

    @Test
    void withoutExtraOptionsANodeGetsItsHeapCapAndSerialGc() {
        assertEquals(chronicleAnd("-Xmx2g", "-XX:+UseSerialGC"), ClusterLauncher.jvmOptions(NodeRole.REPLICA, null));
        assertEquals(chronicleAnd("-Xmx3g", "-XX:+UseSerialGC"), ClusterLauncher.jvmOptions(NodeRole.ACCEPTOR, "  "));
    }

    @Test
    void extraOptionsComeLastSoThatALaterHeapCapWins() {
        assertEquals(chronicleAnd("-Xmx2g", "-XX:+UseSerialGC", "-Xmx512m", "-XX:TieredStopAtLevel=1"),
                ClusterLauncher.jvmOptions(NodeRole.REPLICA, " -Xmx512m \t-XX:TieredStopAtLevel=1 "));
    }

    @Test
    void aNamedCollectorReplacesSerialGc() {
        assertEquals(chronicleAnd("-Xmx2g", "-XX:+UseG1GC"), ClusterLauncher.jvmOptions(NodeRole.REPLICA, "-XX:+UseG1GC"));
    }
}
