package io.psmr.ordering.transport;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Admits a TLS peer by the cluster member its certificate names ({@link ClusterMember}), after the JDK's PKIX checks
 * against the cluster's one authority: on an accepted connection, a member of this cluster in one of the admitted
 * roles; on a dialled one, exactly the member that listens at the address dialled (a node, or a load process's
 * proposer slot, which its client machine's certificate covers). Host names are not checked: the
 * member name is, which is stronger on loopback, where every node shares one address.
 *
 * <p>Stateless after construction; any thread (the TLS engines call it on their event loops).
 */
final class MemberTrustManager extends X509ExtendedTrustManager {

    private final X509TrustManager pkix;
    private final String cluster;
    private final Set<ClusterMember.Role> admitted;
    private final BiFunction<String, Integer, ClusterMember> memberAt;

    /**
     * @param authority the cluster's certificate authority, the only trust anchor
     * @param cluster   the cluster's id; a peer of another is refused
     * @param admitted  the roles an accepted peer may have
     * @param memberAt  the member that listens at a dialled host and port, or null for an address of no member
     */
    MemberTrustManager(X509Certificate authority, String cluster, Set<ClusterMember.Role> admitted,
                       BiFunction<String, Integer, ClusterMember> memberAt) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.admitted = Set.copyOf(admitted);
        this.memberAt = Objects.requireNonNull(memberAt, "memberAt");
        try {
            KeyStore anchors = KeyStore.getInstance("PKCS12");
            anchors.load(null, null);
            anchors.setCertificateEntry("authority", authority);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(anchors);
            X509TrustManager found = null;
            for (TrustManager tm : tmf.getTrustManagers()) {
                if (tm instanceof X509TrustManager x) {
                    found = x;
                }
            }
            this.pkix = Objects.requireNonNull(found, "the JDK offers no X.509 trust manager");
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot trust the cluster's authority: " + e, e);
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        pkix.checkClientTrusted(chain, authType);
        ClusterMember peer = memberOf(chain);
        if (!admitted.contains(peer.role())) {
            throw new CertificateException("the peer's certificate names " + peer + "; this port admits only "
                    + (admitted.contains(ClusterMember.Role.CLIENT) ? "nodes and clients" : "nodes"));
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain, authType, engine.getPeerHost(), engine.getPeerPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        java.net.InetSocketAddress at = (java.net.InetSocketAddress) socket.getRemoteSocketAddress();
        check(chain, authType, at == null ? null : at.getHostString(), at == null ? -1 : at.getPort());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a dialled peer is checked against the member at the address dialled, which is unknown here");
    }

    private void check(X509Certificate[] chain, String authType, String host, int port) throws CertificateException {
        pkix.checkServerTrusted(chain, authType);
        ClusterMember peer = memberOf(chain);
        ClusterMember expected = host == null ? null : memberAt.apply(host, port);
        if (expected == null) {
            throw new CertificateException("dialled " + host + ":" + port + ", where no member of cluster " + cluster + " listens");
        }
        if (!peer.equals(expected)) {
            throw new CertificateException("dialled " + expected.role().word() + " " + expected.name() + " at " + host + ":"
                    + port + ", and the certificate there names " + peer);
        }
    }

    private ClusterMember memberOf(X509Certificate[] chain) throws CertificateException {
        ClusterMember peer;
        try {
            peer = ClusterMember.of(chain[0]);
        } catch (IllegalArgumentException e) {
            throw new CertificateException(e.getMessage(), e);
        }
        if (!peer.cluster().equals(cluster)) {
            throw new CertificateException("the peer's certificate names " + peer + ", not a member of cluster " + cluster);
        }
        return peer;
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return pkix.getAcceptedIssuers();
    }
}
