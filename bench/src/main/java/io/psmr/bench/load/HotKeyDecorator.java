package io.psmr.bench.load;

import io.psmr.kvstore.KvCommand;
import io.psmr.kvstore.KvLimits;
import io.psmr.kvstore.KvOp;
import io.psmr.kvstore.KvResult;
import io.psmr.kvstore.KvStatus;
import io.psmr.proxy.BatchDecorator;
import io.psmr.proxy.ClientProxy;
import io.psmr.proxy.SealingBatch;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.LongAdder;

/**
 * The core paper's conflict rate (§VII-E) as a {@link BatchDecorator}: a fraction p of a proxy's new
 * batches, exactly and evenly spread, also write one shared hot key, so every two of them conflict
 * whatever the detection mode. Batch number k (from 0, retries not counted) is marked when
 * {@code floor((k+1)·p) > floor(k·p)} ({@link #marks}): exactly {@code floor(n·p)} of the first n
 * batches, for every n.
 *
 * <p>A marked batch carries, after its client commands, one command of the hot writer: a client of
 * its own, under client id {@code proxyId << 32} (the id the proxy never hands to a client). The
 * writer needs a session like any client (OPEN_SESSION is ordered, and the replicas' session table
 * keys exactly-once on it): the first marked batch carries the writer's OPEN_SESSION, and later ones
 * {@code MULTI_PUT(hotKey = "p<proxyId>.<n>")} under the session it returned, n being the writer's
 * request sequence. A write answered SESSION_EXPIRED drops the session, and the next marked batch
 * opens a new one. These commands are not client operations: they are not in the load's history or
 * acknowledged count; {@link #writes()} (and the proxy's {@code addedCommands}) counts them.
 *
 * <p>Threads: as {@link BatchDecorator} says; {@link #onSeal} runs on the proxy's sender thread only,
 * so one instance serves one proxy. {@link #writes()} may be read from any thread.
 */
public final class HotKeyDecorator implements BatchDecorator {

    /** The hot key of load runs: outside the load generator's {@code k<i>} key space. */
    public static final String DEFAULT_KEY = "hot";

    private final double fraction;
    private final byte[] hotKey;
    private final int maxAddedBytes;
    private final LongAdder writes = new LongAdder();
    private long seq; // sender thread only
    private volatile long session; // 0 until an OPEN_SESSION is answered; written on reply threads

    /**
     * @param fraction the fraction of batches to mark, 0 to 1 (0 adds nothing and reserves no room)
     * @param hotKey   the key the marked batches write; not copied, do not modify
     * @param limits   the cluster's limits, which the key must meet
     * @throws IllegalArgumentException if the fraction is outside 0 to 1 or the key is empty or too long
     */
    public HotKeyDecorator(double fraction, byte[] hotKey, KvLimits limits) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("the hot-key batch fraction must be from 0 to 1, got " + fraction);
        }
        if (hotKey.length == 0 || hotKey.length > limits.maxKeyBytes()) {
            throw new IllegalArgumentException("the hot key must be 1 to " + limits.maxKeyBytes() + " bytes, got "
                    + hotKey.length);
        }
        this.fraction = fraction;
        this.hotKey = hotKey;
        // The longest write there can be: the largest proxy id and sequence (OPEN_SESSION has no key, so it is shorter).
        this.maxAddedBytes = fraction > 0 ? ClientProxy.bytesInBatch(write(Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE)) : 0;
    }

    /** Marks {@code percent}% of batches with the default hot key. */
    public static HotKeyDecorator percent(double percent, KvLimits limits) {
        return new HotKeyDecorator(percent / 100.0, DEFAULT_KEY.getBytes(StandardCharsets.UTF_8), limits);
    }

    /** Whether batch number {@code k} (from 0) is marked under {@code fraction}. */
    public static boolean marks(double fraction, long k) {
        return fraction > 0 && Math.floor((k + 1) * fraction) > Math.floor(k * fraction);
    }

    /** The fraction of batches it marks. */
    public double fraction() {
        return fraction;
    }

    /** The key marked batches write (do not modify). */
    public byte[] hotKey() {
        return hotKey;
    }

    /** Commands added so far: the writer's OPEN_SESSIONs and hot writes, one per marked batch. */
    public long writes() {
        return writes.sum();
    }

    @Override
    public int maxAddedCommands() {
        return fraction > 0 ? 1 : 0;
    }

    @Override
    public int maxAddedBytes() {
        return maxAddedBytes;
    }

    @Override
    public void onSeal(SealingBatch batch) {
        if (!marks(fraction, batch.number())) {
            return;
        }
        long n = ++seq;
        long s = session;
        batch.add(s == 0 ? KvCommand.openSession(batch.proxyId() << 32, n) : write(batch.proxyId(), s, n));
        writes.increment();
    }

    /** Keeps the session an OPEN_SESSION returned, and drops one the replicas say expired. */
    @Override
    public void onResult(KvCommand added, KvResult result) {
        if (added.op() == KvOp.OPEN_SESSION && result.status() == KvStatus.OK) {
            session = result.sessionId();
        } else if (result.status() == KvStatus.SESSION_EXPIRED && session == added.clientId()) {
            session = 0;
        }
    }

    private KvCommand write(long proxyId, long sessionId, long n) {
        byte[] value = ("p" + proxyId + "." + n).getBytes(StandardCharsets.UTF_8);
        return KvCommand.multiPut(sessionId, n, new byte[][] {hotKey}, new byte[][] {value});
    }

    @Override
    public String toString() {
        return "HotKeyDecorator[" + fraction + " of batches write \"" + new String(hotKey, StandardCharsets.UTF_8) + "\"]";
    }
}
