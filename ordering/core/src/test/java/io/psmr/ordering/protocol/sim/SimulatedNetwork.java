package io.psmr.ordering.protocol.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToIntFunction;

/**
 * A seeded, single-threaded network for simulating a cluster of protocol cores in one thread: it loses, duplicates,
 * delays and (through random delays) reorders messages, and drops everything from a crashed node and everything due
 * to one. Every random choice comes from the {@link Random} it is given, in an order that depends only on the calls
 * made, so the same seed gives the same schedule, message for message: a test prints its seed (and
 * {@link #describe()}) on failure, and the seed replays the run.
 *
 * <p>A test drives time: each tick it takes the messages {@link #due} and steps the cores with them, then puts what
 * the cores produced on the wire with {@link #transmit}. A message sent at tick {@code t} is due at a tick in
 * {@code [t + 1, t + maxDelay]}; messages due at the same tick come out in the order they were sent.
 *
 * <p>Subclasses may act as an adversary: override {@link #transmit} to rewrite, drop or multiply messages (calling
 * {@code super.transmit} for what goes on the wire), and {@link #tick} to send on their own. Not thread-safe.
 *
 * @param <M> the messages
 */
public class SimulatedNetwork<M> {

    private record InTransit<M>(long at, long order, M message) {
    }

    private final Random random;
    private final ToIntFunction<M> sender;
    private final ToIntFunction<M> receiver;
    private final Set<Integer> crashed = new TreeSet<>();
    private final PriorityQueue<InTransit<M>> queue = new PriorityQueue<>(
            (a, b) -> a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.order, b.order));
    private double lossRate;
    private double duplicateRate;
    private int maxDelay = 1;
    private java.util.function.Predicate<M> lost = m -> false;
    private long sent;
    private long order;

    /**
     * A network that loses, duplicates and delays nothing (up to the setters).
     *
     * @param random   every random choice of the network; usually shared with the test, which seeded it
     * @param sender   a message's sender
     * @param receiver a message's receiver
     */
    public SimulatedNetwork(Random random, ToIntFunction<M> sender, ToIntFunction<M> receiver) {
        this.random = Objects.requireNonNull(random, "random");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    /** The network's random, for subclasses that draw from the same schedule. */
    protected final Random random() {
        return random;
    }

    /** Loses each message sent with probability {@code rate}. */
    public void lossRate(double rate) {
        this.lossRate = rate;
    }

    /** Loses every message sent from now on that {@code test} accepts (until replaced; {@code m -> false}: none). */
    public void loseIf(java.util.function.Predicate<M> test) {
        this.lost = Objects.requireNonNull(test, "test");
    }

    /** Delivers each message not lost twice with probability {@code rate}. */
    public void duplicateRate(double rate) {
        this.duplicateRate = rate;
    }

    /** Delays each copy by 1 to {@code ticks} ticks, at random (1: no reordering). */
    public void maxDelay(int ticks) {
        if (ticks < 1) {
            throw new IllegalArgumentException("maxDelay must be at least 1, got " + ticks);
        }
        this.maxDelay = ticks;
    }

    /** Messages put on the wire so far, lost ones included. */
    public long sent() {
        return sent;
    }

    /** Node {@code node} crashed: what it sends is lost, and so is what falls due to it while it is down. */
    public void crash(int node) {
        crashed.add(node);
    }

    /** Node {@code node} is back; returns whether it was crashed. */
    public boolean recover(int node) {
        return crashed.remove(node);
    }

    /** Whether node {@code node} is crashed. */
    public boolean isCrashed(int node) {
        return crashed.contains(node);
    }

    /** The crashed nodes, ascending (a read-only view). */
    public Set<Integer> crashed() {
        return Collections.unmodifiableSet(crashed);
    }

    /** Puts {@code message} on the wire at tick {@code now}. */
    public void transmit(M message, long now) {
        sent++;
        if (crashed.contains(sender.applyAsInt(message)) || random.nextDouble() < lossRate || lost.test(message)) {
            return;
        }
        int copies = random.nextDouble() < duplicateRate ? 2 : 1;
        for (int c = 0; c < copies; c++) {
            queue.add(new InTransit<>(now + 1 + random.nextInt(maxDelay), order++, message));
        }
    }

    /** Removes and returns every message due at {@code now}, in order, except those to crashed nodes (lost). */
    public List<M> due(long now) {
        List<M> out = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().at <= now) {
            M m = queue.poll().message;
            if (!crashed.contains(receiver.applyAsInt(m))) {
                out.add(m);
            }
        }
        return out;
    }

    /**
     * Loses every message still in flight to {@code node}: what a crashed process had not yet received is gone, even
     * if it comes back before the message would have arrived.
     */
    public void dropInFlightTo(int node) {
        queue.removeIf(t -> receiver.applyAsInt(t.message) == node);
    }

    /** Called by the test at the start of every tick; an adversary acts on its own here. */
    public void tick(long now) {
    }

    /** Stops losing and duplicating (delays stay). */
    public void heal() {
        lossRate = 0;
        duplicateRate = 0;
    }

    /** The network's settings, for a failure message next to the seed. */
    public String describe() {
        return String.format(Locale.ROOT, "loss %.3f, duplication %.3f, max delay %d, crashed %s", lossRate,
                duplicateRate, maxDelay, crashed);
    }
}
