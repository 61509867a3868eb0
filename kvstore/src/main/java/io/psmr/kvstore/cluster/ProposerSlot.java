package io.psmr.kvstore.cluster;


/**
 * A Ring Paxos proposer id that a client process may take, with the port it listens on. Ring Paxos
 * membership is fixed, so proposers are configured up front; a load process claims a free slot
 * for its lifetime ({@code io.psmr.proxy.cluster.ClusterSession}).
 *
 * @param paxosId the proposer's node id
 * @param port    its port on the cluster's host
 */
public record ProposerSlot(int paxosId, int port) {
}
