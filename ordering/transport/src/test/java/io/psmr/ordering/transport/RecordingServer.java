package io.psmr.ordering.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FrameServer} for tests: records every frame it receives as text, in order, and every connection closed.
 * It refuses a frame reading {@code "bad"} as malformed, and anything its framing refuses.
 */
final class RecordingServer implements AutoCloseable {

    final EventLoopThread thread = EventLoopThread.start("test-frame-server");
    final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
    final BlockingQueue<String> closed = new LinkedBlockingQueue<>();
    final AtomicInteger accepted = new AtomicInteger();
    final RefusalLog refusals = RefusalLog.perMinute(LoggerFactory.getLogger(RecordingServer.class), () -> "test server");
    final FrameServer server;

    RecordingServer(InetSocketAddress bind, FrameServer.Limits limits) {
        this(bind, limits, LinkSecurity.plain(), LinkSecurity.Admit.MEMBERS);
    }

    RecordingServer(InetSocketAddress bind, FrameServer.Limits limits, LinkSecurity security, LinkSecurity.Admit admit) {
        try {
            this.server = bind(bind, limits, security, admit);
        } catch (RuntimeException e) {
            thread.shutdown();
            throw e;
        }
    }

    private FrameServer bind(InetSocketAddress bind, FrameServer.Limits limits, LinkSecurity security, LinkSecurity.Admit admit) {
        return FrameServer.bind(thread.loop(), bind, limits, refusals, security, admit, ch -> {
            accepted.incrementAndGet();
            ch.closeFuture().addListener(f -> closed.add(String.valueOf(ch.remoteAddress())));
            ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    String text = new String(LengthFraming.take(msg), StandardCharsets.UTF_8);
                    if (text.equals("bad")) {
                        refusals.refuse(ctx.channel(), RefusalLog.hostOf(ctx.channel()), "peer", "malformed frame");
                    } else {
                        frames.add(text);
                    }
                }

                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    String why = LengthFraming.refusalReason(cause, limits.maxFrameBytes());
                    if (why == null) {
                        ctx.close();
                    } else {
                        refusals.refuse(ctx.channel(), RefusalLog.hostOf(ctx.channel()), "peer", why);
                    }
                }
            });
        });
    }

    InetSocketAddress address() {
        return server.localAddress();
    }

    int connectionCount() throws Exception {
        return thread.loop().submit(server::connectionCount).get(10, TimeUnit.SECONDS);
    }

    String nextFrame() throws InterruptedException {
        return frames.poll(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        thread.shutdown(server::close);
    }
}
