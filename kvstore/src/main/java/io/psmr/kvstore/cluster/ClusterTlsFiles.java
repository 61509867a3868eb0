package io.psmr.kvstore.cluster;

import io.psmr.ordering.transport.ClusterAuthority;
import io.psmr.ordering.transport.ClusterMember;
import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.TlsCredentials;
import io.psmr.ordering.transport.TlsFileException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TLS files of a cluster, in {@code DIR/tls}: the authority ({@code ca.pem}, and {@code ca.key} where it was
 * generated here), one certificate and key per node ({@code nodes/NAME.pem}, {@code nodes/NAME.key}) and per client
 * machine ({@code clients/HOST.pem}, {@code clients/HOST.key}). Every file is owner-only. {@link #write} creates what is
 * missing, with the operator's authority if {@code ca.pem} and {@code ca.key} are there already; a node or a load
 * process loads its own ({@link #forNode}, {@link #forClient}).
 *
 * <p>Stateless; any thread.
 */
public final class ClusterTlsFiles {

    /** The directory inside the cluster directory. */
    public static final String DIRECTORY = "tls";

    private ClusterTlsFiles() {
    }

    /** {@code DIR/tls}. */
    public static Path tlsDir(Path clusterDir) {
        return clusterDir.resolve(DIRECTORY);
    }

    /**
     * Writes what is missing of {@code cluster}'s TLS files: the authority (unless {@code ca.pem} is there), then a
     * certificate for every node and every client machine that has none. Existing files are kept: an operator's
     * authority (its {@code ca.pem} and {@code ca.key}) issues the missing ones, and an operator's member files are used
     * as they are.
     *
     * @param clientHosts the client machines (their load processes' hosts)
     * @return the files written, relative to {@code DIR/tls}
     * @throws UncheckedIOException if a file cannot be written or an existing authority cannot be read
     */
    public static List<String> write(Path clusterDir, ClusterDescriptor cluster, List<String> clientHosts) {
        ClusterTls tls = cluster.tls();
        if (tls == null) {
            throw new IllegalArgumentException("cluster.json has no tls setting: the cluster runs plain TCP");
        }
        Path d = tlsDir(clusterDir);
        Path caPem = d.resolve("ca.pem");
        Path caKey = d.resolve("ca.key");
        SecureRandom random = new SecureRandom();
        List<String> written = new ArrayList<>();
        try {
            ClusterAuthority authority = null;
            Map<Path, ClusterMember> members = new LinkedHashMap<>();
            for (ClusterNode n : cluster.nodes()) {
                members.put(d.resolve("nodes").resolve(n.name() + ".pem"), ClusterMember.node(tls.cluster(), n.name()));
            }
            for (String host : clientHosts(cluster, clientHosts)) {
                members.put(d.resolve("clients").resolve(host + ".pem"), ClusterMember.client(tls.cluster(), host));
            }
            for (Map.Entry<Path, ClusterMember> m : members.entrySet()) {
                if (Files.exists(m.getKey())) {
                    requireMember(d.resolve("ca.pem"), m.getKey(), m.getValue());
                    continue;
                }
                if (authority == null) {
                    if (Files.exists(caPem)) {
                        if (!Files.exists(caKey)) {
                            throw new TlsFileException(caKey, m.getKey() + " is missing, and " + caKey + " too, so it"
                                    + " cannot be issued: put the operator's member files in " + d + ", or its ca.key");
                        }
                        authority = ClusterAuthority.load(tls.cluster(), caPem, caKey, random);
                    } else {
                        authority = ClusterAuthority.create(tls.cluster(), ClusterAuthority.DEFAULT_VALIDITY, random);
                        authority.write(caPem, caKey);
                        written.add("ca.pem");
                        written.add("ca.key");
                    }
                }
                ClusterMember member = m.getValue();
                List<String> hosts = member.role() == ClusterMember.Role.NODE
                        ? List.of(cluster.node(member.name()).orElseThrow().host()) : List.of(member.name());
                Path key = keyOf(m.getKey());
                authority.issue(member, hosts).write(m.getKey(), key);
                written.add(d.relativize(m.getKey()).toString());
                written.add(d.relativize(key).toString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
        return written;
    }

    /**
     * Deletes the member certificates and keys ({@code tls/nodes/}, {@code tls/clients/}) of the cluster in
     * {@code clusterDir}, keeping its authority: what {@code --force} removes of a cluster's TLS files.
     *
     * @return the names removed, relative to the cluster directory
     */
    public static List<String> deleteMembers(Path clusterDir) {
        List<String> removed = new ArrayList<>();
        for (String sub : List.of("nodes", "clients")) {
            Path p = tlsDir(clusterDir).resolve(sub);
            if (Files.isDirectory(p)) {
                try (Stream<Path> files = Files.list(p)) {
                    for (Path f : files.toList()) {
                        Files.delete(f);
                    }
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot delete " + p + ": " + e.getMessage(), e);
                }
                removed.add(DIRECTORY + "/" + sub + "/");
            }
        }
        return removed;
    }

    /** The client machines that get a certificate: those given, the proposer slots' hosts, else the first node's host. */
    static Set<String> clientHosts(ClusterDescriptor cluster, List<String> given) {
        Set<String> hosts = new LinkedHashSet<>(given);
        cluster.proposers().forEach(p -> hosts.add(p.host()));
        if (hosts.isEmpty()) {
            hosts.add(cluster.nodes().get(0).host());
        }
        return hosts;
    }

    /** Refuses an existing member file that names another member (of another cluster, say), naming the fix. */
    private static void requireMember(Path ca, Path certificate, ClusterMember expected) throws IOException {
        TlsCredentials found = TlsCredentials.load(ca, certificate, keyOf(certificate));
        if (!found.self().equals(expected)) {
            throw new TlsFileException(certificate, certificate + " names " + found.self() + ", not " + expected
                    + ": delete it (or pass --force, which deletes the members' certificates) to have it issued again");
        }
    }

    private static Path keyOf(Path certificate) {
        String name = certificate.getFileName().toString();
        return certificate.resolveSibling(name.substring(0, name.length() - ".pem".length()) + ".key");
    }

    /**
     * How node {@code node} of {@code cluster} secures its links: plain TCP if the cluster has no tls setting, else
     * mutual TLS with its files in {@code DIR/tls}.
     *
     * @param cluster the cluster as this process dials it (through fault-injecting links, their ports)
     * @throws IllegalArgumentException naming the file and the problem if its files are missing or refused
     */
    public static LinkSecurity forNode(Path clusterDir, ClusterDescriptor cluster, ClusterNode node) {
        if (cluster.tls() == null) {
            return LinkSecurity.plain();
        }
        Path d = tlsDir(clusterDir);
        return security(cluster, d.resolve("ca.pem"), d.resolve("nodes").resolve(node.name() + ".pem"),
                ClusterMember.node(cluster.tls().cluster(), node.name()));
    }

    /**
     * How a load process on a client machine secures its links: plain TCP if the cluster has no tls setting, else mutual
     * TLS with the client certificate in {@code DIR/tls/clients}: the one for {@code host} (its proposer slot's host)
     * if given and there, else the only one there, else the first by name.
     *
     * @throws IllegalArgumentException naming the problem if there is none, or it is refused
     */
    public static LinkSecurity forClient(Path clusterDir, ClusterDescriptor cluster, String host) {
        if (cluster.tls() == null) {
            return LinkSecurity.plain();
        }
        Path d = tlsDir(clusterDir);
        Path clients = d.resolve("clients");
        Path chosen = host == null ? null : clients.resolve(host + ".pem");
        if (chosen == null || !Files.exists(chosen)) {
            try (Stream<Path> all = Files.list(clients)) {
                chosen = all.filter(p -> p.getFileName().toString().endsWith(".pem")).sorted().findFirst().orElse(null);
            } catch (IOException e) {
                chosen = null;
            }
        }
        if (chosen == null) {
            throw new IllegalArgumentException("no client certificate in " + clients + ": this cluster runs mutual TLS, and a"
                    + " load process presents its machine's certificate (cluster init and cluster start write them)");
        }
        String file = chosen.getFileName().toString();
        return security(cluster, d.resolve("ca.pem"), chosen,
                ClusterMember.client(cluster.tls().cluster(), file.substring(0, file.length() - ".pem".length())));
    }

    private static LinkSecurity security(ClusterDescriptor cluster, Path ca, Path certificate, ClusterMember expected) {
        TlsCredentials credentials;
        try {
            credentials = TlsCredentials.load(ca, certificate, keyOf(certificate));
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        if (!credentials.self().equals(expected)) {
            throw new IllegalArgumentException(certificate + " names " + credentials.self() + ", not " + expected
                    + " (cluster.json's tls.cluster is " + cluster.tls().cluster() + ")");
        }
        return LinkSecurity.mutualTls(credentials, members(cluster));
    }

    /** Who listens at each address of {@code cluster}: each node at each of its ports, each proposer slot's machine. */
    static Map<InetSocketAddress, ClusterMember> members(ClusterDescriptor cluster) {
        String id = cluster.tls().cluster();
        Map<InetSocketAddress, ClusterMember> at = new LinkedHashMap<>();
        for (ClusterNode n : cluster.nodes()) {
            ClusterMember member = ClusterMember.node(id, n.name());
            for (int port : new int[] {n.port(), n.replyPort(), n.checkpointPort()}) {
                if (port > 0) {
                    at.put(n.address(port), member);
                }
            }
        }
        if (cluster.pbft() != null) {
            List<ClusterNode> replicas = cluster.replicas();
            for (int r = 0; r < replicas.size(); r++) {
                ClusterMember member = ClusterMember.node(id, replicas.get(r).name());
                for (int port : cluster.pbft().pillarPorts().get(r)) {
                    at.put(replicas.get(r).address(port), member);
                }
            }
        }
        for (ProposerSlot p : cluster.proposers()) {
            at.put(new InetSocketAddress(p.host(), p.port()), ClusterMember.client(id, p.host()));
        }
        return at;
    }
}
