package io.psmr.bench.cos;

import io.psmr.scheduler.Command;

/**
 * The COS interface of Escobar, Alchieri, Dotti, Pedone et al., "Boosting concurrency in Parallel
 * State Machine Replication" (Middleware '19): a bounded dependency graph of single commands, with
 * {@link #insert}, {@link #get} and {@link #remove}.
 *
 * <p><b>Dependencies.</b> A command depends on every earlier command still in the graph (not yet
 * removed) that it conflicts with ({@link CosConflicts#conflict}: a shared key that at least one of
 * the two writes). {@link #get} hands out only commands with no such dependency left, so conflicting
 * commands execute in insertion order; others run in any order, concurrently.
 *
 * <p><b>Threads.</b> {@link #insert} is called by one thread at a time (the delivery thread), and
 * blocks while the graph holds {@code maxSize} commands. {@link #get} and {@link #remove} are called
 * by worker threads, concurrently; {@link #get} blocks until a command is ready. {@link #close} and
 * {@link #abort} may be called from any thread.
 *
 * <p><b>Ending.</b> After {@link #close}, inserts are refused and {@link #get} returns null once every
 * command has been removed, so workers drain the graph and exit. After {@link #abort}, {@link #get}
 * returns null at once and blocked inserts are refused; commands not yet handed out never run.
 *
 * @param <C> the command type
 */
public interface CosGraph<C extends Command> {

    /** A command handed out by {@link #get}, to give back to {@link #remove} once executed. */
    interface Handle<C extends Command> {

        /** The command. */
        C command();

        /** Its position in insertion order, from 1. */
        long sequence();
    }

    /**
     * Adds {@code command} after every command inserted before it; returns its sequence number (from 1).
     * Blocks while the graph is full.
     *
     * @throws IllegalStateException if the graph is closed or aborted (also when that happens while blocked)
     * @throws InterruptedException  if interrupted while waiting for room; the command was not inserted
     */
    long insert(C command) throws InterruptedException;

    /**
     * Claims a ready command (one with no dependency left) for execution; blocks until there is one.
     *
     * @return the claimed command, or null once the graph is closed and empty, or aborted
     * @throws InterruptedException if interrupted while waiting
     */
    Handle<C> get() throws InterruptedException;

    /** Removes an executed command, making room and releasing the commands that depended on it. */
    void remove(Handle<C> handle);

    /** Refuses further inserts; {@link #get} returns null once the graph is empty. Idempotent. */
    void close();

    /** Refuses further inserts and hands nothing more out; blocked inserts and gets return. Idempotent. */
    void abort();

    /** Commands inserted and not yet removed. */
    int size();

    /** The most commands the graph holds. */
    int maxSize();
}
