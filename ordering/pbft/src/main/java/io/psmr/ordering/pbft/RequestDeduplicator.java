package io.psmr.ordering.pbft;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Exactly-once filter of the execution stage: a request committed twice (a client's retransmission, or two leaders
 * proposing the same pending request in different instances) is delivered only the first time. A pure function of
 * the released sequence, so every replica skips the same ones.
 *
 * <h2>Bounded memory</h2>
 * Per client it remembers the highest number released and which of the {@code window} numbers below it were released;
 * a number more than {@code window} below the highest is taken for a duplicate. That is exact while a client has at
 * most {@code window} requests outstanding at once (a request still unordered is then within {@code window} of every
 * number released after it). It remembers at most {@code maxClients} clients, forgetting the one released least
 * recently (an order that depends only on the released sequence): a forgotten client's old numbers are no longer
 * recognised, so clients idle for that long must not retransmit old requests.
 *
 * <p>Not thread-safe: the execution stage's owner calls it.
 */
public final class RequestDeduplicator {

    private final int window;
    private final int maxClients;
    private final LinkedHashMap<Long, ClientWindow> clients;

    private static final class ClientWindow {
        long highest = Long.MIN_VALUE;
        final BitSet seen; // bit i: number highest - i released

        ClientWindow(int window) {
            seen = new BitSet(window);
        }
    }

    /**
     * @param window     request numbers remembered per client below its highest, at least 1
     * @param maxClients clients remembered, at least 1
     */
    public RequestDeduplicator(int window, int maxClients) {
        if (window < 1) {
            throw new IllegalArgumentException("deduplication window must be at least 1, got " + window);
        }
        if (maxClients < 1) {
            throw new IllegalArgumentException("maxClients must be at least 1, got " + maxClients);
        }
        this.window = window;
        this.maxClients = maxClients;
        this.clients = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, ClientWindow> eldest) {
                return size() > RequestDeduplicator.this.maxClients;
            }
        };
    }

    /**
     * Records that request {@code number} of {@code client} is being released.
     *
     * @return true the first time (deliver it), false for a duplicate or a number too old to tell (skip it)
     */
    public boolean firstRelease(long client, long number) {
        ClientWindow w = clients.computeIfAbsent(client, c -> new ClientWindow(window));
        if (w.highest == Long.MIN_VALUE) {
            w.highest = number;
            w.seen.set(0);
            return true;
        }
        if (number > w.highest) {
            long shift = number - w.highest;
            if (shift >= window) {
                w.seen.clear();
            } else {
                // Bit i becomes bit i + shift: numbers move further below the new highest.
                BitSet moved = new BitSet(window);
                for (int i = w.seen.nextSetBit(0); i >= 0 && i + shift < window; i = w.seen.nextSetBit(i + 1)) {
                    moved.set((int) (i + shift));
                }
                w.seen.clear();
                w.seen.or(moved);
            }
            w.highest = number;
            w.seen.set(0);
            return true;
        }
        long below = w.highest - number;
        if (below >= window || w.seen.get((int) below)) {
            return false;
        }
        w.seen.set((int) below);
        return true;
    }

    /**
     * Each remembered client's highest released number, least recently released first (the order {@link #writeTo}
     * keeps). A replica that installs a transferred state tells its pillars these ({@code clientExecuted}).
     */
    public void forEachClient(java.util.function.ObjLongConsumer<Long> action) {
        for (Map.Entry<Long, ClientWindow> e : clients.entrySet()) {
            action.accept(e.getKey(), e.getValue().highest);
        }
    }

    /**
     * Writes the filter deterministically: window, maxClients, the number of clients, then per client (least recently
     * released first) its id, highest number and the bitmap of the numbers below it (length-prefixed
     * {@link BitSet#toByteArray()}). Equal release histories give equal bytes. Big-endian.
     */
    public void writeTo(java.io.DataOutputStream out) throws java.io.IOException {
        out.writeInt(window);
        out.writeInt(maxClients);
        out.writeInt(clients.size());
        for (Map.Entry<Long, ClientWindow> e : clients.entrySet()) {
            out.writeLong(e.getKey());
            out.writeLong(e.getValue().highest);
            byte[] bits = e.getValue().seen.toByteArray();
            out.writeInt(bits.length);
            out.write(bits);
        }
    }

    /**
     * Reads {@link #writeTo}'s output.
     *
     * @throws java.io.IOException naming what is wrong (a bad bound, a truncated or oversized part)
     */
    public static RequestDeduplicator readFrom(java.io.DataInputStream in) throws java.io.IOException {
        int window = in.readInt();
        int maxClients = in.readInt();
        int count = in.readInt();
        if (window < 1 || maxClients < 1 || count < 0 || count > maxClients) {
            throw new java.io.IOException("duplicate table: window " + window + ", maxClients " + maxClients
                    + ", clients " + count + " are not a valid table");
        }
        RequestDeduplicator d = new RequestDeduplicator(window, maxClients);
        for (int i = 0; i < count; i++) {
            long client = in.readLong();
            ClientWindow w = new ClientWindow(window);
            w.highest = in.readLong();
            int n = in.readInt();
            if (n < 0 || n > (window + 7) / 8) {
                throw new java.io.IOException("duplicate table: client " + client + " has a bitmap of " + n
                        + " bytes, more than a window of " + window + " needs");
            }
            byte[] bits = new byte[n];
            in.readFully(bits);
            w.seen.or(BitSet.valueOf(bits));
            if (d.clients.put(client, w) != null) {
                throw new java.io.IOException("duplicate table: client " + client + " appears twice");
            }
        }
        return d;
    }

    /** Clients remembered now. */
    public int clientCount() {
        return clients.size();
    }
}
