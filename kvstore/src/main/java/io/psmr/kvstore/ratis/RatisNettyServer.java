package io.psmr.kvstore.ratis;

import io.psmr.ordering.transport.LinkSecurity;
import io.psmr.ordering.transport.RefusalLog;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.apache.ratis.client.impl.ClientProtoUtils;
import org.apache.ratis.proto.RaftProtos.RaftRpcReplyProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyExceptionReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.io.netty.bootstrap.ServerBootstrap;
import org.apache.ratis.thirdparty.io.netty.channel.Channel;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelHandlerContext;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelInitializer;
import org.apache.ratis.thirdparty.io.netty.channel.ChannelOption;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.SimpleChannelInboundHandler;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.socket.SocketChannel;
import org.apache.ratis.thirdparty.io.netty.channel.socket.nio.NioServerSocketChannel;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufEncoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32FrameDecoder;
import org.apache.ratis.thirdparty.io.netty.handler.codec.protobuf.ProtobufVarint32LengthFieldPrepender;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;
import org.apache.ratis.util.IOUtils;
import org.apache.ratis.util.JavaUtils;
import org.apache.ratis.util.ProtoUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of Ratis' Netty wire for one Raft server: what Ratis 3.3.0's {@code NettyRpcService} serves
 * (requests as {@code RaftNettyServerRequestProto}, varint-framed protobuf, each answered with a
 * {@code RaftNettyServerReplyProto} carrying its call id, a failure as a serialized {@code IOException}), on psmr's
 * own server so that it can run mutual TLS ({@link RatisTls}). Ratis' {@code NettyRpcService} builds its pipeline
 * where nothing can be added to it, and its TLS settings cover only the data stream, which psmr does not use.
 *
 * <p>Two differences from Ratis' service:
 * <ul>
 *   <li>A Raft client request is submitted asynchronously and answered when Ratis completes it; Ratis' service waits
 *       for it on the event loop, so that each connection carried one client request at a time. Raft's own requests
 *       (entries, votes, snapshots) are answered on the event loop as Ratis does, in arrival order.</li>
 *   <li>Under TLS each request is checked against the certificate its connection presented: Raft's own requests only
 *       from the node whose peer id they carry as requestor, administrative ones (configuration, groups, snapshots,
 *       leadership) only from nodes, client requests from any member. A connection that breaks the rule is closed
 *       unanswered, and the refusal logged once per peer per minute.</li>
 * </ul>
 *
 * <p>Threads: one acceptor and Netty's default number of event loops ({@code psmr-ratis-server-N}), daemons, stopped by
 * {@link #close()}. {@link #addPeers} may be called from any thread.
 */
final class RatisNettyServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(RatisNettyServer.class);
    private static final AtomicInteger SERVERS = new AtomicInteger();

    /** The refusal reason of a request whose certificate may not send it. */
    static final String NOT_PERMITTED = "request not permitted";

    private final RaftServer server;
    private final InetSocketAddress bind;
    private final LinkSecurity security;
    private final Map<RaftPeerId, InetSocketAddress> peers = new ConcurrentHashMap<>();
    private final EventLoopGroup acceptor;
    private final EventLoopGroup loops;
    private final RefusalLog refusals;
    private volatile Channel channel;

    /**
     * A server for {@code server}, not yet bound.
     *
     * @param bind     the host and port to listen on
     * @param security plain TCP, or the mutual TLS that every connection must run
     * @param group    the group's peers as this process dials them
     */
    RatisNettyServer(RaftServer server, InetSocketAddress bind, LinkSecurity security, Iterable<RaftPeer> group) {
        this.server = server;
        addPeers(group);
        this.bind = bind;
        this.security = security;
        int n = SERVERS.incrementAndGet();
        this.acceptor = new NioEventLoopGroup(1, new DefaultThreadFactory("psmr-ratis-accept-" + n, true));
        this.loops = new NioEventLoopGroup(0, new DefaultThreadFactory("psmr-ratis-server-" + n, true));
        this.refusals = RefusalLog.perMinute(LOG, () -> "Ratis server " + server.getId());
    }


    /**
     * Learns where peers listen, as this process dials them: a Raft request's requestor must present the certificate
     * of the member there. The first address of a peer stays: the configuration entries in the Raft log carry the
     * addresses as the leader dialled them, which differ from this process's behind fault-injecting links.
     */
    void addPeers(Iterable<RaftPeer> added) {
        for (RaftPeer p : added) {
            String address = p.getAddress();
            int colon = address == null ? -1 : address.lastIndexOf(':');
            if (colon > 0) {
                peers.putIfAbsent(p.getId(), InetSocketAddress.createUnresolved(address.substring(0, colon),
                        Integer.parseInt(address.substring(colon + 1))));
            }
        }
    }

    /**
     * Binds the port and starts serving.
     *
     * @throws IOException naming the address if it cannot be bound (the bind's exception is its cause)
     */
    void start() throws IOException {
        ServerBootstrap b = new ServerBootstrap().group(acceptor, loops).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RatisTls.secureAccepted(ch, security);
                        ch.pipeline().addLast(new ProtobufVarint32FrameDecoder(),
                                new ProtobufDecoder(RaftNettyServerRequestProto.getDefaultInstance()),
                                new ProtobufVarint32LengthFieldPrepender(), new ProtobufEncoder(), new Inbound());
                    }
                });
        var bound = b.bind(bind).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot listen on " + bind + ": " + bound.cause().getMessage(), bound.cause());
        }
        channel = bound.channel();
    }

    /** The address it listens on, or the one it was asked to bind before {@link #start}. */
    InetSocketAddress address() {
        Channel c = channel;
        return c == null ? bind : (InetSocketAddress) c.localAddress();
    }

    /** Refusals of connections so far: TLS handshakes and requests their certificate may not send. */
    long refusals() {
        return refusals.refusals() + security.refusals();
    }

    /** Stops listening, closes every connection and stops the event loops; waits up to a second for them. */
    @Override
    public void close() {
        Channel c = channel;
        if (c != null) {
            c.close().awaitUninterruptibly();
        }
        acceptor.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
        loops.shutdownGracefully(0, 100, TimeUnit.MILLISECONDS);
        try {
            acceptor.awaitTermination(1, TimeUnit.SECONDS);
            loops.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Why the connection's certificate may not send {@code proto}, or empty if it may (always under plain TCP). */
    private Optional<String> notPermitted(Channel ch, RaftNettyServerRequestProto proto) {
        if (!security.isTls()) {
            return Optional.empty();
        }
        SSLSession session = RatisTls.session(ch);
        return switch (proto.getRaftNettyServerRequestCase()) {
            case RAFTCLIENTREQUEST -> Optional.empty(); // the handshake admitted only members
            case REQUESTVOTEREQUEST, APPENDENTRIESREQUEST, INSTALLSNAPSHOTREQUEST, STARTLEADERELECTIONREQUEST -> {
                RaftPeerId requestor = RaftPeerId.valueOf(rpcRequest(proto).getRequestorId());
                InetSocketAddress at = peers.get(requestor);
                yield at == null ? Optional.of("it sends a Raft request as " + requestor + ", not a peer of the group")
                        : security.claimProblem(session, at).map(p -> "a Raft request as " + requestor + ": " + p);
            }
            default -> {
                try {
                    yield LinkSecurity.presented(session).role() == io.psmr.ordering.transport.ClusterMember.Role.NODE
                            ? Optional.empty()
                            : Optional.of(proto.getRaftNettyServerRequestCase() + " comes from a client certificate: only"
                                    + " nodes may administer the group");
                } catch (SSLPeerUnverifiedException e) {
                    yield Optional.of("no verified certificate on this connection: " + e.getMessage());
                }
            }
        };
    }

    /** The Raft RPC header of a request, or null for a request of no known kind. */
    private static RaftRpcRequestProto rpcRequest(RaftNettyServerRequestProto proto) {
        return switch (proto.getRaftNettyServerRequestCase()) {
            case REQUESTVOTEREQUEST -> proto.getRequestVoteRequest().getServerRequest();
            case APPENDENTRIESREQUEST -> proto.getAppendEntriesRequest().getServerRequest();
            case INSTALLSNAPSHOTREQUEST -> proto.getInstallSnapshotRequest().getServerRequest();
            case STARTLEADERELECTIONREQUEST -> proto.getStartLeaderElectionRequest().getServerRequest();
            case RAFTCLIENTREQUEST -> proto.getRaftClientRequest().getRpcRequest();
            case TRANSFERLEADERSHIPREQUEST -> proto.getTransferLeadershipRequest().getRpcRequest();
            case SNAPSHOTMANAGEMENTREQUEST -> proto.getSnapshotManagementRequest().getRpcRequest();
            case LEADERELECTIONMANAGEMENTREQUEST -> proto.getLeaderElectionManagementRequest().getRpcRequest();
            case SETCONFIGURATIONREQUEST -> proto.getSetConfigurationRequest().getRpcRequest();
            case GROUPMANAGEMENTREQUEST -> proto.getGroupManagementRequest().getRpcRequest();
            case GROUPLISTREQUEST -> proto.getGroupListRequest().getRpcRequest();
            case GROUPINFOREQUEST -> proto.getGroupInfoRequest().getRpcRequest();
            default -> null;
        };
    }

    /** Answers a request that Ratis handles synchronously, as Ratis' service does. */
    private RaftNettyServerReplyProto handle(RaftNettyServerRequestProto proto) throws IOException {
        RaftNettyServerReplyProto.Builder reply = RaftNettyServerReplyProto.newBuilder();
        return switch (proto.getRaftNettyServerRequestCase()) {
            case REQUESTVOTEREQUEST -> reply.setRequestVoteReply(server.requestVote(proto.getRequestVoteRequest())).build();
            case APPENDENTRIESREQUEST -> reply.setAppendEntriesReply(server.appendEntries(proto.getAppendEntriesRequest())).build();
            case INSTALLSNAPSHOTREQUEST -> reply.setInstallSnapshotReply(
                    server.installSnapshot(proto.getInstallSnapshotRequest())).build();
            case STARTLEADERELECTIONREQUEST -> reply.setStartLeaderElectionReply(
                    server.startLeaderElection(proto.getStartLeaderElectionRequest())).build();
            case TRANSFERLEADERSHIPREQUEST -> reply.setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(
                    server.transferLeadership(ClientProtoUtils.toTransferLeadershipRequest(
                            proto.getTransferLeadershipRequest())))).build();
            case SNAPSHOTMANAGEMENTREQUEST -> reply.setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(
                    server.snapshotManagement(ClientProtoUtils.toSnapshotManagementRequest(
                            proto.getSnapshotManagementRequest())))).build();
            case LEADERELECTIONMANAGEMENTREQUEST -> reply.setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(
                    server.leaderElectionManagement(ClientProtoUtils.toLeaderElectionManagementRequest(
                            proto.getLeaderElectionManagementRequest())))).build();
            case SETCONFIGURATIONREQUEST -> reply.setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(
                    server.setConfiguration(ClientProtoUtils.toSetConfigurationRequest(
                            proto.getSetConfigurationRequest())))).build();
            case GROUPMANAGEMENTREQUEST -> reply.setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(
                    server.groupManagement(ClientProtoUtils.toGroupManagementRequest(
                            proto.getGroupManagementRequest())))).build();
            case GROUPLISTREQUEST -> reply.setGroupListReply(ClientProtoUtils.toGroupListReplyProto(
                    server.getGroupList(ClientProtoUtils.toGroupListRequest(proto.getGroupListRequest())))).build();
            case GROUPINFOREQUEST -> reply.setGroupInfoReply(ClientProtoUtils.toGroupInfoReplyProto(
                    server.getGroupInfo(ClientProtoUtils.toGroupInfoRequest(proto.getGroupInfoRequest())))).build();
            default -> throw new IllegalStateException("not a request handled synchronously: "
                    + proto.getRaftNettyServerRequestCase());
        };
    }

    /** A failure as Ratis' service answers it: the request's header and the serialized exception. */
    private static RaftNettyServerReplyProto failure(RaftRpcRequestProto request, IOException e) {
        RaftRpcReplyProto.Builder rpcReply = RaftRpcReplyProto.newBuilder()
                .setRequestorId(request.getRequestorId())
                .setReplyId(request.getReplyId())
                .setCallId(request.getCallId())
                .setSuccess(false);
        return RaftNettyServerReplyProto.newBuilder().setExceptionReply(RaftNettyExceptionReplyProto.newBuilder()
                .setRpcReply(rpcReply).setException(ProtoUtils.writeObject2ByteString(e))).build();
    }

    /** Runs on a connection's event loop. */
    private final class Inbound extends SimpleChannelInboundHandler<RaftNettyServerRequestProto> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, RaftNettyServerRequestProto proto) {
            RaftRpcRequestProto header = rpcRequest(proto);
            if (header == null) {
                refuse(ctx, RefusalLog.UNCLASSIFIED, "a request of no kind Ratis serves: "
                        + proto.getRaftNettyServerRequestCase());
                return;
            }
            Optional<String> problem = notPermitted(ctx.channel(), proto);
            if (problem.isPresent()) {
                refuse(ctx, NOT_PERMITTED, problem.get());
                return;
            }
            if (proto.hasRaftClientRequest()) {
                try {
                    server.submitClientRequestAsync(ClientProtoUtils.toRaftClientRequest(proto.getRaftClientRequest()))
                            .whenComplete((reply, e) -> ctx.writeAndFlush(e == null
                                    ? RaftNettyServerReplyProto.newBuilder()
                                            .setRaftClientReply(ClientProtoUtils.toRaftClientReplyProto(reply)).build()
                                    : failure(header, IOUtils.asIOException(JavaUtils.unwrapCompletionException(e)))));
                } catch (IOException e) {
                    ctx.writeAndFlush(failure(header, e));
                }
                return;
            }
            RaftNettyServerReplyProto reply;
            try {
                reply = handle(proto);
            } catch (IOException e) {
                reply = failure(header, e);
            }
            ctx.writeAndFlush(reply);
        }

        /** Closes the connection unanswered; logged once per host per minute. */
        private void refuse(ChannelHandlerContext ctx, Object reason, String why) {
            if (ctx.channel().isActive()) {
                refusals.record(RatisTls.hostOf(ctx.channel().remoteAddress()), reason,
                        "closing connection with peer at " + ctx.channel().remoteAddress(), why);
                ctx.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("Ratis server {}: closing the connection of {}", server.getId(), ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }
}
