package io.psmr.ordering.transport;

import java.net.URI;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Who a TLS certificate speaks for: one node or one client machine of one cluster. A certificate names its member in
 * a subject alternative name of type URI, {@code psmr://CLUSTER/node/NAME} or {@code psmr://CLUSTER/client/NAME};
 * {@link MemberTrustManager} admits a peer by it, and refuses a certificate of another cluster, of another node than
 * the one dialled, or of a client where only nodes may connect.
 *
 * @param cluster the cluster's id (as in {@code cluster.json}'s {@code tls.cluster})
 * @param role    node or client machine
 * @param name    the node's name, or the client machine's host
 */
public record ClusterMember(String cluster, Role role, String name) {

    /** What a member is. */
    public enum Role {
        /** A node of the cluster: an acceptor, a replica, a Raft peer. */
        NODE,
        /** A machine whose load processes are the cluster's clients. */
        CLIENT;

        /** The role's word in the URI. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The URI scheme of a member's name. */
    public static final String SCHEME = "psmr";
    private static final String NAME = "[A-Za-z0-9][A-Za-z0-9.:_-]{0,63}";

    /** Checks each part, so that every member has exactly one URI. */
    public ClusterMember {
        Objects.requireNonNull(role, "role");
        if (cluster == null || !cluster.matches(NAME)) {
            throw new IllegalArgumentException("a cluster id is 1 to 64 of A-Z, a-z, 0-9, '.', ':', '_' and '-', got '" + cluster + "'");
        }
        if (name == null || !name.matches(NAME)) {
            throw new IllegalArgumentException("a member name is 1 to 64 of A-Z, a-z, 0-9, '.', ':', '_' and '-', got '" + name + "'");
        }
    }

    /** A node of {@code cluster}. */
    public static ClusterMember node(String cluster, String name) {
        return new ClusterMember(cluster, Role.NODE, name);
    }

    /** A client machine of {@code cluster}. */
    public static ClusterMember client(String cluster, String host) {
        return new ClusterMember(cluster, Role.CLIENT, host);
    }

    /** {@code psmr://CLUSTER/ROLE/NAME}. */
    public URI uri() {
        return URI.create(SCHEME + "://" + cluster + "/" + role.word() + "/" + name);
    }

    /**
     * The member {@code uri} names.
     *
     * @throws IllegalArgumentException naming the problem if it is not a member URI
     */
    public static ClusterMember parse(String uri) {
        String prefix = SCHEME + "://";
        if (uri == null || !uri.startsWith(prefix)) {
            throw new IllegalArgumentException("'" + uri + "' is not a psmr member name (psmr://CLUSTER/node|client/NAME)");
        }
        String[] parts = uri.substring(prefix.length()).split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("'" + uri + "' is not a psmr member name (psmr://CLUSTER/node|client/NAME)");
        }
        Role role = switch (parts[1]) {
            case "node" -> Role.NODE;
            case "client" -> Role.CLIENT;
            default -> throw new IllegalArgumentException("'" + uri + "' names role '" + parts[1] + "'; a member is a node or a client");
        };
        return new ClusterMember(parts[0], role, parts[2]);
    }

    /**
     * The one member {@code certificate} names in its subject alternative names.
     *
     * @throws IllegalArgumentException if it names none, or more than one
     */
    public static ClusterMember of(X509Certificate certificate) {
        List<ClusterMember> found = new ArrayList<>();
        Collection<List<?>> names;
        try {
            names = certificate.getSubjectAlternativeNames();
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException("certificate '" + certificate.getSubjectX500Principal().getName()
                    + "' has unreadable subject alternative names: " + e.getMessage(), e);
        }
        if (names != null) {
            for (List<?> n : names) {
                // 6 = uniformResourceIdentifier (RFC 5280, 4.2.1.6)
                if (n.size() == 2 && Integer.valueOf(6).equals(n.get(0)) && n.get(1) instanceof String s
                        && s.startsWith(SCHEME + "://")) {
                    found.add(parse(s));
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalArgumentException("certificate '" + certificate.getSubjectX500Principal().getName() + "' names "
                    + (found.isEmpty() ? "no psmr member" : found.size() + " psmr members " + found)
                    + "; a psmr certificate names exactly one, as a URI psmr://CLUSTER/node|client/NAME");
        }
        return found.get(0);
    }

    @Override
    public String toString() {
        return role.word() + " " + name + " of cluster " + cluster;
    }
}
