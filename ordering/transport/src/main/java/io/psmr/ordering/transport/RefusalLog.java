package io.psmr.ordering.transport;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * Refuses bad peers: closes only the offending connection, counts every refusal, and logs at most one WARN line per
 * peer per interval, so a peer that keeps sending garbage (or keeps reconnecting to do so) cannot flood the log.
 * The line names the owner, the peer and the problem; the next line logged for that peer also says how many of its
 * refusals were not logged since.
 *
 * <p>Peers are told apart by a key the caller chooses: an identified peer's id (a node id, a proxy id), or for a
 * peer not yet identified its host ({@link #hostOf(Channel)}), since its port changes with every connection. The
 * log remembers at most {@code maxPeers} keys, dropping the least recently refused one beyond that (whose next
 * refusal is then logged at once), so memory is bounded whatever the peers do.
 *
 * <p>Each refusal may also name a reason (an enum constant or a string constant of the caller, such as
 * {@link FrameServer#CONNECTION_LIMIT}), counted apart ({@link #refusals(Object)}, {@link #refusalsByReason()}) for a
 * status page; refusals without one count under {@link #UNCLASSIFIED}. At most {@value #MAX_REASONS} reasons are
 * kept, unclassified included (later new ones count as unclassified): reasons are meant to be a fixed set, not per-message text.
 *
 * <p>Thread-safe: its methods may be called from any thread (normally the owner's event loop); they never block
 * on anything but a short internal lock. The clock is passed in, so tests can drive the interval.
 */
public final class RefusalLog {

    /** The default interval between two WARN lines about the same peer. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
    /** The default number of peers remembered. */
    public static final int DEFAULT_MAX_PEERS = 1024;
    /** The reason of a refusal that named none. */
    public static final String UNCLASSIFIED = "unclassified";
    /** The most reasons counted apart. */
    public static final int MAX_REASONS = 64;

    private final Logger logger;
    private final Supplier<String> owner;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final LongAdder refusals = new LongAdder();
    private final Map<Object, LongAdder> byReason = new ConcurrentHashMap<>();
    private final Map<Object, PeerState> peers; // guarded by this

    /** When the peer's last line was logged, and how many refusals of it were not logged since. */
    private static final class PeerState {
        long loggedAtNanos;
        long unlogged;
    }

    /**
     * @param logger    where the WARN lines go (the owner's logger)
     * @param owner     names the owner at the start of each line, e.g. {@code "node 2"} or {@code "reply server /1.2.3.4:5"};
     *                  asked only when a line is logged, so it may name what is known only later (a bound port)
     * @param interval  at most one line per peer within this; at least 1 ms
     * @param maxPeers  how many peers' last line it remembers; at least 1
     * @param nanoClock a monotonic clock in nanoseconds, normally {@code System::nanoTime}
     */
    public RefusalLog(Logger logger, Supplier<String> owner, Duration interval, int maxPeers, LongSupplier nanoClock) {
        this.logger = Objects.requireNonNull(logger, "logger");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        if (interval.toMillis() < 1 || maxPeers < 1) {
            throw new IllegalArgumentException("refusal log needs an interval of at least 1 ms and at least 1 peer, got "
                    + interval + " and " + maxPeers);
        }
        this.intervalNanos = interval.toNanos();
        this.peers = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Object, PeerState> eldest) {
                return size() > maxPeers;
            }
        };
    }

    /** A log with the default interval and peer bound, on the system's monotonic clock. */
    public static RefusalLog perMinute(Logger logger, Supplier<String> owner) {
        return new RefusalLog(logger, owner, DEFAULT_INTERVAL, DEFAULT_MAX_PEERS, System::nanoTime);
    }

    /**
     * Refuses the connection {@code ch}: if it is still open, counts the refusal, logs it (rate-limited per
     * {@code peerKey}) and closes it. A connection already refused (closed) is ignored, so frames still queued in
     * its decoder do not count twice.
     *
     * @param peerKey  tells this peer apart from others (see the class comment)
     * @param peer     describes the peer in the line, e.g. {@code "node 3 at /10.0.0.3:41234"}
     * @param why      the problem, e.g. {@code "malformed frame: bad version 9"}
     * @return whether it refused (false when {@code ch} was already closed)
     */
    public boolean refuse(Channel ch, Object peerKey, String peer, String why) {
        return refuse(ch, peerKey, peer, UNCLASSIFIED, why);
    }

    /**
     * Like {@link #refuse(Channel, Object, String, String)}, also counting the refusal under {@code reason}.
     *
     * @param reason a constant naming the kind of problem (an enum constant, say); counted apart
     */
    public boolean refuse(Channel ch, Object peerKey, String peer, Object reason, String why) {
        if (!ch.isActive()) {
            return false;
        }
        record(peerKey, reason, "closing connection with " + peer, why);
        ch.close();
        return true;
    }

    /**
     * Counts one refusal of {@code peerKey} and logs a WARN line {@code "<owner>: <what>: <why>"} unless one was
     * logged for the same key within the interval.
     *
     * @return whether a line was logged
     */
    public boolean record(Object peerKey, String what, String why) {
        return record(peerKey, UNCLASSIFIED, what, why);
    }

    /** Like {@link #record(Object, String, String)}, also counting the refusal under {@code reason}. */
    public boolean record(Object peerKey, Object reason, String what, String why) {
        Objects.requireNonNull(peerKey, "peerKey");
        Objects.requireNonNull(reason, "reason");
        refusals.increment();
        LongAdder count = byReason.get(reason);
        (count != null ? count : counterOf(reason)).increment();
        long now = nanoClock.getAsLong();
        long unloggedBefore;
        synchronized (this) {
            PeerState state = peers.get(peerKey);
            if (state != null && now - state.loggedAtNanos < intervalNanos) {
                state.unlogged++;
                return false;
            }
            if (state == null) {
                state = new PeerState();
                peers.put(peerKey, state);
            }
            unloggedBefore = state.unlogged;
            state.unlogged = 0;
            state.loggedAtNanos = now;
        }
        if (unloggedBefore == 0) {
            logger.warn("{}: {}: {}", owner.get(), what, why);
        } else {
            logger.warn("{}: {}: {} ({} more refusals of this peer not logged since the last line)", owner.get(), what, why,
                    unloggedBefore);
        }
        return true;
    }

    /** The counter of a reason not counted yet, or unclassified's when the bound is reached (one slot is kept for it). */
    private synchronized LongAdder counterOf(Object reason) {
        LongAdder count = byReason.get(reason);
        if (count != null) {
            return count;
        }
        int named = byReason.size() - (byReason.containsKey(UNCLASSIFIED) ? 1 : 0);
        Object key = reason.equals(UNCLASSIFIED) || named < MAX_REASONS - 1 ? reason : UNCLASSIFIED;
        return byReason.computeIfAbsent(key, r -> new LongAdder());
    }

    /** Every refusal counted so far, logged or not. */
    public long refusals() {
        return refusals.sum();
    }

    /** Refusals counted so far under {@code reason}. */
    public long refusals(Object reason) {
        LongAdder count = byReason.get(reason);
        return count == null ? 0 : count.sum();
    }

    /** A snapshot of the refusals counted so far, by reason (reasons never refused are absent). */
    public Map<Object, Long> refusalsByReason() {
        Map<Object, Long> snapshot = new LinkedHashMap<>();
        byReason.forEach((reason, count) -> snapshot.put(reason, count.sum()));
        return snapshot;
    }

    /** The remote host of {@code ch}, the key for a peer that has not identified itself yet. */
    public static Object hostOf(Channel ch) {
        SocketAddress remote = ch.remoteAddress();
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null ? inet.getAddress() : inet.getHostString();
        }
        return String.valueOf(remote);
    }
}
