package io.psmr.kvstore.cluster;

import io.psmr.ordering.transport.ClusterMember;
import java.util.UUID;

/**
 * A cluster's TLS setting in {@code cluster.json} ({@code "tls": {"cluster": "..."}}): every link of the cluster runs
 * mutual TLS under the certificate authority in {@code DIR/tls} ({@link ClusterTlsFiles}), and a peer's certificate must
 * name a member of the cluster {@code cluster}. A cluster.json without it runs plain TCP ({@code --insecure}).
 *
 * @param cluster the cluster's id, which every member certificate names
 */
public record ClusterTls(String cluster) {

    /** Checks the id: a member name must be able to carry it. */
    public ClusterTls {
        try {
            ClusterMember.node(cluster, "check");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cluster.json: tls." + e.getMessage().replace("a cluster id is", "cluster is"), e);
        }
    }

    /** A new cluster id: {@code psmr-} and 12 random hexadecimal digits. */
    public static ClusterTls fresh() {
        return new ClusterTls("psmr-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    }
}
