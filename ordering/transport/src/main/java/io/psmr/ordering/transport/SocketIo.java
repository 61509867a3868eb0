package io.psmr.ordering.transport;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/**
 * The socket I/O every psmr event loop uses: Linux's epoll through Netty's native transport where it loads, Java NIO
 * elsewhere. Epoll wakes a loop once per timer deadline (NIO's millisecond select timeouts wake it several times
 * around each) and reads and writes without NIO's selector bookkeeping, which is most of an idle node's cost.
 *
 * <p>{@code -Dpsmr.io=nio} forces NIO. Event loops, client bootstraps and servers all ask this class, so their channel
 * types always match their loop. Immutable; any thread.
 */
public enum SocketIo {
    /** Netty's native epoll transport (Linux). */
    EPOLL,
    /** Java NIO: every platform. */
    NIO;

    /** The system property that forces {@code nio}. */
    public static final String PROPERTY = "psmr.io";

    private static final SocketIo CURRENT = choose(System.getProperty(PROPERTY, ""));

    static SocketIo choose(String forced) {
        return switch (forced) {
            case "nio" -> NIO;
            case "", "epoll" -> Epoll.isAvailable() ? EPOLL : NIO;
            default -> throw new IllegalArgumentException("-D" + PROPERTY + " must be epoll or nio, got '" + forced + "'");
        };
    }

    /** What this JVM uses. */
    public static SocketIo current() {
        return CURRENT;
    }

    /** The event loops' I/O handler. */
    public IoHandlerFactory handlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** The class of client sockets, for a {@code Bootstrap}. */
    public Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** The class of listening sockets, for a {@code ServerBootstrap}. */
    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
