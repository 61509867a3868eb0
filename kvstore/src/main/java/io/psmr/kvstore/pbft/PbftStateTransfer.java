package io.psmr.kvstore.pbft;

import io.psmr.kvstore.checkpoint.Checkpoint;
import io.psmr.kvstore.checkpoint.CheckpointFetchException;
import io.psmr.kvstore.checkpoint.CheckpointFetcher;
import io.psmr.kvstore.checkpoint.CheckpointStore;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.LongFunction;

/**
 * State transfer for a PBFT replica: fetches a checkpoint from the other replicas' checkpoint servers, one peer at a
 * time ({@link CheckpointFetcher}, which checks the files against their manifest and the store against its digest),
 * recomputes the PBFT checkpoint digest D from the files ({@link PbftCheckpoints#certification}) and accepts the
 * checkpoint only if a stable checkpoint (2f+1 signed CHECKPOINTs) certified exactly that digest at that sequence
 * number. A peer whose checkpoint does not match is named and its files deleted, and the next peer is tried: a
 * Byzantine peer can waste one attempt, never get its state installed.
 *
 * <p>Concurrency: one caller at a time (the replica's recovery thread); blocks on the network.
 */
public final class PbftStateTransfer {

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
    private final CheckpointStore local;

    /**
     * @param fetcher fetches into {@code local}
     * @param local   this replica's checkpoint store
     */
    public PbftStateTransfer(CheckpointFetcher fetcher, CheckpointStore local) {
        this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
        this.local = Objects.requireNonNull(local, "local");
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
                local.delete(c.instance());
                reasons.add(name + ": checkpoint " + c.instance() + " holds no PBFT state: " + e.getMessage());
                continue;
            }
            StableCheckpoint cert = certified.apply(got.seq());
            if (cert != null && Arrays.equals(cert.stateDigest(), got.digest())) {
                return new Verified(c, cert, peer);
            }
            local.delete(c.instance());
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
}
