package io.psmr.ordering.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.Test;

/** Which socket I/O a JVM gets, and that its loop and channel types belong together. */
class SocketIoTest {

    @Test
    void epollWhereItLoadsUnlessNioIsForced() {
        SocketIo native_ = Epoll.isAvailable() ? SocketIo.EPOLL : SocketIo.NIO;
        assertEquals(native_, SocketIo.choose(""));
        assertEquals(native_, SocketIo.choose("epoll"));
        assertEquals(SocketIo.NIO, SocketIo.choose("nio"));
        assertEquals(System.getProperty(SocketIo.PROPERTY, "").equals("nio") ? SocketIo.NIO : native_, SocketIo.current());
    }

    @Test
    void aBadValueIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SocketIo.choose("kqueue"));
        assertEquals("-Dpsmr.io must be epoll or nio, got 'kqueue'", e.getMessage());
    }

    @Test
    void eachTransportNamesItsOwnChannels() {
        assertEquals(EpollSocketChannel.class, SocketIo.EPOLL.socketChannel());
        assertEquals(NioServerSocketChannel.class, SocketIo.NIO.serverSocketChannel());
    }

    @Test
    void onLinuxX86TheNativeTransportLoads() {
        String os = System.getProperty("os.name").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch");
        if (os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
            assertEquals(true, Epoll.isAvailable(), () -> "epoll did not load: " + Epoll.unavailabilityCause());
        }
    }
}
