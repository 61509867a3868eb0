package io.psmr.kvstore.pbft;

import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetchException;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * State transfer for a PBFT replica: fetches a checkpoint from the other replicas' checkpoint servers, one peer at a
 * time ({@link CheckpointFetcher}, which checks the files against their manifest and the store against its digest),
 * recomputes the PBFT checkpoint digest D from the files ({@link PbftCheckpoints#certification}) and accepts the
 * checkpoint only if a stable checkpoint (2f+1 signed CHECKPOINTs) certified exactly that digest at that sequence
 * number. A peer whose checkpoint does not match is named and its files deleted, and the next peer is tried: a
 * Byzantine peer can waste one attempt, never get its state installed.
 *
 * <h2>Uncertified checkpoints never reach the local store</h2>
 * A peer's checkpoint is fetched into a staging store, {@code data/NAME/uncertified/checkpoints} ({@link
 * #openStaging}), and moved into the replica's own checkpoint store ({@code data/NAME/checkpoints}, the one a restart
 * installs from and the checkpoint server serves) by one atomic rename only once certified ({@link
 * CheckpointStore#moveIn}). So a crash at any point leaves either the certified checkpoint in the local store or the
 * fetched one in the staging store, which the next start empties, naming what it removes: a restart never installs
 * an uncertified checkpoint, and installs the replica's own newest one instead.
 *
 * <p>Concurrency: one caller at a time (the replica's recovery thread); blocks on the network.
 */
public final class PbftStateTransfer {

    private static final Logger LOG = LoggerFactory.getLogger(PbftStateTransfer.class);
    /** The staging store's directory under the replica's data directory. */
    static final String STAGING = "uncertified";

    /**
     * A checkpoint that matched its certificate.
     *
     * @param checkpoint  the checkpoint, now in the local checkpoint store
     * @param certificate the stable checkpoint that certified it
     * @param peer        who served it
     */
    public record Verified(Checkpoint checkpoint, StableCheckpoint certificate, InetSocketAddress peer) {
    }

    private final CheckpointFetcher fetcher;
    private final CheckpointStore staging;
    private final CheckpointStore local;

    /**
     * @param fetcher fetches into {@code staging}
     * @param staging where fetched checkpoints wait for their certificate ({@link #openStaging}); under the same
     *                replica directory as {@code local}, so that a rename moves a checkpoint between them
     * @param local   this replica's checkpoint store
     */
    public PbftStateTransfer(CheckpointFetcher fetcher, CheckpointStore staging, CheckpointStore local) {
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
        this.staging = Objects.requireNonNull(staging, "staging");
        this.local = Objects.requireNonNull(local, "local");
    }

    /**
     * Opens the staging store of the replica whose data directory is {@code data}, {@code data/uncertified/checkpoints},
     * and deletes every checkpoint in it: one left there was fetched by a state transfer that stopped (a crash, a
     * close) before its certificate was checked, so nothing vouches for it. Logs a warning naming each. Call at the
     * replica's start, before any state transfer.
     *
     * @param replica the replica's name, for the log
     */
    public static CheckpointStore openStaging(Path data, String replica) throws IOException {
        CheckpointStore staging = CheckpointStore.open(data.resolve(STAGING), 1); // deletes half-written ones
        for (long instance : staging.list()) {
            LOG.warn("{} removes uncertified checkpoint {} ({}): a state transfer fetched it from a peer and stopped"
                    + " before checking its certificate; only the replica's own checkpoints and certified ones are"
                    + " installed", replica, instance, staging.directory(instance));
            staging.delete(instance);
        }
        return staging;
    }

    /**
     * Fetches a checkpoint newer than {@code minInstance - 1} that a known stable checkpoint certifies.
     *
     * @param peers       the other replicas' checkpoint servers, tried in turn
     * @param minInstance the oldest checkpoint instance of use
     * @param certified   the stable checkpoint known at a sequence number, or null if none is known there
     * @throws IOException naming each peer and why its checkpoint was not taken (none served one, a mismatching
     *                     digest, no certificate known yet for its sequence number)
     */
    public Verified fetch(List<InetSocketAddress> peers, long minInstance, LongFunction<StableCheckpoint> certified)
            throws IOException {
        List<String> reasons = new ArrayList<>();
        for (InetSocketAddress peer : peers) {
            String name = "peer " + peer.getHostString() + ":" + peer.getPort();
            Checkpoint c;
            try {
                c = fetcher.fetch(List.of(peer), minInstance);
            } catch (CheckpointFetchException e) {
                reasons.add(e.reasons().isEmpty() ? name + ": " + e.getMessage() : String.join("; ", e.reasons()));
                continue;
            }
            PbftCheckpoints.Certification got;
            try {
                got = PbftCheckpoints.certification(c);
            } catch (IOException | RuntimeException e) {
                staging.delete(c.instance());
                reasons.add(name + ": checkpoint " + c.instance() + " holds no PBFT state: " + e.getMessage());
                continue;
            }
            StableCheckpoint cert = certified.apply(got.seq());
            if (cert != null && Arrays.equals(cert.stateDigest(), got.digest())) {
                return new Verified(keep(c, got), cert, peer);
            }
            staging.delete(c.instance());
            if (cert == null) {
                reasons.add(name + ": checkpoint " + c.instance() + " at sequence number " + got.seq()
                        + " is not certified by a stable checkpoint known here yet");
            } else {
                reasons.add(name + " served a checkpoint that does not match the certified one: checkpoint "
                        + c.instance() + " at sequence number " + got.seq() + " has digest "
                        + HexFormat.of().formatHex(got.digest()) + ", but " + cert.proof().size()
                        + " replicas certified " + HexFormat.of().formatHex(cert.stateDigest()));
            }
        }
        throw new IOException("no peer served a certified checkpoint from instance " + minInstance + ": "
                + String.join("; ", reasons));
    }

    /**
     * Moves a certified checkpoint from the staging store into the local one. If the local store holds that instance
     * already (an earlier transfer moved it in, then the start from it failed), the local one is kept when it is the
     * same certified state, and the fetched copy deleted.
     *
     * @throws IOException if the local store holds another state at that instance (the fetched copy is deleted; the
     *                     local one is this replica's data and is left alone)
     */
    private Checkpoint keep(Checkpoint fetched, PbftCheckpoints.Certification got) throws IOException {
        if (!local.list().contains(fetched.instance())) {
            return local.moveIn(fetched);
        }
        staging.delete(fetched.instance());
        Checkpoint own = local.open(fetched.instance());
        if (!Arrays.equals(PbftCheckpoints.certification(own).digest(), got.digest())) {
            throw new IOException("checkpoint " + own.instance() + " in " + own.directory()
                    + " is not the certified state of that instance; it is left in place, and no checkpoint installed");
        }
        return own;
    }
}
