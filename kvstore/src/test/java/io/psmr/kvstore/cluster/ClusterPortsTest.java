package io.psmr.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ports a cluster's nodes listen on stay out of the kernel's ephemeral range, so a restarted node can bind again. */
class ClusterPortsTest {

    private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

    @Test
    void theEphemeralRangeIsTheKernels() throws IOException {
        assumeTrue(Files.isReadable(RANGE), "no " + RANGE + " here");
        String line;
        try (BufferedReader in = Files.newBufferedReader(RANGE)) {
            line = in.readLine();
        }
        String[] parts = line.trim().split("\\s+");
        assertArrayEquals(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])}, ClusterLauncher.ephemeralRange(),
                "the kernel says " + line);
    }

    @Test
    void freePortsAreDistinctAndOutsideTheEphemeralRange() {
        int[] ephemeral = ClusterLauncher.ephemeralRange();
        List<Integer> ports = ClusterLauncher.freePorts(40);
        assertEquals(40, new HashSet<>(ports).size(), "distinct: " + ports);
        for (int port : ports) {
            assertTrue(port >= ClusterLauncher.FIXED_PORT_FLOOR && (port < ephemeral[0] || port > ephemeral[1]),
                    port + " lies in the ephemeral range " + ephemeral[0] + "-" + ephemeral[1]);
        }
    }
}
