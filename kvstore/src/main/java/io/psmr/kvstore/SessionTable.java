package io.psmr.kvstore;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The exactly-once table of a replica: client sessions, each with the results of its latest
 * requests, so that a retried request is answered, never executed a second time.
 *
 * <p><b>Sessions.</b> A client first sends {@link KvOp#OPEN_SESSION}. The log assigns the session
 * its id: {@code instance × 65,536 + index} of the command that opened it, so ids are unique, grow
 * with the log, and are the same on every replica. The client then sends every request under that
 * id ({@link KvCommand#clientId()}). Using a session renews it.
 *
 * <p><b>Expiry, by log time.</b> A session not used for more than {@code timeoutInstances}
 * delivered instances expires: at the start of each instance the table drops the sessions idle
 * longer than that. When the table holds {@code maxSessions} sessions, opening another evicts the
 * one used longest ago. Both depend only on the delivered sequence, never on a clock. A request
 * under a session that is not open is answered {@link KvStatus#SESSION_EXPIRED} and not executed:
 * a forgotten client can learn that its request's fate is unknown, but it can never have the
 * request executed twice.
 *
 * <p><b>The rule within a session</b> (decided on the delivery thread, in delivery order). For a
 * command with sequence {@code s}, let {@code h} be the highest sequence admitted so far in the
 * session (0 at first) and {@code W} the window:
 * <ul>
 *   <li>{@code s > h}: new. It executes, and its result is kept; {@code h} becomes {@code s}.</li>
 *   <li>{@code h - W < s ≤ h}: if {@code s} was admitted before, a duplicate: it does not execute
 *       and is answered with the first one's result (once that is known); otherwise new (requests of
 *       one client may be delivered out of order, for example after a retry).</li>
 *   <li>{@code s ≤ h - W}: too old to tell. Refused with {@link KvStatus#REJECTED}, never executed.</li>
 * </ul>
 *
 * <p><b>Bounds.</b> At most {@code maxSessions} sessions of {@code W} results each, every result at
 * most one value: memory is bounded by {@code maxSessions × W} values. The table is part of a
 * replica's checkpoint ({@link #writeTo}).
 *
 * <p>Not thread-safe: only the delivery thread admits. Workers touch only the {@link CachedReply}
 * entries, which are thread-safe.
 */
public final class SessionTable {

    /** Session ids are {@code instance × SESSION_ID_STRIDE + index}; batches hold fewer commands. */
    static final long SESSION_ID_STRIDE = 1L << 16;

    private final int window;
    private final int maxSessions;
    private final long timeoutInstances;
    private final LinkedHashMap<Long, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);
    private long expired;
    private long evicted;

    SessionTable(int window, int maxSessions, long timeoutInstances) {
        if (window < 1 || maxSessions < 1 || timeoutInstances < 1) {
            throw new IllegalArgumentException("session window, session count and session timeout must be at least 1, got "
                    + window + ", " + maxSessions + " and " + timeoutInstances);
        }
        this.window = window;
        this.maxSessions = maxSessions;
        this.timeoutInstances = timeoutInstances;
    }

    /** The verdict for one command: a new entry, a duplicate's entry, or a refusal with its status. */
    record Admission(CachedReply entry, boolean duplicate, KvStatus refusalStatus, String refusal) {
    }

    /** Drops sessions idle for more than the timeout; call at the start of each delivered instance. */
    void expire(long instance) {
        Iterator<Session> it = sessions.values().iterator();
        while (it.hasNext()) {
            Session s = it.next(); // least recently used first
            if (instance - s.lastUsed <= timeoutInstances) {
                return;
            }
            it.remove();
            expired++;
        }
    }

    /**
     * The id of the session that the OPEN_SESSION at {@code index} of the batch at {@code instance} opens: every replica
     * gives it that id, so a client that knows where its OPEN_SESSION was ordered knows the id without the reply.
     */
    public static long sessionId(long instance, int index) {
        if (index < 0 || index >= SESSION_ID_STRIDE) {
            throw new IllegalArgumentException("command index " + index + " does not fit a session id");
        }
        return instance * SESSION_ID_STRIDE + index;
    }

    /** Opens a session for the OPEN_SESSION at {@code index} of {@code instance}; returns its id. */
    long open(long instance, int index) {
        long id = sessionId(instance, index);
        evictIfFull();
        Session s = new Session(window);
        s.lastUsed = instance;
        sessions.put(id, s);
        return id;
    }

    /**
     * Opens session {@code id}, which another table opened (MLBFT keeps one table per partition and opens a session in
     * all of them), last used at {@code instance} of this table; as {@link #open}, evicts the least recently used session
     * when the table is full. A session already open here is only renewed.
     */
    void adopt(long id, long instance) {
        Session open = sessions.get(id);
        if (open != null) {
            open.lastUsed = instance;
            return;
        }
        evictIfFull();
        Session s = new Session(window);
        s.lastUsed = instance;
        sessions.put(id, s);
    }

    /** Makes room for one more session by evicting the least recently used one, if the table is full. */
    private void evictIfFull() {
        if (sessions.size() >= maxSessions) {
            Iterator<Session> it = sessions.values().iterator();
            it.next();
            it.remove();
            evicted++;
        }
    }

    /** Applies the rule to one delivered command of session {@code sessionId}, at {@code instance}. */
    Admission admit(long sessionId, long seq, long instance) {
        Session w = sessions.get(sessionId);
        if (w == null) {
            long openedAt = Math.floorDiv(sessionId, SESSION_ID_STRIDE);
            String why = openedAt < 1 || openedAt >= instance
                    ? "session " + sessionId + " was never opened: send OPEN_SESSION and use the id it returns"
                    : "session " + sessionId + " is not open: it expired after " + timeoutInstances
                            + " idle instances or was evicted for a newer one (at most " + maxSessions
                            + " sessions); request " + seq + " was not executed now, and whether an earlier copy of it "
                            + "executed is unknown: open a new session";
            return new Admission(null, false, KvStatus.SESSION_EXPIRED, why);
        }
        w.lastUsed = instance;
        if (seq > w.highest) {
            w.highest = seq;
            return new Admission(w.store(seq), false, null, null);
        }
        if (seq <= w.highest - window) {
            return new Admission(null, false, KvStatus.REJECTED, "request " + seq + " of session " + sessionId
                    + " is older than the reply cache window: the session's highest request is " + w.highest
                    + " and the replica remembers the last " + window + "; it may have executed, so it is not executed again");
        }
        CachedReply seen = w.find(seq);
        if (seen != null) {
            return new Admission(seen, true, null, null);
        }
        return new Admission(w.store(seq), false, null, null);
    }

    /** Number of open sessions. */
    int size() {
        return sessions.size();
    }

    /** Sessions dropped for being idle, since this table was made or restored. */
    long expiredCount() {
        return expired;
    }

    /** Sessions evicted to make room, since this table was made or restored. */
    long evictedCount() {
        return evicted;
    }

    /**
     * Writes the table for a checkpoint: the settings, then each session from the least to the most
     * recently used (so {@link #readFrom} rebuilds the same eviction order), with its last use, its
     * highest sequence and its remembered results. Only while nothing executes: every result must be
     * known.
     *
     * @throws IOException if a remembered command has no result yet
     */
    public void writeTo(DataOutput out) throws IOException {
        out.writeInt(window);
        out.writeInt(maxSessions);
        out.writeLong(timeoutInstances);
        out.writeInt(sessions.size());
        for (Map.Entry<Long, Session> e : sessions.entrySet()) {
            Session w = e.getValue();
            int n = 0;
            for (CachedReply r : w.entries) {
                n += r == null ? 0 : 1;
            }
            out.writeLong(e.getKey());
            out.writeLong(w.lastUsed);
            out.writeLong(w.highest);
            out.writeInt(n);
            for (int i = 0; i < w.entries.length; i++) {
                CachedReply r = w.entries[i];
                if (r == null) {
                    continue;
                }
                KvResult res = r.result();
                if (res == null) {
                    throw new IOException("request " + w.seqs[i] + " of session " + e.getKey()
                            + " has no result yet; a checkpoint needs a quiescent replica");
                }
                out.writeLong(w.seqs[i]);
                writeResult(res, out);
            }
        }
    }

    /**
     * Replaces the table with one {@link #writeTo} wrote.
     *
     * @throws IOException if it was written with other settings, or is malformed
     */
    public void readFrom(DataInput in) throws IOException {
        int w = in.readInt();
        int max = in.readInt();
        long timeout = in.readLong();
        if (w != window || max != maxSessions || timeout != timeoutInstances) {
            throw new IOException("the checkpoint's session table has window " + w + ", " + max + " sessions and a timeout of "
                    + timeout + " instances, but this replica's has " + window + ", " + maxSessions + " and "
                    + timeoutInstances + "; replicas must share them");
        }
        int n = in.readInt();
        if (n < 0 || n > maxSessions) {
            throw new IOException("the checkpoint's session table claims " + n + " sessions; at most " + maxSessions);
        }
        sessions.clear();
        for (int c = 0; c < n; c++) {
            long id = in.readLong();
            Session s = new Session(window);
            s.lastUsed = in.readLong();
            s.highest = in.readLong();
            int results = in.readInt();
            if (results < 0 || results > window) {
                throw new IOException("session " + id + " claims " + results + " results in a window of " + window);
            }
            for (int i = 0; i < results; i++) {
                long seq = in.readLong();
                s.store(seq).complete(readResult(in));
            }
            sessions.put(id, s);
        }
        expired = 0;
        evicted = 0;
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

    /** One session: its last use, and slot {@code s mod W} holds request {@code s} if it is in the window. */
    private static final class Session {
        long lastUsed;
        long highest;
        final long[] seqs;
        final CachedReply[] entries;

        Session(int window) {
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
