package io.psmr.kvstore.ratis;

import io.psmr.ordering.transport.LinkSecurity;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.client.impl.RaftClientRpcWithProxy;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.thirdparty.io.netty.bootstrap.Bootstrap;
import org.apache.ratis.thirdparty.io.netty.channel.Channel;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelFuture;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelInitializer;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelOption;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.SimpleChannelInboundHandler;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.socket.SocketChannel;
import org.apache.ratis.thirdparty.io.netty.channel.socket.nio.NioSocketChannel;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufEncoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32FrameDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32LengthFieldPrepender;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;
import org.apache.ratis.util.IOUtils;
import org.apache.ratis.util.PeerProxyMap;
import org.apache.ratis.util.ProtoUtils;

/**
 * The client side of Ratis' Netty RPC, as psmr's Raft clients use it: the same wire as Ratis 3.3.0's
 * {@code NettyClientRpc} (a {@code RaftNettyServerRequestProto} per request, varint-framed protobuf, replies matched
 * by call id), without its lock cycle.
 *
 * <p><b>Why.</b> In Ratis 3.3.0 a connection ({@code NettyRpcProxy.Connection}) sends, fails its outstanding requests
 * and closes under its own monitor. Its {@code close()} waits up to 5 s for the channel to close, which the channel's
 * event loop does, while that event loop, on the connection's failure, waits for the same monitor to fail the
 * requests: each connection that breaks under a request stalls the client for 5 s. And the event loop completes the
 * failed requests' futures itself, so the ordered async client's callbacks run there and take its
 * {@code SlidingWindow.Client}, which a sending thread holds while it waits for the connection's monitor: a deadlock,
 * after which the client never answers again. Here no lock is held while waiting, closing does not wait for the event
 * loop, and futures complete on a thread of their own ({@code psmr-ratis-replies}), never on the event loop, so no
 * Ratis lock is ever taken there. A request not answered within the client's request timeout fails with
 * {@link TimeoutIOException}, and Ratis' retry policy sends it again.
 *
 * <p>Raft client requests only (what psmr sends); group management and the like are refused. Threads: one event loop
 * ({@code psmr-ratis-client-N}), the reply thread, and a timer; all daemons, stopped by {@link #close()}.
 */
final class RatisClientRpc extends RaftClientRpcWithProxy<RatisNettyConnection> {

    private static final AtomicInteger RPCS = new AtomicInteger();
    /** How long a connection attempt may take. */
    static final int CONNECT_MILLIS = 3000;

    private final long timeoutMillis;
    private final EventLoopGroup group;
    private final ExecutorService replies;
    private final java.util.concurrent.ScheduledExecutorService timer;

    private RatisClientRpc(PeerProxyMap<RatisNettyConnection> proxies, long timeoutMillis, EventLoopGroup group,
                           ExecutorService replies, java.util.concurrent.ScheduledExecutorService timer) {
        super(proxies);
        this.timeoutMillis = timeoutMillis;
        this.group = group;
        this.replies = replies;
        this.timer = timer;
    }

    /**
     * An RPC for a Raft client with id {@code id} and the request timeout of {@code properties}, its connections under
     * {@code security} (under mutual TLS each server must present the certificate of the node at its address).
     */
    static RatisClientRpc create(ClientId id, RaftProperties properties, LinkSecurity security) {
        int n = RPCS.incrementAndGet();
        EventLoopGroup group = new NioEventLoopGroup(1, new DefaultThreadFactory("psmr-ratis-client-" + n, true));
        ExecutorService replies = Executors.newSingleThreadExecutor(new DefaultThreadFactory("psmr-ratis-replies-" + n, true));
        java.util.concurrent.ScheduledThreadPoolExecutor timer = new java.util.concurrent.ScheduledThreadPoolExecutor(1,
                new DefaultThreadFactory("psmr-ratis-timeouts-" + n, true));
        timer.setRemoveOnCancelPolicy(true); // answered requests leave no timeout behind
        PeerProxyMap<RatisNettyConnection> proxies = new PeerProxyMap<>(id.toString(), peer -> new RatisNettyConnection(peer, group, replies,
                security));
        return new RatisClientRpc(proxies, RaftClientConfigKeys.Rpc.requestTimeout(properties).toLong(TimeUnit.MILLISECONDS),
                group, replies, timer);
    }


    /** Sends {@code request}; the reply as the server sent it (a not-leader reply included), or the failure. */
    private CompletableFuture<RaftClientReply> call(RaftClientRequest request) {
        if (request.getClass() != RaftClientRequest.class) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("psmr's Ratis client RPC carries Raft"
                    + " client requests only, not " + request.getClass().getSimpleName() + " (use RatisPeer.newAdminClient)"));
        }
        try {
            RaftNettyServerRequestProto proto = RaftNettyServerRequestProto.newBuilder()
                    .setRaftClientRequest(ClientProtoUtils.toRaftClientRequestProto(request)).build();
            RatisNettyConnection c = getProxies().getProxy(request.getServerId());
            CompletableFuture<RaftClientReply> reply = c.send(request.getCallId(), proto)
                    .thenApply(r -> ClientProtoUtils.toRaftClientReply(r.getRaftClientReply()));
            java.util.concurrent.ScheduledFuture<?> timeout = timer.schedule(() -> reply.completeExceptionally(
                    new TimeoutIOException("request #" + request.getCallId() + " to " + request.getServerId()
                            + " not answered within " + timeoutMillis + " ms")), timeoutMillis, TimeUnit.MILLISECONDS);
            reply.whenComplete((r, e) -> timeout.cancel(false));
            return reply;
        } catch (IOException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<RaftClientReply> sendRequestAsync(RaftClientRequest request) {
        // As Ratis' own: a reply that says another peer leads, or that the leader is not ready, fails the request.
        return call(request).thenCompose(reply -> {
            IOException e = reply.getNotLeaderException() != null ? reply.getNotLeaderException()
                    : reply.getLeaderNotReadyException();
            return e == null ? CompletableFuture.completedFuture(reply) : CompletableFuture.failedFuture(e);
        });
    }

    @Override
    public RaftClientReply sendRequest(RaftClientRequest request) throws IOException {
        try {
            return call(request).get();
        } catch (ExecutionException e) {
            throw IOUtils.asIOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw IOUtils.toInterruptedIOException("interrupted waiting for request #" + request.getCallId(), e);
        }
    }

    @Override
    public void close() {
        super.close();
        timer.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        replies.shutdown();
    }
}
