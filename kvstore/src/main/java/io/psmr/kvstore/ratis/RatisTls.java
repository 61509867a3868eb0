package io.psmr.kvstore.ratis;

import io.psmr.ordering.transport.LinkSecurity;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.apache.ratis.thirdparty.io.netty.channel.Channel;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelInboundHandlerAdapter;
import org.apache.ratis.thirdparty.io.netty.handler.codec.DecoderException;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslHandler;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslHandshakeCompletionEvent;

/**
 * Mutual TLS on Ratis' wire: {@link LinkSecurity}'s TLS engines in the pipelines of Ratis' shaded Netty, which psmr's
 * Ratis connections run on ({@link RatisNettyServer}, {@link RatisNettyConnection}). The same certificates and checks
 * as every other psmr link: a peer of another cluster, without a certificate, or speaking plain bytes is refused in
 * the handshake, and the refusal is logged once per peer per minute. Nothing is added under plain TCP.
 *
 * <p>Call from a channel's initializer; the handlers run on its event loop.
 */
final class RatisTls {

    private RatisTls() {
    }

    /** Puts the server side of TLS first in an accepted connection: nodes and client machines may connect. */
    static void secureAccepted(Channel ch, LinkSecurity security) {
        if (!security.isTls()) {
            return;
        }
        SslHandler tls = new SslHandler(security.acceptedEngine(LinkSecurity.Admit.MEMBERS));
        ch.pipeline().addFirst(tls);
        ch.pipeline().addAfter(ch.pipeline().context(tls).name(), null,
                new Refusals(security, "peer at " + ch.remoteAddress(), hostOf(ch.remoteAddress())));
    }

    /** Puts the client side of TLS first in a dialled connection: the peer must be the member at {@code target}. */
    static void secureDialed(Channel ch, LinkSecurity security, InetSocketAddress target) {
        if (!security.isTls()) {
            return;
        }
        SslHandler tls = new SslHandler(security.dialedEngine(target));
        ch.pipeline().addFirst(tls);
        ch.pipeline().addAfter(ch.pipeline().context(tls).name(), null,
                new Refusals(security, security.describeDialed(target), security.dialedKey(target)));
    }

    /** The TLS session of {@code ch} once its handshake is done, or null under plain TCP. */
    static SSLSession session(Channel ch) {
        SslHandler tls = ch.pipeline().get(SslHandler.class);
        return tls == null ? null : tls.engine().getSession();
    }

    /** The key a peer's refusals are counted under before it is known: its host. */
    static Object hostOf(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress() : inet.getHostString();
        }
        return String.valueOf(remote);
    }

    /**
     * Closes a connection whose handshake failed, reports it once, and keeps TLS errors from the handlers behind: the
     * twin of {@link LinkSecurity}'s own handler, for the types of Ratis' shaded Netty.
     */
    private static final class Refusals extends ChannelInboundHandlerAdapter {
        private final LinkSecurity security;
        private final String peer;
        private final Object peerKey;
        /** A failed handshake arrives both as an event and as an exception: count it once. */
        private boolean refused;

        Refusals(LinkSecurity security, String peer, Object peerKey) {
            this.security = security;
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
            // Handlers behind this one (the connection's own) learn of it as the channel going inactive.
            ctx.close();
            if (!refused) {
                refused = true;
                security.refused(peerKey, peer, cause);
            }
        }
    }
}
