package io.psmr.kvstore.ratis;

import io.psmr.ordering.transport.LinkSecurity;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.thirdparty.io.netty.bootstrap.Bootstrap;
import org.apache.ratis.thirdparty.io.netty.channel.Channel;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelFuture;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelInitializer;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelOption;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.SimpleChannelInboundHandler;
import org.apache.ratis.thirdparty.io.netty.channel.socket.SocketChannel;
import org.apache.ratis.thirdparty.io.netty.channel.socket.nio.NioSocketChannel;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufEncoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32FrameDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32LengthFieldPrepender;
import org.apache.ratis.util.ProtoUtils;

/**
 * One connection of Ratis' Netty wire to one peer, for psmr's Raft clients ({@link RatisClientRpc}) and its peers'
 * calls to each other ({@link RatisNettyRpc}): requests as {@code RaftNettyServerRequestProto}, varint-framed
 * protobuf, replies matched by call id. Unlike Ratis 3.3.0's {@code NettyRpcProxy.Connection}, its monitor guards
 * nothing that waits: requests are kept in a concurrent map, failures remove them one by one, closing does not wait for
 * the event loop, and every future completes on the given reply executor, never on the event loop. Thread-safe.
 */
final class RatisNettyConnection implements Closeable {
    private final RaftPeer peer;
    private final Channel channel;
    private final ExecutorService replies;
    private final Map<Long, CompletableFuture<RaftNettyServerReplyProto>> pending = new ConcurrentHashMap<>();

    /**
     * Connects to {@code peer}, under {@code security}: under mutual TLS the peer must present the certificate of the
     * member listening at its address. Waits for the TCP connection, not for the handshake: requests written meanwhile
     * wait in the TLS handler, and a refused handshake closes the connection and fails them.
     */
    RatisNettyConnection(RaftPeer peer, EventLoopGroup group, ExecutorService replies, LinkSecurity security)
            throws IOException {
        this.peer = peer;
        this.replies = replies;
        String[] hostPort = splitAddress(peer.getAddress());
        InetSocketAddress target = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, RatisClientRpc.CONNECT_MILLIS)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RatisTls.secureDialed(ch, security, target);
                        ch.pipeline().addLast(new ProtobufVarint32FrameDecoder(),
                                new ProtobufDecoder(RaftNettyServerReplyProto.getDefaultInstance()),
                                new ProtobufVarint32LengthFieldPrepender(), new ProtobufEncoder(), new Inbound());
                    }
                });
        ChannelFuture connected = b.connect(target);
        // Waits on the caller's thread, holding no lock of this class; the event loop never waits for one.
        if (!connected.awaitUninterruptibly(RatisClientRpc.CONNECT_MILLIS + 1000L) || !connected.isSuccess()) {
            connected.channel().close();
            throw new IOException("cannot connect to " + peer.getId() + " at " + peer.getAddress() + ": "
                    + (connected.cause() == null ? "timed out" : connected.cause()));
        }
        this.channel = connected.channel();
    }

    private static String[] splitAddress(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("peer address without a port: " + address);
        }
        return new String[] {address.substring(0, colon), address.substring(colon + 1)};
    }

    CompletableFuture<RaftNettyServerReplyProto> send(long callId, RaftNettyServerRequestProto request) {
        CompletableFuture<RaftNettyServerReplyProto> reply = new CompletableFuture<>();
        if (!channel.isActive()) {
            return CompletableFuture.failedFuture(new AlreadyClosedException("the connection to " + peer.getId()
                    + " is closed"));
        }
        if (pending.putIfAbsent(callId, reply) != null) {
            return CompletableFuture.failedFuture(new IllegalStateException("request #" + callId
                    + " is already outstanding to " + peer.getId()));
        }
        channel.writeAndFlush(request).addListener(f -> {
            if (!f.isSuccess()) {
                fail(callId, new IOException("cannot send request #" + callId + " to " + peer.getId(), f.cause()));
            }
        });
        if (!channel.isActive()) { // closed meanwhile: the failure of every request may have run before the put
            fail(callId, new AlreadyClosedException("the connection to " + peer.getId() + " closed"));
        }
        // Whatever completes it, the entry goes: a reply, a failure, or the client's timeout.
        reply.whenComplete((r, e) -> pending.remove(callId, reply));
        return reply;
    }

    private void fail(long callId, Throwable cause) {
        CompletableFuture<RaftNettyServerReplyProto> f = pending.remove(callId);
        if (f != null) {
            complete(() -> f.completeExceptionally(cause));
        }
    }

    /** Runs a completion on the reply thread; once the client closed, here. */
    private void complete(Runnable completion) {
        try {
            replies.execute(completion);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            completion.run();
        }
    }

    private void failAll(Throwable cause) {
        for (Long id : pending.keySet()) {
            fail(id, cause);
        }
    }

    @Override
    public void close() {
        channel.close(); // does not wait: the event loop closes it and fails what is outstanding
        failAll(new AlreadyClosedException("the connection to " + peer.getId() + " was closed"));
    }

    /** Runs on the event loop: hands every completion to the reply thread. */
    private final class Inbound extends SimpleChannelInboundHandler<RaftNettyServerReplyProto> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RaftNettyServerReplyProto proto) {
            long callId = callId(proto);
            CompletableFuture<RaftNettyServerReplyProto> f = pending.remove(callId);
            if (f == null) {
                return; // timed out, or not a reply to a client request
            }
            if (proto.hasExceptionReply()) {
                Object e = ProtoUtils.toObject(proto.getExceptionReply().getException());
                IOException ioe = e instanceof IOException x ? x : new IOException("peer " + peer.getId()
                        + " answered request #" + callId + " with " + e);
                complete(() -> f.completeExceptionally(ioe));
            } else {
                complete(() -> f.complete(proto));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
            failAll(new IOException("the connection to " + peer.getId() + " failed", cause));
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            failAll(new AlreadyClosedException("the connection to " + peer.getId() + " is closed"));
        }
    }

    /** The call id a reply answers, or -1 for a reply to nothing this connection sends. */
    static long callId(RaftNettyServerReplyProto proto) {
        return switch (proto.getRaftNettyServerReplyCase()) {
            case RAFTCLIENTREPLY -> proto.getRaftClientReply().getRpcReply().getCallId();
            case REQUESTVOTEREPLY -> proto.getRequestVoteReply().getServerReply().getCallId();
            case APPENDENTRIESREPLY -> proto.getAppendEntriesReply().getServerReply().getCallId();
            case INSTALLSNAPSHOTREPLY -> proto.getInstallSnapshotReply().getServerReply().getCallId();
            case STARTLEADERELECTIONREPLY -> proto.getStartLeaderElectionReply().getServerReply().getCallId();
            case EXCEPTIONREPLY -> proto.getExceptionReply().getRpcReply().getCallId();
            default -> -1;
        };
    }
}
