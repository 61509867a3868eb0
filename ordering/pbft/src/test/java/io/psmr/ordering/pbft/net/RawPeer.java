package io.psmr.ordering.pbft.net;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

/** A hand-driven TCP peer for refusal tests: writes whatever frames it is told, then watches for the server's close. */
final class RawPeer implements AutoCloseable {

    private final Socket socket;
    private final DataOutputStream out;

    RawPeer(InetSocketAddress to) throws IOException {
        this.socket = new Socket(to.getAddress(), to.getPort());
        this.socket.setSoTimeout(10_000);
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Writes one length-prefixed frame. */
    RawPeer frame(byte[] body) throws IOException {
        out.writeInt(body.length);
        out.write(body);
        out.flush();
        return this;
    }

    /** Writes only a length prefix (for an oversized frame whose body never needs to arrive). */
    RawPeer prefix(int length) throws IOException {
        out.writeInt(length);
        out.flush();
        return this;
    }

    /** Whether the server closed the connection within the socket timeout (end of stream or a reset). */
    boolean closedByServer() throws IOException {
        InputStream in = socket.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
