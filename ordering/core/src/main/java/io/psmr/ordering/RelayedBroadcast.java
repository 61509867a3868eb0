package io.psmr.ordering;

/**
 * An {@link AtomicBroadcast} whose protocol's deliveries reach subscribers through a {@link RelayLog}: the half of
 * the SPI that reads the order ({@link #subscribe}, {@link #lastInstance}, {@link #firstRetainedInstance}) is the
 * relay log's, the same for every networked protocol; a subclass adds how values enter its protocol.
 *
 * <p>Thread safety: as {@link RelayLog}; the reading methods from any thread.
 */
public abstract class RelayedBroadcast implements AtomicBroadcast {

    /** The retained log; only the subclass's delivery thread appends to it. */
    protected final RelayLog log;

    /** @param log the relay log this broadcast delivers through, not yet started */
    protected RelayedBroadcast(RelayLog log) {
        this.log = java.util.Objects.requireNonNull(log, "log");
    }

    @Override
    public final Subscription subscribe(long fromInstance, DeliveryListener listener) {
        return log.subscribe(fromInstance, listener);
    }

    @Override
    public final long lastInstance() {
        return log.lastInstance();
    }

    @Override
    public final long firstRetainedInstance() {
        return log.firstRetainedInstance();
    }
}
