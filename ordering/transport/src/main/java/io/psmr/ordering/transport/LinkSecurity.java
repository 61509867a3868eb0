package io.psmr.ordering.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a process's connections are secured: plain TCP, or mutual TLS 1.3 under the cluster's one certificate
 * authority, where each side presents its member certificate and checks the other's ({@link MemberTrustManager}).
 * {@link FrameServer} secures each accepted connection ({@link #secureAccepted}), {@link ReconnectingLink} each dialled
 * one ({@link #secureDialed}); the HTTP servers and clients of a process take {@link #httpsContext}.
 *
 * <p>A refused peer (no certificate, one of another cluster or another node, plain bytes on a TLS port) is closed
 * and told through the TLS alert; the refusal is logged at most once per peer per minute ({@link RefusalLog}).
 *
 * <p>Immutable after construction apart from its refusal log; any thread. Handlers it adds run on the connection's
 * event loop.
 */
public final class LinkSecurity {

    private static final Logger LOG = LoggerFactory.getLogger(LinkSecurity.class);
    private static final LinkSecurity PLAIN = new LinkSecurity();
    /**
     * BoringSSL (netty-tcnative) where its native library loads, else the JDK's provider: the same protocol and checks
     * either way, BoringSSL at a fraction of the CPU per byte (docs/benchmarks.md, TLS).
     */
    private static final SslProvider PROVIDER = OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;

    /** The refusal reason of a failed TLS handshake. */
    public static final String TLS_REFUSED = "TLS refused";

    /** Who may open a connection to a port. */
    public enum Admit {
        /** Nodes of the cluster only: peer links between acceptors, replicas, pillars. */
        NODES(Set.of(ClusterMember.Role.NODE)),
        /** Nodes and client machines: ports that load processes reach (proposals, replies). */
        MEMBERS(Set.of(ClusterMember.Role.NODE, ClusterMember.Role.CLIENT));

        private final Set<ClusterMember.Role> roles;

        Admit(Set<ClusterMember.Role> roles) {
            this.roles = roles;
        }
    }

    private final TlsCredentials credentials;
    private final Map<String, ClusterMember> membersByAddress;
    private final Map<Admit, SslContext> servers = new EnumMap<>(Admit.class);
    private final SslContext client;
    private final RefusalLog refusals;

    private LinkSecurity() {
        this.credentials = null;
        this.membersByAddress = Map.of();
        this.client = null;
        this.refusals = null;
    }

    private LinkSecurity(TlsCredentials credentials, Map<InetSocketAddress, ClusterMember> members) {
        this.credentials = credentials;
        Map<String, ClusterMember> byAddress = new HashMap<>();
        members.forEach((address, member) -> byAddress.put(key(address.getHostString(), address.getPort()), member));
        this.membersByAddress = Map.copyOf(byAddress);
        String cluster = credentials.self().cluster();
        try {
            for (Admit admit : Admit.values()) {
                servers.put(admit, SslContextBuilder.forServer(credentials.keyManagers())
                        .trustManager(new MemberTrustManager(credentials.authority(), cluster, admit.roles, this::memberAt))
                        .clientAuth(ClientAuth.REQUIRE).sslProvider(PROVIDER).protocols("TLSv1.3").build());
            }
            this.client = SslContextBuilder.forClient().keyManager(credentials.keyManagers())
                    .trustManager(new MemberTrustManager(credentials.authority(), cluster, Set.of(), this::memberAt))
                    .endpointIdentificationAlgorithm(null)
                    .sslProvider(PROVIDER).protocols("TLSv1.3").build();
        } catch (SSLException e) {
            throw new IllegalStateException("cannot set up TLS for " + credentials.self() + ": " + e.getMessage(), e);
        }
        this.refusals = RefusalLog.perMinute(LOG, () -> "TLS of " + credentials.self());
    }

    /** Plain TCP: nothing authenticated, nothing encrypted. */
    public static LinkSecurity plain() {
        return PLAIN;
    }

    /**
     * Mutual TLS as {@code credentials}' member.
     *
     * @param members every address this process may dial (each node's ports, each proposer slot), as it dials
     *                them, with the member listening there: a dialled peer must present that member's certificate
     */
    public static LinkSecurity mutualTls(TlsCredentials credentials, Map<InetSocketAddress, ClusterMember> members) {
        return new LinkSecurity(Objects.requireNonNull(credentials, "credentials"), Objects.requireNonNull(members, "members"));
    }

    /** Whether connections run TLS. */
    public boolean isTls() {
        return credentials != null;
    }

    /** The member this process speaks for, under TLS. */
    public Optional<ClusterMember> self() {
        return credentials == null ? Optional.empty() : Optional.of(credentials.self());
    }

    /** TLS handshakes refused so far (0 for plain TCP). */
    public long refusals() {
        return refusals == null ? 0 : refusals.refusals();
    }

    private ClusterMember memberAt(String host, Integer port) {
        return membersByAddress.get(key(host, port));
    }

    private static String key(String host, int port) {
        return host + ":" + port;
    }

    /**
     * Puts the server side of TLS first in an accepted connection's pipeline (nothing under plain TCP); the peer must
     * present a certificate of this cluster in one of {@code admit}'s roles. Call from the channel's initializer.
     */
    public void secureAccepted(SocketChannel ch, Admit admit) {
        if (credentials == null) {
            return;
        }
        SslHandler tls = servers.get(admit).newHandler(ch.alloc());
        ch.pipeline().addFirst(tls);
        ch.pipeline().addAfter(ch.pipeline().context(tls).name(), null, new Refusals("peer at " + ch.remoteAddress(),
                RefusalLog.hostOf(ch)));
    }

    /**
     * Puts the client side of TLS first in a dialled connection's pipeline (nothing under plain TCP); the peer must
     * present the certificate of the member that listens at {@code target}. Call from the channel's initializer.
     */
    public void secureDialed(SocketChannel ch, InetSocketAddress target) {
        if (credentials == null) {
            return;
        }
        SslHandler tls = client.newHandler(ch.alloc(), target.getHostString(), target.getPort());
        ch.pipeline().addFirst(tls);
        ch.pipeline().addAfter(ch.pipeline().context(tls).name(), null, new Refusals(describeDialed(target),
                dialedKey(target)));
    }

    /**
     * Why a connection may not speak as the peer that listens at {@code claimedAt}, or empty if it may: under TLS, a
     * connection whose hello names a node (or a proposer slot) must present the certificate of the member listening
     * at that node's address, so that a member cannot pass for another. Always empty under plain TCP. Call on the
     * connection's event loop, after its handshake (once its first frame arrived).
     */
    public Optional<String> claimProblem(Channel ch, InetSocketAddress claimedAt) {
        if (credentials == null) {
            return Optional.empty();
        }
        return claimProblem(ch.pipeline().get(SslHandler.class).engine().getSession(), claimedAt);
    }

    /**
     * As {@link #claimProblem(Channel, InetSocketAddress)}, for the TLS session of a connection in another Netty's
     * pipeline ({@link #acceptedEngine}'s). Always empty under plain TCP.
     */
    public Optional<String> claimProblem(SSLSession session, InetSocketAddress claimedAt) {
        if (credentials == null) {
            return Optional.empty();
        }
        ClusterMember claimed = claimedAt == null ? null : memberAt(claimedAt.getHostString(), claimedAt.getPort());
        ClusterMember presented;
        try {
            presented = presented(session);
        } catch (SSLPeerUnverifiedException e) {
            return Optional.of("no verified certificate on this connection: " + e.getMessage());
        }
        if (claimed == null) {
            return Optional.of("its hello names an address where no member of the cluster listens (" + claimedAt + ")");
        }
        return presented.equals(claimed) ? Optional.empty()
                : Optional.of("its hello names " + claimed + ", and its certificate " + presented);
    }

    /**
     * The member whose certificate the peer of {@code session} presented (verified by the handshake).
     *
     * @throws SSLPeerUnverifiedException if the session has no verified peer certificate
     */
    public static ClusterMember presented(SSLSession session) throws SSLPeerUnverifiedException {
        try {
            return ClusterMember.of((X509Certificate) session.getPeerCertificates()[0]);
        } catch (RuntimeException e) {
            throw new SSLPeerUnverifiedException("the peer's certificate names no member: " + e.getMessage());
        }
    }

    /**
     * The server side of TLS for a connection accepted on a port that admits {@code admit}, as an engine for the
     * {@code SslHandler} of another Netty than this one (Ratis' shaded Netty): the same checks as
     * {@link #secureAccepted}. Report a failed handshake to {@link #refused}.
     *
     * @throws IllegalStateException under plain TCP
     */
    public SSLEngine acceptedEngine(Admit admit) {
        requireTls();
        return servers.get(admit).newEngine(ByteBufAllocator.DEFAULT);
    }

    /**
     * The client side of TLS for a connection dialled to {@code target}, as an engine for another Netty's
     * {@code SslHandler}: the peer must present the certificate of the member that listens at {@code target}, as in
     * {@link #secureDialed}. Report a failed handshake to {@link #refused}.
     *
     * @throws IllegalStateException under plain TCP
     */
    public SSLEngine dialedEngine(InetSocketAddress target) {
        requireTls();
        return client.newEngine(ByteBufAllocator.DEFAULT, target.getHostString(), target.getPort());
    }

    /** How a log line names the member listening at {@code target}, as a dialled connection's refusals do. */
    public String describeDialed(InetSocketAddress target) {
        ClusterMember member = memberAt(target.getHostString(), target.getPort());
        return (member == null ? "no member" : member.role().word() + " " + member.name()) + " at " + target;
    }

    /** The key a dialled connection's refusals are counted under: the member at {@code target}, or the address. */
    public Object dialedKey(InetSocketAddress target) {
        ClusterMember member = memberAt(target.getHostString(), target.getPort());
        return member == null ? target : member;
    }

    /**
     * Counts a refused TLS handshake and logs it at most once per {@code peerKey} per minute, with the innermost
     * cause's message.
     */
    public void refused(Object peerKey, String peer, Throwable cause) {
        requireTls();
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        refusals.record(peerKey, TLS_REFUSED, peer, "TLS handshake failed: " + root.getMessage());
    }

    private void requireTls() {
        if (credentials == null) {
            throw new IllegalStateException("plain TCP has no TLS");
        }
    }

    /**
     * A JDK TLS context for HTTP over this security, for the JDK's HTTPS server ({@code admit}: who may connect) and
     * HTTP client (which checks that the server is the member at the address it dials).
     *
     * @throws IllegalStateException under plain TCP
     */
    public SSLContext httpsContext(Admit admit) {
        if (credentials == null) {
            throw new IllegalStateException("plain TCP has no TLS context");
        }
        try {
            SSLContext context = SSLContext.getInstance("TLSv1.3");
            TrustManager trust = new MemberTrustManager(credentials.authority(), credentials.self().cluster(), admit.roles,
                    this::memberAt);
            context.init(credentials.keyManagers().getKeyManagers(), new TrustManager[] {trust}, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS for HTTP: " + e, e);
        }
    }

    /** Which TLS implementation runs the handshakes and records: {@code "OpenSSL"} (BoringSSL) or {@code "JDK"}. */
    public static String provider() {
        return PROVIDER == SslProvider.OPENSSL ? "OpenSSL" : "JDK";
    }

    @Override
    public String toString() {
        return credentials == null ? "plain TCP" : "mutual TLS as " + credentials.self();
    }

    /** Logs and counts a refused handshake, and keeps TLS errors from the handlers behind it. */
    private final class Refusals extends ChannelInboundHandlerAdapter {
        private final String peer;
        private final Object peerKey;
        /** A failed handshake is reported both as an event and as an exception: count it once. */
        private boolean refused;

        Refusals(String peer, Object peerKey) {
            this.peer = peer;
            this.peerKey = peerKey;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
                if (done.cause() instanceof java.nio.channels.ClosedChannelException) {
                    ctx.close(); // closed before the handshake ended (a peer not up yet, a cut link): nothing refused
                } else {
                    refuse(ctx, done.cause());
                }
                return;
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
            Throwable tls = cause instanceof DecoderException && cause.getCause() instanceof SSLException ? cause.getCause() : cause;
            if (tls instanceof SSLException) {
                refuse(ctx, tls);
                return;
            }
            super.exceptionCaught(ctx, cause);
        }

        private void refuse(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
            if (refused) {
                return;
            }
            refused = true;
            refused(peerKey, peer, cause);
        }
    }
}
