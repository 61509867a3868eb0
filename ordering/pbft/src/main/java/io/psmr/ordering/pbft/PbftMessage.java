package io.psmr.ordering.pbft;

import java.util.Arrays;
import java.util.List;

/**
 * Every message of PBFT (Castro and Liskov, OSDI'99), as immutable records. Replica-to-replica
 * messages travel in a {@link PbftEnvelope}; the canonical encoding is {@link PbftCodec}.
 */
public sealed interface PbftMessage {

    /**
     * A client request, with an authenticator: one MAC per replica, over
     * {@link PbftCodec#requestBytes}, under the key the client shares with that replica.
     *
     * @param client  the client id
     * @param number  the client's request number (increasing per client)
     * @param payload the operation, opaque to ordering
     * @param macs    {@code macs.get(r)} is the MAC for replica r
     */
    record Request(long client, long number, byte[] payload, List<byte[]> macs) implements PbftMessage {
        /** Copies, so the record is immutable. */
        public Request {
            if (payload == null || macs == null) {
                throw new IllegalArgumentException("a request needs a payload and macs");
            }
            payload = payload.clone();
            macs = macs.stream().map(byte[]::clone).toList();
        }

        /** Builds a request authenticated for replicas {@code 0..replicas-1}. */
        public static Request sign(long client, long number, byte[] payload, Authenticator auth, int replicas) {
            byte[] bytes = PbftCodec.requestBytes(client, number, payload);
            byte[][] macs = new byte[replicas][];
            for (int r = 0; r < replicas; r++) {
                macs[r] = auth.clientMac(client, r, bytes);
            }
            return new Request(client, number, payload, List.of(macs));
        }

        @Override
        public byte[] payload() {
            return payload.clone();
        }

        /** The request's identity. */
        public RequestId id() {
            return new RequestId(client, number);
        }

        /** Its SHA-256 digest (client, number, payload; not the MACs). */
        public byte[] digest() {
            return PbftDigests.of(client, number, payload);
        }

        /** Whether the MAC for {@code replica} verifies. */
        public boolean verifiedFor(int replica, Authenticator auth) {
            return replica < macs.size()
                    && auth.verifyClient(client, replica, PbftCodec.requestBytes(client, number, payload), macs.get(replica));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Request r && r.client == client && r.number == number && Arrays.equals(r.payload, payload);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(client) * 31 + Long.hashCode(number);
        }

        @Override
        public String toString() {
            return "Request[" + client + "/" + number + ", " + payload.length + " bytes]";
        }
    }

    /**
     * Leader → backups: order {@code request} (null: an EMPTY instance) at {@code seq} in {@code view}.
     * {@code digest} must be the request's digest, or {@link PbftDigests#empty()}.
     */
    record PrePrepare(long view, long seq, byte[] digest, Request request) implements PbftMessage {
        /** Copies the digest. */
        public PrePrepare {
            digest = digest.clone();
        }

        /** An EMPTY instance: it orders nothing and only fills its sequence number. */
        public static PrePrepare empty(long view, long seq) {
            return new PrePrepare(view, seq, PbftDigests.empty(), null);
        }

        /** Whether it is an EMPTY instance. */
        public boolean isEmpty() {
            return request == null;
        }

        /** Whether the digest matches the request (or EMPTY). */
        public boolean digestMatches() {
            return request == null ? PbftDigests.isEmpty(digest) : Arrays.equals(digest, request.digest());
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PrePrepare p && p.view == view && p.seq == seq && Arrays.equals(p.digest, digest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + Arrays.hashCode(digest);
        }

        @Override
        public String toString() {
            return "PrePrepare[v=" + view + ", seq=" + seq + ", " + (request == null ? "EMPTY" : request) + "]";
        }
    }

    /** Backup → all: I accepted the pre-prepare of {@code (view, seq, digest)}. */
    record Prepare(long view, long seq, byte[] digest, int replica) implements PbftMessage {
        /** Copies the digest. */
        public Prepare {
            digest = digest.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Prepare p && p.view == view && p.seq == seq && p.replica == replica
                    && Arrays.equals(p.digest, digest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + replica;
        }
    }

    /**
     * Replica → all: my timer expired in view {@code newView - 1}; I want {@code newView}. A complaint
     * alone changes nothing: the sender stays in its view. f+1 complaints make a replica complain too,
     * 2f+1 make it leave the view and send VIEW-CHANGE (the two-step view change of BFT-SMaRt and
     * Aardvark). Point to point under the envelope MAC; never embedded.
     */
    record Complaint(long newView, int replica) implements PbftMessage {
    }

    /** Replica → all: {@code (view, seq, digest)} is prepared at me. */
    record Commit(long view, long seq, byte[] digest, int replica) implements PbftMessage {
        /** Copies the digest. */
        public Commit {
            digest = digest.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Commit p && p.view == view && p.seq == seq && p.replica == replica
                    && Arrays.equals(p.digest, digest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + replica;
        }
    }

    /**
     * Replica → all: after executing up to checkpoint {@code seq} my state digest is {@code stateDigest}.
     * Signed by {@code replica} over {@link PbftCodec#signedContent(Checkpoint)}, so 2f+1 of them
     * prove a stable checkpoint to anyone.
     */
    record Checkpoint(long seq, byte[] stateDigest, int replica, byte[] signature) implements PbftMessage {
        /** Copies the arrays. */
        public Checkpoint {
            stateDigest = stateDigest.clone();
            signature = signature.clone();
        }

        /** A checkpoint signed by {@code replica} (whose private key {@code auth} must hold). */
        public static Checkpoint signed(long seq, byte[] stateDigest, int replica, Authenticator auth) {
            byte[] content = PbftCodec.signedContent(new Checkpoint(seq, stateDigest, replica, new byte[0]));
            return new Checkpoint(seq, stateDigest, replica, auth.sign(replica, content));
        }

        /** Whether the signature is {@code replica}'s over this checkpoint. */
        public boolean signatureValid(Authenticator auth) {
            return auth.verifySignature(replica, PbftCodec.signedContent(this), signature);
        }

        @Override
        public byte[] stateDigest() {
            return stateDigest.clone();
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Checkpoint c && c.seq == seq && c.replica == replica
                    && Arrays.equals(c.stateDigest, stateDigest) && Arrays.equals(c.signature, signature);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + replica;
        }

        @Override
        public String toString() {
            return "Checkpoint[seq=" + seq + ", replica=" + replica + "]";
        }
    }

    /**
     * An entry of a VIEW-CHANGE's Q set: the sender accepted a pre-prepare of {@code digest} for
     * {@code seq}, the latest such in view {@code view} (Castro and Liskov, TOCS 2002, §4.5).
     */
    record PrePrepared(long seq, long view, byte[] digest) {
        /** Copies the digest. */
        public PrePrepared {
            digest = digest.clone();
        }

        @Override
        public byte[] digest() {
            return digest.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PrePrepared q && q.seq == seq && q.view == view && Arrays.equals(q.digest, digest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + Arrays.hashCode(digest);
        }
    }

    /**
     * Replica → all, signed by {@code replica} over {@link PbftCodec#signedContent(int, ViewChange)}
     * (which binds the pillar): move this pillar to {@code newView}. It reports only the sender's own
     * state (Castro's MAC-era view change, TOCS 2002 §4.5, with signatures instead of acks):
     * <ul>
     * <li>the last stable checkpoint with its 2f+1 signed CHECKPOINTs (seq 0 and no proof before the first);</li>
     * <li>{@code prepared} (the P set): for each instance above it that prepared at the sender, the
     *     pre-prepare (with the request) of the highest view in which it prepared;</li>
     * <li>{@code prePrepared} (the Q set): for each such instance and digest, the highest view in which
     *     the sender accepted (or, as leader, sent) a pre-prepare of it;</li>
     * <li>{@code suspect}: the leader of the pillar's first instance that had not committed at the sender
     *     when it left its view ({@link LeaderPolicy#NO_SUSPECT} if none), and {@code leaders}: the
     *     sender's leader selection state ({@link LeaderPolicy}); the NEW-VIEW's policy derives from these.</li>
     * </ul>
     */
    record ViewChange(long newView, long stableSeq, List<Checkpoint> stableProof, List<PrePrepare> prepared,
                      List<PrePrepared> prePrepared, int suspect, LeaderPolicy leaders, int replica, byte[] signature)
            implements PbftMessage {
        /** Copies the lists and the signature. */
        public ViewChange {
            stableProof = List.copyOf(stableProof);
            prepared = List.copyOf(prepared);
            prePrepared = List.copyOf(prePrepared);
            java.util.Objects.requireNonNull(leaders, "leaders");
            signature = signature.clone();
        }

        /** One with no suspect and no leader selection state. */
        public ViewChange(long newView, long stableSeq, List<Checkpoint> stableProof, List<PrePrepare> prepared,
                          List<PrePrepared> prePrepared, int replica, byte[] signature) {
            this(newView, stableSeq, stableProof, prepared, prePrepared, LeaderPolicy.NO_SUSPECT, LeaderPolicy.NONE,
                    replica, signature);
        }

        /** A VIEW-CHANGE of {@code pillar} signed by {@code replica}, with no suspect and no leader selection state. */
        public static ViewChange signed(int pillar, long newView, long stableSeq, List<Checkpoint> stableProof,
                                        List<PrePrepare> prepared, List<PrePrepared> prePrepared, int replica,
                                        Authenticator auth) {
            return signed(pillar, newView, stableSeq, stableProof, prepared, prePrepared, LeaderPolicy.NO_SUSPECT,
                    LeaderPolicy.NONE, replica, auth);
        }

        /** A VIEW-CHANGE of {@code pillar} signed by {@code replica} (whose private key {@code auth} must hold). */
        public static ViewChange signed(int pillar, long newView, long stableSeq, List<Checkpoint> stableProof,
                                        List<PrePrepare> prepared, List<PrePrepared> prePrepared, int suspect,
                                        LeaderPolicy leaders, int replica, Authenticator auth) {
            ViewChange unsigned = new ViewChange(newView, stableSeq, stableProof, prepared, prePrepared, suspect, leaders,
                    replica, new byte[0]);
            return unsigned.withSignature(auth.sign(replica, PbftCodec.signedContent(pillar, unsigned)));
        }

        /** This VIEW-CHANGE with another signature. */
        public ViewChange withSignature(byte[] signature) {
            return new ViewChange(newView, stableSeq, stableProof, prepared, prePrepared, suspect, leaders, replica,
                    signature);
        }

        /** Whether the signature is {@code replica}'s over this VIEW-CHANGE of {@code pillar}. */
        public boolean signatureValid(int pillar, Authenticator auth) {
            return auth.verifySignature(replica, PbftCodec.signedContent(pillar, this), signature);
        }

        @Override
        public byte[] signature() {
            return signature.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ViewChange v && v.newView == newView && v.stableSeq == stableSeq && v.replica == replica
                    && v.suspect == suspect && v.leaders.equals(leaders)
                    && Arrays.equals(v.signature, signature) && v.stableProof.equals(stableProof)
                    && v.prepared.equals(prepared) && v.prePrepared.equals(prePrepared);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(newView) * 31 + replica;
        }

        @Override
        public String toString() {
            return "ViewChange[v=" + newView + ", h=" + stableSeq + ", P=" + prepared.size() + ", Q=" + prePrepared.size()
                    + ", suspect=" + suspect + ", replica=" + replica + "]";
        }
    }

    /**
     * Primary of {@code view} → all: the view starts. {@code viewChanges} are the (at least 2f+1)
     * signed VIEW-CHANGEs it decided from; {@code prePrepares} re-propose, for every instance of the
     * pillar above the highest stable checkpoint among them up to the highest instance in their P
     * sets, a value that Castro's rule A or B allows (see {@code docs/pbft.md}). Backups check every
     * signature and every choice against the VIEW-CHANGEs.
     */
    record NewView(long view, List<ViewChange> viewChanges, List<PrePrepare> prePrepares, int replica)
            implements PbftMessage {
        /** Copies the lists. */
        public NewView {
            viewChanges = List.copyOf(viewChanges);
            prePrepares = List.copyOf(prePrepares);
        }
    }
}
