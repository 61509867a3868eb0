package io.psmr.kvstore.ratis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.netty.NettyFactory;
import org.apache.ratis.netty.server.NettyRpcService;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotReplyProto;
import org.apache.ratis.proto.RaftProtos.InstallSnapshotRequestProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteReplyProto;
import org.apache.ratis.proto.RaftProtos.RequestVoteRequestProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionReplyProto;
import org.apache.ratis.proto.RaftProtos.StartLeaderElectionRequestProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerRpc;
import org.apache.ratis.server.ServerFactory;
import org.apache.ratis.server.leader.FollowerInfo;
import org.apache.ratis.server.leader.LeaderState;
import org.apache.ratis.server.leader.LogAppender;
import org.apache.ratis.server.protocol.RaftServerAsynchronousProtocol;

/**
 * The RPC type of psmr's Ratis servers: Ratis' Netty RPC ({@code ratis-netty}'s {@link NettyFactory} and
 * {@link NettyRpcService}, unchanged on the wire), except that a server whose RPC cannot start (its port taken)
 * can still be closed. Set in the server's properties by {@link RatisPeer}; Raft clients use
 * {@code SupportedRpcType.NETTY} directly.
 *
 * <p>Why (Ratis 3.3.0): {@code RaftServerProxy.start()} starts the group's divisions (log worker, state machine
 * updater, ...) first and the RPC last. {@code NettyRpcService.startImpl} reports a failed bind as an
 * {@link IOException}, and {@code LifeCycle.startAndTransition} puts both the RPC's and the server's life cycle back
 * to {@code NEW} after an {@code IOException}; {@code close()} from {@code NEW} only marks them {@code CLOSED}.
 * So after that failed start {@code server.close()} closes nothing: the divisions' threads, the proxy's
 * group-management and executor threads, the storage lock and Netty's event loop stay. (gRPC's server reports
 * the same failure through {@code ExitUtils.terminate}, an unchecked exception, which leaves the life cycle at
 * {@code EXCEPTION}, and from there {@code close()} runs.)
 *
 * <p>Here {@link Rpc#start} rethrows that {@code IOException} as an {@link UncheckedIOException}: the server's life
 * cycle ends at {@code EXCEPTION}, and its {@code close()} closes the divisions, shuts down its executors and closes
 * this RPC, which then runs Netty's own close ({@code closeImpl}: the channel and both event loop groups) that its
 * {@code NEW} life cycle would skip.
 *
 * <p>Ratis instantiates this class by name ({@link RpcType#valueOf}), through its no-argument constructor.
 */
final class RatisNettyRpc implements RpcType {

    RatisNettyRpc() {
    }

    /** The class name: how Ratis finds this type again in the server's properties. */
    @Override
    public String name() {
        return RatisNettyRpc.class.getName();
    }

    @Override
    public ServerFactory newFactory(Parameters parameters) {
        return new Factory(this, new NettyFactory(parameters));
    }

    @Override
    public String toString() {
        return "NETTY (psmr)";
    }

    /** Netty's server factory, its RPC wrapped in {@link Rpc}. */
    private record Factory(RatisNettyRpc type, NettyFactory netty) implements ServerFactory {

        @Override
        public RpcType getRpcType() {
            return type;
        }

        @Override
        public RaftServerRpc newRaftServerRpc(RaftServer server) {
            return new Rpc(netty.newRaftServerRpc(server), server);
        }

        @Override
        public LogAppender newLogAppender(RaftServer.Division server, LeaderState state, FollowerInfo f) {
            return netty.newLogAppender(server, state, f);
        }
    }

    /**
     * Netty's server RPC for what peers and clients send this one, with a failed start unchecked and a close after it
     * running Netty's {@code closeImpl} itself; what this peer sends the others (votes, entries, snapshots, elections)
     * goes over {@link RatisNettyConnection}s of its own, the same wire without Ratis 3.3.0's lock cycle: there a
     * connection's {@code close()} waits up to 5 s for the event loop under the connection's monitor while the event
     * loop, failing the connection's requests, waits for that monitor, so a leader whose follower died stalled its
     * event loop, and with it its appends to the live followers, for 5 s at each reconnection.
     */
    static final class Rpc implements RaftServerRpc {

        private static final java.util.concurrent.atomic.AtomicInteger RPCS = new java.util.concurrent.atomic.AtomicInteger();

        private final NettyRpcService netty;
        private final AtomicBoolean startFailed = new AtomicBoolean();
        private final AtomicBoolean closed = new AtomicBoolean();
        /** This peer's connections to the others: Ratis' wire without its lock cycle ({@link RatisNettyConnection}). */
        private final org.apache.ratis.util.PeerProxyMap<RatisNettyConnection> peers;
        private final org.apache.ratis.thirdparty.io.netty.channel.EventLoopGroup group;
        private final java.util.concurrent.ExecutorService replies;
        private final long timeoutMillis;

        Rpc(NettyRpcService netty, RaftServer server) {
            this.netty = netty;
            int n = RPCS.incrementAndGet();
            this.group = new org.apache.ratis.thirdparty.io.netty.channel.nio.NioEventLoopGroup(1,
                    daemons("psmr-ratis-peers-" + n));
            this.replies = java.util.concurrent.Executors.newSingleThreadExecutor(daemons("psmr-ratis-peer-replies-" + n));
            this.peers = new org.apache.ratis.util.PeerProxyMap<>(server.getId() + "-peers",
                    peer -> new RatisNettyConnection(peer, group, replies));
            this.timeoutMillis = org.apache.ratis.server.RaftServerConfigKeys.Rpc.requestTimeout(server.getProperties())
                    .toLong(java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        private static java.util.concurrent.ThreadFactory daemons(String name) {
            java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
            return r -> {
                Thread t = new Thread(r, name + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
        }

        /**
         * Sends {@code proto} to the peer {@code request} replies to, and waits for the reply up to the request timeout
         * plus the request's own; a failure resets the connection, as Ratis' Netty service does.
         */
        private org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto send(
                org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto request,
                org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto proto) throws IOException {
            RaftPeerId id = RaftPeerId.valueOf(request.getReplyId());
            try {
                java.util.concurrent.CompletableFuture<org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerReplyProto> f =
                        peers.getProxy(id).send(request.getCallId(), proto);
                try {
                    return f.get(timeoutMillis + request.getTimeoutMs(), java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    f.cancel(false);
                    throw new org.apache.ratis.protocol.exceptions.TimeoutIOException("request #" + request.getCallId()
                            + " to " + id + " not answered within " + (timeoutMillis + request.getTimeoutMs()) + " ms", e);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw org.apache.ratis.util.IOUtils.asIOException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw org.apache.ratis.util.IOUtils.toInterruptedIOException("interrupted sending to " + id, e);
                }
            } catch (IOException e) {
                peers.handleException(id, e, false);
                throw e;
            }
        }

        /**
         * Binds the port (Netty's start).
         *
         * @throws UncheckedIOException if Netty cannot start (the bind's exception is its innermost cause)
         */
        @Override
        public void start() {
            try {
                netty.start();
            } catch (IOException e) {
                startFailed.set(true);
                throw new UncheckedIOException(e.getMessage(), e);
            }
        }

        /** Closes Netty's server once; after a failed start, through {@code closeImpl}, which its close would skip. */
        @Override
        public void close() throws IOException {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            try {
                if (startFailed.get()) {
                    netty.closeImpl();
                } else {
                    netty.close();
                }
            } finally {
                peers.close();
                group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
                replies.shutdown();
            }
        }

        @Override
        public InetSocketAddress getInetSocketAddress() {
            return netty.getInetSocketAddress();
        }

        @Override
        public InetSocketAddress getClientServerAddress() {
            return netty.getClientServerAddress();
        }

        @Override
        public InetSocketAddress getAdminServerAddress() {
            return netty.getAdminServerAddress();
        }

        @Override
        public RpcType getRpcType() {
            return netty.getRpcType();
        }

        @Override
        public void addRaftPeers(Collection<RaftPeer> added) {
            netty.addRaftPeers(added);
            peers.addRaftPeers(added);
        }

        @Override
        public void handleException(RaftPeerId serverId, Exception e, boolean reconnect) {
            peers.handleException(serverId, e, reconnect);
        }

        @Override
        public void notifyNotLeader(RaftGroupId groupId) {
            netty.notifyNotLeader(groupId);
        }

        @Override
        public RaftServerAsynchronousProtocol async() {
            return netty.async();
        }

        @Override
        public RequestVoteReplyProto requestVote(RequestVoteRequestProto request) throws IOException {
            return send(request.getServerRequest(), org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto
                    .newBuilder().setRequestVoteRequest(request).build()).getRequestVoteReply();
        }

        @Override
        public AppendEntriesReplyProto appendEntries(AppendEntriesRequestProto request) throws IOException {
            return send(request.getServerRequest(), org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto
                    .newBuilder().setAppendEntriesRequest(request).build()).getAppendEntriesReply();
        }

        @Override
        public InstallSnapshotReplyProto installSnapshot(InstallSnapshotRequestProto request) throws IOException {
            return send(request.getServerRequest(), org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto
                    .newBuilder().setInstallSnapshotRequest(request).build()).getInstallSnapshotReply();
        }

        @Override
        public StartLeaderElectionReplyProto startLeaderElection(StartLeaderElectionRequestProto request)
                throws IOException {
            return send(request.getServerRequest(), org.apache.ratis.proto.netty.NettyProtos.RaftNettyServerRequestProto
                    .newBuilder().setStartLeaderElectionRequest(request).build()).getStartLeaderElectionReply();
        }
    }
}
