package io.psmr.kvstore.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;

/**
 * A Ring Paxos proposer id that a client process may take, with the address it listens on. Ring Paxos
 * membership is fixed, so proposers are configured up front; a load process claims a free slot
 * on its own machine for its lifetime ({@code io.psmr.proxy.cluster.ClusterSession}). The acceptors
 * dial it there (decisions go back to the proposer), so its host is the client machine's address.
 *
 * @param paxosId the proposer's node id
 * @param port    its port on {@code host}
 * @param host    the machine a load process holding this slot runs on; null only when built from a
 *                version-1 cluster.json or without a host, in which case {@link ClusterDescriptor}
 *                fills in the file's one top-level host
 */
public record ProposerSlot(int paxosId, int port, String host) {

    /** A slot without a host of its own: the descriptor gives it the cluster's default host. */
    public ProposerSlot(int paxosId, int port) {
        this(paxosId, port, null);
    }

    /** Checks the host. */
    @JsonCreator
    public ProposerSlot {
        if (host != null && host.isBlank()) {
            throw new IllegalArgumentException("proposer slot " + paxosId + ": host is empty");
        }
    }

    /** This slot on {@code newHost}. */
    public ProposerSlot onHost(String newHost) {
        return new ProposerSlot(paxosId, port, newHost);
    }
}
