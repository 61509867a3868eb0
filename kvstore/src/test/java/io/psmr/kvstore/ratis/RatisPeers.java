package io.psmr.kvstore.ratis;

import java.util.ArrayList;
import java.util.List;

/** Closing a test's Ratis peers. */
final class RatisPeers {

    private RatisPeers() {
    }

    /**
     * Closes the leader (if any), then the others together ({@link RatisPeer#closeTogether} says why), as
     * {@link EmbeddedRatisCluster#close} does. Rethrows the first failure.
     */
    static void closeAll(List<RatisPeer> peers) {
        List<RatisPeer> rest = new ArrayList<>(peers);
        RatisPeer leader = null;
        for (RatisPeer p : peers) {
            try {
                if (p.isLeader()) {
                    leader = p;
                    break;
                }
            } catch (RuntimeException e) {
                // a peer that cannot say (it failed on its own) is closed with the others
            }
        }
        if (leader != null) {
            rest.remove(leader);
            leader.close();
        }
        RatisPeer.closeTogether(rest);
    }
}
