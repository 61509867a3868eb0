package io.psmr.proxy.cluster;

import io.psmr.kvstore.cluster.ClusterDescriptor;
import io.psmr.kvstore.cluster.ClusterDirectory;
import io.psmr.kvstore.cluster.ProposerSlot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;

/**
 * One load process's identity in a cluster: a proposer slot it holds exclusively (a file lock the
 * operating system releases if the process dies), and a session number that is new on every run.
 *
 * <p>Why both: Ring Paxos learners drop a proposal whose (proposer, sequence number) they have
 * seen, and replicas answer a (client, request) pair they have seen from their reply cache. A second
 * run on the same slot must therefore number its proposals above the first's
 * ({@link #firstProposalSeq()}), and its clients must have new ids ({@link #proxyId()}).
 */
public final class ClusterSession implements AutoCloseable {

    /** Proposals one session may make before its sequence numbers would reach the next session's. */
    static final int SEQ_BITS = 32;

    private final ProposerSlot slot;
    private final long session;
    private final FileChannel channel;
    private final FileLock lock;

    private ClusterSession(ProposerSlot slot, long session, FileChannel channel, FileLock lock) {
        this.slot = slot;
        this.session = session;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Claims a free proposer slot on this machine (one whose host is an address of it: the acceptors send
     * decisions there) and a new session number.
     *
     * @throws IllegalStateException if no slot is on this machine, or every one is held by another live process
     */
    public static ClusterSession open(ClusterDirectory dir, ClusterDescriptor cluster) {
        long session = dir.nextSession();
        if (session >= 1L << 31) {
            throw new IllegalStateException("cluster in " + dir.path() + " has used up its session numbers");
        }
        if (cluster.proposers().isEmpty()) {
            return new ClusterSession(null, session, null, null); // Ratis: its clients need no slot
        }
        java.util.List<ProposerSlot> local = cluster.proposers().stream()
                .filter(p -> io.psmr.kvstore.cluster.ClusterLayout.isLocal(p.host())).toList();
        if (local.isEmpty()) {
            throw new IllegalStateException("no proposer slot of the cluster in " + dir.path() + " is on this machine (slots are on "
                    + cluster.proposers().stream().map(ProposerSlot::host).distinct().toList()
                    + "); run the load on one of those hosts, or name this machine with cluster init --client-hosts");
        }
        for (ProposerSlot slot : local) {
            try {
                Files.createDirectories(dir.proposerLock(slot.paxosId()).getParent());
                FileChannel ch = FileChannel.open(dir.proposerLock(slot.paxosId()), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = ch.tryLock();
                } catch (OverlappingFileLockException heldInThisJvm) {
                    lock = null;
                }
                if (lock != null) {
                    return new ClusterSession(slot, session, ch, lock);
                }
                ch.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot claim proposer slot " + slot.paxosId() + " in " + dir.path(), e);
            }
        }
        throw new IllegalStateException("all " + local.size() + " proposer slots of the cluster in "
                + dir.path() + " on this machine are in use by other load processes");
    }

    /** The proposer slot held, or null in a cluster without slots (Ratis). */
    public ProposerSlot slot() {
        return slot;
    }

    /** This run's session number, from 1. */
    public long session() {
        return session;
    }

    /** The proxy id for this run: the session number, so client ids ({@code proxyId << 32 | n}) are new. */
    public long proxyId() {
        return session;
    }

    /** The first proposal sequence number for this run: above any earlier session's. */
    public long firstProposalSeq() {
        return session << SEQ_BITS;
    }

    /** Releases the slot. */
    @Override
    public void close() {
        if (lock == null) {
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot release proposer slot " + slot.paxosId(), e);
        }
    }
}
