package io.psmr.kvstore.ratis;

import io.psmr.ordering.transport.LinkSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotReplyProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto;
import org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.TimeoutIOException;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;
import org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup;
import org.apache.ratis.thirdparty.io.netty.util.concurrent.DefaultThreadFactory;
import org.apache.ratis.util.IOUtils;
import org.apache.ratis.util.PeerProxyMap;

/**
 * The RPC type of psmr's Ratis servers: Ratis' Netty wire (the messages of {@code ratis-netty}, unchanged), served by
 * psmr's {@link RatisNettyServer} and sent over psmr's {@link RatisNettyConnection}s, each under the process's
 * {@link LinkSecurity} (plain TCP or mutual TLS). Set in the server's properties by {@link RatisPeer}, which passes the
 * security and the group in the server's {@link Parameters} under {@link #SECURITY} and {@link #GROUP}; Raft clients use {@link RatisClientRpc}.
 *
 * <p>Why psmr serves the wire itself (Ratis 3.3.0): its {@code NettyRpcService} builds a pipeline nothing can be
 * added to, so it cannot run TLS; its connections to peers deadlock (see {@link Rpc}); and its failed start cannot be
 * closed: {@code RaftServerProxy.start()} starts the group's divisions first and the RPC last, and
 * {@code LifeCycle.startAndTransition} puts the RPC's and the server's life cycle back to {@code NEW} after an
 * {@code IOException}, from where {@code close()} only marks them {@code CLOSED}, leaving the divisions' threads,
 * executors, storage lock and event loops behind. Here {@link Rpc#start} rethrows a failed bind as an
 * {@link UncheckedIOException}: the server's life cycle ends at {@code EXCEPTION}, and its {@code close()} closes the
 * divisions and this RPC.
 *
 * <p>Ratis instantiates this class by name ({@link RpcType#valueOf}), through its no-argument constructor.
 */
final class RatisNettyRpc implements RpcType {

    /** The key of the server's {@link LinkSecurity} in its {@link Parameters}; absent means plain TCP. */
    static final String SECURITY = "psmr.ratis.link-security";
    /** The key of the server's {@link RaftGroup} in its {@link Parameters}: the peers as this process dials them. */
    static final String GROUP = "psmr.ratis.group";

    RatisNettyRpc() {
    }

    /** The class name: how Ratis finds this type again in the server's properties. */
    @Override
    public String name() {
        return RatisNettyRpc.class.getName();
    }

    @Override
    public ServerFactory newFactory(Parameters parameters) {
        LinkSecurity security = parameters == null ? null : parameters.get(SECURITY, LinkSecurity.class);
        RaftGroup group = parameters == null ? null : parameters.get(GROUP, RaftGroup.class);
        return new Factory(this, security == null ? LinkSecurity.plain() : security,
                group == null ? List.of() : group.getPeers());
    }

    @Override
    public String toString() {
        return "NETTY (psmr)";
    }

    /** The server RPC's factory; log appenders are Ratis' default ones, which call the RPC synchronously. */
    private record Factory(RatisNettyRpc type, LinkSecurity security, Collection<RaftPeer> group)
            implements ServerFactory {

        @Override
        public RpcType getRpcType() {
            return type;
        }

        @Override
        public RaftServerRpc newRaftServerRpc(RaftServer server) {
            return new Rpc(server, security, group);
        }
    }

    /**
     * What peers and clients send this server ({@link RatisNettyServer}), and what it sends the others (votes,
     * entries, snapshots, elections) over {@link RatisNettyConnection}s: Ratis' wire without Ratis 3.3.0's lock
     * cycle, where a connection's {@code close()} waits up to 5 s for the event loop under the connection's monitor
     * while the event loop, failing the connection's requests, waits for that monitor, so that a leader whose
     * follower died stalled its event loop, and with it its appends to the live followers, for 5 s at each
     * reconnection.
     */
    static final class Rpc implements RaftServerRpc {

        private static final AtomicInteger RPCS = new AtomicInteger();

        private final RatisNettyServer inbound;
        private final AtomicBoolean closed = new AtomicBoolean();
        /** This peer's connections to the others. */
        private final PeerProxyMap<RatisNettyConnection> peers;
        private final EventLoopGroup group;
        private final ExecutorService replies;
        private final long timeoutMillis;

        Rpc(RaftServer server, LinkSecurity security, Collection<RaftPeer> dialed) {
            this.inbound = new RatisNettyServer(server, new InetSocketAddress(
                    NettyConfigKeys.Server.host(server.getProperties()), NettyConfigKeys.Server.port(server.getProperties())),
                    security, dialed);
            int n = RPCS.incrementAndGet();
            this.group = new NioEventLoopGroup(1, new DefaultThreadFactory("psmr-ratis-peers-" + n, true));
            this.replies = Executors.newSingleThreadExecutor(new DefaultThreadFactory("psmr-ratis-peer-replies-" + n, true));
            this.peers = new PeerProxyMap<>(server.getId() + "-peers",
                    peer -> new RatisNettyConnection(peer, group, replies, security));
            this.timeoutMillis = RaftServerConfigKeys.Rpc.requestTimeout(server.getProperties())
                    .toLong(TimeUnit.MILLISECONDS);
        }

        /**
         * Sends {@code proto} to the peer {@code request} replies to, and waits for the reply up to the request timeout
         * plus the request's own; a failure resets the connection, as Ratis' Netty service does.
         */
        private RaftNettyServerReplyProto send(RaftRpcRequestProto request, RaftNettyServerRequestProto proto)
                throws IOException {
            RaftPeerId id = RaftPeerId.valueOf(request.getReplyId());
            try {
                CompletableFuture<RaftNettyServerReplyProto> f = peers.getProxy(id).send(request.getCallId(), proto);
                try {
                    return f.get(timeoutMillis + request.getTimeoutMs(), TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    f.cancel(false);
                    throw new TimeoutIOException("request #" + request.getCallId() + " to " + id
                            + " not answered within " + (timeoutMillis + request.getTimeoutMs()) + " ms", e);
                } catch (ExecutionException e) {
                    throw IOUtils.asIOException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw IOUtils.toInterruptedIOException("interrupted sending to " + id, e);
                }
            } catch (IOException e) {
                peers.handleException(id, e, false);
                throw e;
            }
        }

        /**
         * Binds the port.
         *
         * @throws UncheckedIOException if it cannot (the bind's exception is its innermost cause)
         */
        @Override
        public void start() {
            try {
                inbound.start();
            } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
            }
        }

        /** Closes the server and the connections to peers, once. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                inbound.close();
            } finally {
                peers.close();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
                replies.shutdown();
            }
        }

        @Override
        public InetSocketAddress getInetSocketAddress() {
            return inbound.address();
        }

        @Override
        public RpcType getRpcType() {
            return SupportedRpcType.NETTY;
        }

        @Override
        public void addRaftPeers(Collection<RaftPeer> added) {
            inbound.addPeers(added);
            peers.addRaftPeers(added);
        }

        @Override
        public void handleException(RaftPeerId serverId, Exception e, boolean reconnect) {
            peers.handleException(serverId, e, reconnect);
        }

        @Override
        public RequestVoteReplyProto requestVote(RequestVoteRequestProto request) throws IOException {
            return send(request.getServerRequest(), RaftNettyServerRequestProto.newBuilder()
                    .setRequestVoteRequest(request).build()).getRequestVoteReply();
        }

        @Override
        public AppendEntriesReplyProto appendEntries(AppendEntriesRequestProto request) throws IOException {
            return send(request.getServerRequest(), RaftNettyServerRequestProto.newBuilder()
                    .setAppendEntriesRequest(request).build()).getAppendEntriesReply();
        }

        @Override
        public InstallSnapshotReplyProto installSnapshot(InstallSnapshotRequestProto request) throws IOException {
            return send(request.getServerRequest(), RaftNettyServerRequestProto.newBuilder()
                    .setInstallSnapshotRequest(request).build()).getInstallSnapshotReply();
        }

        @Override
        public StartLeaderElectionReplyProto startLeaderElection(StartLeaderElectionRequestProto request)
                throws IOException {
            return send(request.getServerRequest(), RaftNettyServerRequestProto.newBuilder()
                    .setStartLeaderElectionRequest(request).build()).getStartLeaderElectionReply();
        }
    }
}
