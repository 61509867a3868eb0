package io.psmr.ordering.pbft.net;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.ReferenceCountUtil;
import io.psmr.ordering.agent.BoundedQueue;
import io.psmr.ordering.transport.LengthFraming;
import io.psmr.ordering.transport.ReconnectingLink;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The private outgoing connection of one pillar to the same pillar of one peer replica: a bounded send queue in front
 * of a {@link ReconnectingLink} (connect, reconnect with backoff, hello). The pillar's agent {@link #offer offers}
 * frames; the pillar's event loop writes them while the connection is up and writable, and keeps them queued
 * (bounded) while it is not, so frames sent during a reconnect are not lost unless the queue overflows.
 *
 * <p>Backoff: a connection that the peer accepts and then refuses (a duplicate, say) must not be retried at the
 * shortest delay forever, and the peer never answers a hello. So the backoff is reset only once a connection has
 * stayed up for the policy's maximum delay.
 *
 * <p>Threads: {@link #offer} on the owning pillar's agent thread (single writer, COP §4.2.3), which is the pillar's
 * event loop when the replica runs the agent there, but safe from others too (the queue takes many producers, the
 * flush flag is a CAS); {@link #start},
 * the writes and the listener on the pillar's event loop; {@link #isConnected} and {@link #close} from any thread.
 */
final class PeerLink {

    private static final Logger LOG = LoggerFactory.getLogger(PeerLink.class);

    private final EventLoop loop;
    private final ReconnectingLink<String> link;
    private final BoundedQueue<byte[]> queue;
    private final Consumer<DropReason> drops;
    private final long stableAfterMillis;
    /** Whether a flush task is queued on the loop; lets the pillar wake the loop once per burst, not per frame. */
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final Runnable flushTask = this::flush;
    private volatile boolean connected;

    /**
     * @param hello     the hello written first on every connection
     * @param bootstrap the client bootstrap template (cloned onto {@code loop})
     * @param onChange  told on the loop whenever the link connects or disconnects
     */
    PeerLink(int replica, int peer, int pillar, EventLoop loop, PeerAddresses addresses, Bootstrap bootstrap,
             PbftTransportConfig config, Consumer<DropReason> drops, Runnable onChange) {
        this.loop = Objects.requireNonNull(loop, "loop");
        this.drops = Objects.requireNonNull(drops, "drops");
        this.queue = new BoundedQueue<>("replica-" + replica + "/pillar-" + pillar + " to replica-" + peer,
                config.sendQueueFrames());
        this.stableAfterMillis = config.reconnect().max().toMillis();
        byte[] hello = new PillarHello(replica, peer, pillar).encode();
        this.link = ReconnectingLink.to("replica " + peer + " pillar " + pillar, loop)
                .address(() -> addresses.of(peer, pillar))
                .bootstrap(bootstrap)
                .initializer(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(LengthFraming.prepender(), new OutboundHandler());
                    }
                })
                .reconnect(config.reconnect())
                .security(config.security())
                .hello(() -> Unpooled.wrappedBuffer(hello))
                .resetBackoffOnConnect(false)
                .listener(new ReconnectingLink.Listener<>() {
                    @Override
                    public void onConnected(ReconnectingLink<String> l, Channel ch) {
                        connected = true;
                        onChange.run();
                        loop.schedule(() -> {
                            if (l.channel() == ch && ch.isActive()) {
                                l.resetBackoff();
                            }
                        }, stableAfterMillis, TimeUnit.MILLISECONDS);
                        flush();
                    }

                    @Override
                    public void onDisconnected(ReconnectingLink<String> l, Channel ch) {
                        connected = false;
                        onChange.run();
                    }
                })
                .build();
    }

    /** Starts connecting. Event loop only. */
    void start() {
        link.connectIfIdle();
    }

    /**
     * The peer connected to this replica: if this link waits to retry, it connects now ({@link
     * ReconnectingLink#reconnectNow}). A new incarnation of the peer listens again at once, and its view change needs
     * the NEW-VIEW this replica may resend, within a view-change timeout shorter than the longest backoff. Any thread.
     */
    void peerIsBack() {
        loop.execute(link::reconnectNow);
    }

    /**
     * Queues {@code frame} for the peer, or drops it (counted as {@link DropReason#SEND_QUEUE_FULL}) if the queue is
     * full. The owning pillar's agent thread, or any other; never blocks.
     *
     * @return whether it was queued
     */
    boolean offer(byte[] frame) {
        if (!queue.offer(frame)) {
            drops.accept(DropReason.SEND_QUEUE_FULL);
            return false;
        }
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(flushTask);
            } catch (RejectedExecutionException e) {
                // the transport is closing: the queue goes with it
            }
        }
        return true;
    }

    /** Writes queued frames while the connection takes them. Event loop only. */
    private void flush() {
        flushScheduled.set(false); // before draining: a frame offered from now on schedules another flush
        Channel ch = link.channel();
        if (ch == null || !ch.isActive()) {
            link.connectIfIdle(); // no-op while a retry is pending; the frames wait for onConnected
            return;
        }
        int written = 0;
        byte[] frame;
        while (ch.isWritable() && (frame = queue.poll()) != null) {
            ch.write(Unpooled.wrappedBuffer(frame), ch.voidPromise());
            written++;
        }
        if (written > 0) {
            ch.flush();
        }
    }

    /** Whether the connection is up (a snapshot). Any thread. */
    boolean isConnected() {
        return connected;
    }

    /** Frames waiting in the send queue (a snapshot). Any thread. */
    int queued() {
        return queue.size();
    }

    /** Stops reconnecting and closes the connection. Any thread. */
    void close() {
        link.close();
    }

    /** The peer answers nothing: reads are discarded; the queue drains again when the connection becomes writable. */
    private final class OutboundHandler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                flush();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("outgoing connection {} failed: {}", ctx.channel(), cause.toString());
            ctx.close();
        }
    }
}
