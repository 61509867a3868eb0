package io.psmr.kvstore;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exactly-once table of a replica: per client, the results of its latest requests, so that a
 * retried request is answered, not executed again.
 *
 * <p><b>The rule</b> (decided on the delivery thread, in delivery order, so every replica decides
 * alike whatever its workers do). For a command of client {@code c} with sequence {@code s}, let
 * {@code h} be the highest sequence of {@code c} admitted so far (0 for a client not in the table)
 * and {@code W} the window:
 * <ul>
 *   <li>{@code s > h}: new. It executes, and its result is cached; {@code h} becomes {@code s}.</li>
 *   <li>{@code h - W < s ≤ h}: if {@code s} was admitted before, a duplicate: it does not execute
 *       and is answered with the first one's result (once that is known); otherwise new (requests of
 *       one client may be delivered out of order, for example after a retry).</li>
 *   <li>{@code s ≤ h - W}: too old to tell. Refused with {@link KvStatus#REJECTED}, never executed.</li>
 * </ul>
 * Only the first delivered command with a given (client, sequence) counts; a later one with other
 * contents still gets the first one's answer.
 *
 * <p><b>Bounds.</b> {@code W} results per client, and at most {@code maxClients} clients: admitting
 * a new client beyond that forgets the client whose last request was delivered longest ago
 * (deterministic: it depends on delivery order only). A forgotten client is treated as new when it
 * returns, so its retries of requests admitted before it was forgotten could execute again: clients
 * that pause longer than {@code maxClients} other clients' activity should take a new client id.
 * Memory is at most {@code maxClients × W} results, each at most one value.
 *
 * <p>Not thread-safe: only the delivery thread admits. Workers touch only the {@link CachedReply}
 * entries, which are thread-safe.
 */
final class ReplyCache {

    private final int window;
    private final int maxClients;
    private final LinkedHashMap<Long, ClientWindow> clients;

    ReplyCache(int window, int maxClients) {
        if (window < 1 || maxClients < 1) {
            throw new IllegalArgumentException("reply cache window and client count must be at least 1, got "
                    + window + " and " + maxClients);
        }
        this.window = window;
        this.maxClients = maxClients;
        this.clients = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, ClientWindow> eldest) {
                return size() > ReplyCache.this.maxClients;
            }
        };
    }

    /** The verdict for one command. */
    record Admission(CachedReply entry, boolean duplicate, String refusal) {
    }

    /** Applies the rule to one delivered command. */
    Admission admit(long clientId, long seq) {
        ClientWindow w = clients.get(clientId);
        if (w == null) {
            w = new ClientWindow(window);
            clients.put(clientId, w);
        }
        if (seq > w.highest) {
            w.highest = seq;
            return new Admission(w.store(seq), false, null);
        }
        if (seq <= w.highest - window) {
            return new Admission(null, false, "request " + seq + " of client " + clientId
                    + " is older than the reply cache window: the client's highest request is " + w.highest
                    + " and the replica remembers the last " + window + "; it may have executed, so it is not executed again");
        }
        CachedReply seen = w.find(seq);
        if (seen != null) {
            return new Admission(seen, true, null);
        }
        return new Admission(w.store(seq), false, null);
    }

    /** Number of clients in the table. */
    int clients() {
        return clients.size();
    }

    /**
     * Writes the table for a snapshot: the window, then each client from the least to the most
     * recently admitted (so {@link #readFrom} rebuilds the same eviction order), with its highest
     * sequence and its remembered results. Only while nothing executes: every result must be known.
     *
     * @throws IOException if a remembered command has no result yet
     */
    void writeTo(DataOutput out) throws IOException {
        out.writeInt(window);
        out.writeInt(clients.size());
        for (Map.Entry<Long, ClientWindow> e : clients.entrySet()) {
            ClientWindow w = e.getValue();
            int n = 0;
            for (CachedReply r : w.entries) {
                n += r == null ? 0 : 1;
            }
            out.writeLong(e.getKey());
            out.writeLong(w.highest);
            out.writeInt(n);
            for (int i = 0; i < w.entries.length; i++) {
                CachedReply r = w.entries[i];
                if (r == null) {
                    continue;
                }
                KvResult res = r.result();
                if (res == null) {
                    throw new IOException("request " + w.seqs[i] + " of client " + e.getKey()
                            + " has no result yet; a snapshot needs a quiescent replica");
                }
                out.writeLong(w.seqs[i]);
                writeResult(res, out);
            }
        }
    }

    /**
     * Replaces the table with one {@link #writeTo} wrote.
     *
     * @throws IOException if it was written with another window, or is malformed
     */
    void readFrom(DataInput in) throws IOException {
        int w = in.readInt();
        if (w != window) {
            throw new IOException("the snapshot's reply cache window is " + w + " but this replica's is " + window
                    + "; replicas must share it");
        }
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("the snapshot's reply cache claims " + n + " clients");
        }
        clients.clear();
        for (int c = 0; c < n; c++) {
            long clientId = in.readLong();
            ClientWindow cw = new ClientWindow(window);
            cw.highest = in.readLong();
            int results = in.readInt();
            if (results < 0 || results > window) {
                throw new IOException("client " + clientId + " claims " + results + " results in a window of " + window);
            }
            for (int i = 0; i < results; i++) {
                long seq = in.readLong();
                cw.store(seq).complete(readResult(in));
            }
            clients.put(clientId, cw);
        }
    }

    private static void writeResult(KvResult r, DataOutput out) throws IOException {
        out.writeByte(r.status().code());
        out.writeInt(r.value() == null ? -1 : r.value().length);
        if (r.value() != null) {
            out.write(r.value());
        }
        byte[] detail = r.detail().getBytes(StandardCharsets.UTF_8);
        out.writeInt(detail.length);
        out.write(detail);
    }

    private static KvResult readResult(DataInput in) throws IOException {
        int code = in.readUnsignedByte();
        KvStatus status = KvStatus.fromCode(code);
        if (status == null) {
            throw new IOException("unknown result status code " + code);
        }
        byte[] value = readBytes(in, true);
        byte[] detail = readBytes(in, false);
        return new KvResult(status, value, new String(detail, StandardCharsets.UTF_8));
    }

    private static byte[] readBytes(DataInput in, boolean nullable) throws IOException {
        int len = in.readInt();
        if (len == -1 && nullable) {
            return null;
        }
        // A value or a detail is bounded by the store's limits; refuse lengths no limit allows.
        if (len < 0 || len > (64 << 20)) {
            throw new IOException("a cached result claims " + len + " bytes");
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return b;
    }

    /** One client's window: slot {@code s mod W} holds request {@code s} if it is in the window. */
    private static final class ClientWindow {
        long highest;
        final long[] seqs;
        final CachedReply[] entries;

        ClientWindow(int window) {
            seqs = new long[window];
            entries = new CachedReply[window];
        }

        CachedReply find(long seq) {
            int slot = (int) Math.floorMod(seq, (long) seqs.length);
            return seqs[slot] == seq ? entries[slot] : null;
        }

        CachedReply store(long seq) {
            int slot = (int) Math.floorMod(seq, (long) seqs.length);
            CachedReply e = new CachedReply();
            seqs[slot] = seq;
            entries[slot] = e;
            return e;
        }
    }
}
