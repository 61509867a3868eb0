package io.psmr.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.psmr.ordering.transport.ClusterMember;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.scheduler.SchedulerMode;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TLS files of a cluster: what is written, who loads what, and what is refused. */
class ClusterTlsFilesTest {

    @TempDir
    Path dir;

    private static ClusterDescriptor cluster(String id) {
        int[] next = {7000};
        return ClusterSpec.ringPaxos(3, 2, new ClusterSettings(SchedulerMode.BITMAP_INDEXED, 2, 1000, 64, 10))
                .layout(() -> next[0]++).withTls(new ClusterTls(id));
    }

    @Test
    void everyMemberGetsOwnerOnlyFilesAndLoadsItsOwn() throws Exception {
        ClusterDescriptor c = cluster("psmr-test1");
        List<String> written = ClusterTlsFiles.write(dir, c, List.of());
        assertTrue(written.containsAll(List.of("ca.pem", "ca.key", "nodes/acceptor-0.pem", "nodes/replica-2.key",
                "clients/127.0.0.1.pem")), written.toString());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("tls/nodes/replica-2.key"))));
        LinkSecurity node = ClusterTlsFiles.forNode(dir, c, c.node("replica-2").orElseThrow());
        assertEquals(ClusterMember.node("psmr-test1", "replica-2"), node.self().orElseThrow());
        LinkSecurity client = ClusterTlsFiles.forClient(dir, c, "127.0.0.1");
        assertEquals(ClusterMember.client("psmr-test1", "127.0.0.1"), client.self().orElseThrow());
        assertTrue(ClusterTlsFiles.write(dir, c, List.of()).isEmpty(), "a second write keeps every file");
        assertEquals(LinkSecurity.plain(), ClusterTlsFiles.forNode(dir, c.withTls(null), c.nodes().get(0)));
    }

    @Test
    void aFileOfAnotherMemberOrClusterIsRefused() throws Exception {
        ClusterDescriptor c = cluster("psmr-test2");
        ClusterTlsFiles.write(dir, c, List.of());
        Path nodes = dir.resolve("tls/nodes");
        Files.copy(nodes.resolve("replica-1.pem"), nodes.resolve("replica-2.pem"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(nodes.resolve("replica-1.key"), nodes.resolve("replica-2.key"), StandardCopyOption.REPLACE_EXISTING);
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class,
                () -> ClusterTlsFiles.forNode(dir, c, c.node("replica-2").orElseThrow()));
        assertTrue(other.getMessage().contains("names node replica-1 of cluster psmr-test2, not node replica-2"), other.getMessage());

        // The same authority for a new cluster id: the old members' files are refused, naming the fix.
        ClusterDescriptor next = cluster("psmr-test3");
        UncheckedIOException stale = assertThrows(UncheckedIOException.class, () -> ClusterTlsFiles.write(dir, next, List.of()));
        assertTrue(stale.getMessage().contains("names node acceptor-0 of cluster psmr-test2, not node acceptor-0 of cluster"
                + " psmr-test3") && stale.getMessage().contains("--force"), stale.getMessage());
        assertEquals(List.of("tls/nodes/", "tls/clients/"), ClusterTlsFiles.deleteMembers(dir));
        List<String> reissued = ClusterTlsFiles.write(dir, next, List.of());
        assertTrue(!reissued.contains("ca.pem") && reissued.contains("nodes/replica-2.pem"), "the authority is kept: " + reissued);
        assertEquals(ClusterMember.node("psmr-test3", "replica-2"),
                ClusterTlsFiles.forNode(dir, next, next.node("replica-2").orElseThrow()).self().orElseThrow());
    }

    @Test
    void aKeyReadableByOthersIsRefused() throws Exception {
        ClusterDescriptor c = cluster("psmr-test4");
        ClusterTlsFiles.write(dir, c, List.of());
        Files.setPosixFilePermissions(dir.resolve("tls/nodes/acceptor-1.key"), PosixFilePermissions.fromString("rw-r-----"));
        IllegalArgumentException open = assertThrows(IllegalArgumentException.class,
                () -> ClusterTlsFiles.forNode(dir, c, c.node("acceptor-1").orElseThrow()));
        assertTrue(open.getMessage().contains("acceptor-1.key is rw-r-----") && open.getMessage().contains("chmod 600"),
                open.getMessage());
    }
}
