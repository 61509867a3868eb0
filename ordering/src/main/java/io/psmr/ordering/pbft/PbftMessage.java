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

    /** Replica → all: after executing up to checkpoint {@code seq} my state digest is {@code stateDigest}. */
    record Checkpoint(long seq, byte[] stateDigest, int replica) implements PbftMessage {
        /** Copies the digest. */
        public Checkpoint {
            stateDigest = stateDigest.clone();
        }

        @Override
        public byte[] stateDigest() {
            return stateDigest.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Checkpoint c && c.seq == seq && c.replica == replica
                    && Arrays.equals(c.stateDigest, stateDigest);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(seq) * 31 + replica;
        }
    }

    /**
     * Proof that {@code prePrepare} was prepared: the pre-prepare and 2f matching prepares from
     * distinct replicas other than its {@code proposer} (the instance's leader, or the primary of the
     * view whose NEW-VIEW re-proposed it).
     */
    record PreparedCertificate(PrePrepare prePrepare, int proposer, List<Prepare> prepares) {
        /** Copies the list. */
        public PreparedCertificate {
            prepares = List.copyOf(prepares);
        }
    }

    /**
     * Replica → all: move this pillar to {@code newView}. Carries the last stable checkpoint with its
     * 2f+1 CHECKPOINT proof (seq 0 and no proof before the first) and a prepared certificate for
     * every instance above it that prepared at the sender (the highest view each).
     */
    record ViewChange(long newView, long stableSeq, List<Checkpoint> stableProof, List<PreparedCertificate> prepared,
                      int replica) implements PbftMessage {
        /** Copies the lists. */
        public ViewChange {
            stableProof = List.copyOf(stableProof);
            prepared = List.copyOf(prepared);
        }
    }

    /**
     * Primary of {@code view} → all: the view starts. {@code viewChanges} are the 2f+1 VIEW-CHANGEs it
     * was computed from; {@code prePrepares} re-propose, for every instance of the pillar between the
     * highest stable checkpoint and the highest prepared instance in them, the certificate of the
     * highest view, or EMPTY for a hole. Backups recompute it before accepting.
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
