package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link ClusterMember#parse}, which reads the member URI out of a peer's certificate (docs/fuzzing.md). A
 * member has exactly one URI, so the property is that a parsed member's {@link ClusterMember#uri()} is the input
 * itself; the refusal is an {@link IllegalArgumentException} naming the problem.
 */
class ClusterMemberFuzzTest {

    @FuzzTest(maxDuration = "60s")
    @Tag("fuzz")
    void parse(byte[] data) {
        String uri = new String(data, StandardCharsets.UTF_8);
        ClusterMember member;
        try {
            member = ClusterMember.parse(uri);
        } catch (IllegalArgumentException refused) {
            assertNotNull(refused.getMessage());
            return;
        }
        assertEquals(uri, member.uri().toString());
    }

    @Test
    void validMembersHoldTheProperty() {
        parse(ClusterMember.node("c1", "n1").uri().toString().getBytes(StandardCharsets.UTF_8));
        parse(ClusterMember.client("prod-7", "host.example:9").uri().toString().getBytes(StandardCharsets.UTF_8));
        parse("psmr://c1/admin/n1".getBytes(StandardCharsets.UTF_8));
    }
}
