package io.psmr.kvstore.ratis;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;

/**
 * When a Ratis peer counts a log entry as stored, and so what an acknowledged batch survives. The
 * leader commits an entry once a majority (itself included) reports it stored; the client's reply
 * follows the commit. Only {@link #SYNC} keeps Raft's failure model; the others are for measuring
 * what the log's durability costs, and their names say that they are unsafe.
 *
 * <p>Ratis' in-memory log ({@code raft.server.log.use.memory}) is not offered: it loses everything on a restart,
 * and with psmr's automatic snapshots (log purged after each) a 3.3.0 server closing over it was seen to hang.
 * Ratis 3.3.0's own {@code raft.server.log.async-flush.enabled} is deliberately not offered either: when
 * its background {@code fsync} completes it marks as flushed the last entry <em>written</em> by then,
 * which may still be in the peer's user-space write buffer, so it can lose acknowledged entries even
 * when only processes crash, while it measured no faster than {@link #SYNC} (docs/integration.md).
 *
 * <p>Immutable; any thread.
 */
public enum RatisDurability {

    /**
     * Ratis' default: a peer reports an entry stored only after {@code FileChannel.force} (fsync) of
     * its log segment returned. An acknowledged batch survives any crash, power loss included, of all
     * peers. Ratis groups commits itself: one fsync covers every entry written since the last one.
     */
    SYNC("sync"),

    /**
     * Ratis' {@code raft.server.log.unsafe-flush.enabled}: a peer reports an entry stored once it was
     * written to the segment file (the kernel's page cache); the fsync runs in the background. An
     * acknowledged batch survives crashes of the peers' processes, but is lost if a majority's machines
     * lose power or their kernels crash before the fsync: on restart their logs end earlier than what
     * they acknowledged, and a new leader may never have had the entry.
     */
    UNSAFE_FLUSH("unsafe-flush");

    private final String cliName;

    RatisDurability(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line, e.g. {@code unsafe-flush}. */
    public String cliName() {
        return cliName;
    }

    /** Whether an acknowledged batch survives a crash of every peer (only {@link #SYNC}). */
    public boolean durable() {
        return this == SYNC;
    }

    /** Sets this durability's Ratis server properties on {@code p} (a server's, before it is built). */
    void apply(RaftProperties p) {
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, this == UNSAFE_FLUSH);
        RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
    }

    /** The names, comma-separated: {@code sync, unsafe-flush}. */
    public static String cliNames() {
        return Arrays.stream(values()).map(RatisDurability::cliName).collect(Collectors.joining(", "));
    }

    /**
     * The durability called {@code name}.
     *
     * @throws IllegalArgumentException naming {@code name} and the accepted names
     */
    public static RatisDurability fromCliName(String name) {
        for (RatisDurability d : values()) {
            if (d.cliName.equals(name)) {
                return d;
            }
        }
        if (name != null && name.toLowerCase(Locale.ROOT).contains("async")) {
            throw new IllegalArgumentException("unknown Ratis durability '" + name + "': Ratis' async-flush is not offered"
                    + " (it may acknowledge entries still in a peer's write buffer); durabilities: " + cliNames());
        }
        throw new IllegalArgumentException("unknown Ratis durability '" + name + "'; durabilities: " + cliNames());
    }
}
