package io.psmr.ordering.pbft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.psmr.ordering.pbft.PbftMessage.Checkpoint;
import io.psmr.ordering.pbft.PillarOutput.StableCheckpoint;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The CHECKPOINT votes of one pillar, with f = 1 (quorum 3), K = 4, L = 8. */
class CheckpointVotesTest {

    private static final PbftConfig CONFIG = new PbftConfig(1, 1, 4, 8, 20, 160, 2, 10, LeaderRotation.FIXED, 64, 64);
    private static final Authenticator AUTH = new ChecksumAuthenticator();

    private final Map<Refusal, Long> refusals = new EnumMap<>(Refusal.class);
    private final CheckpointVotes votes = new CheckpointVotes(CONFIG, AUTH, r -> refusals.merge(r, 1L, Long::sum));

    private static byte[] state(String name) {
        return PbftDigests.sha256(name.getBytes(StandardCharsets.UTF_8));
    }

    private static Checkpoint vote(long seq, String state, int replica) {
        return Checkpoint.signed(seq, state(state), replica, AUTH);
    }

    /**
     * Votes for checkpoint 4, in arrival order, written {@code replica:state}; the stable outcome is the
     * proof's replicas and state ({@code -}: not stable), and the refusals counted.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                                    votes;               stable;     refusals
            2f+1 matching;                              0:s 1:s 2:s;         0 1 2 @ s;  ''
            2f matching;                                0:s 1:s;             -;          ''
            a retransmission counts once;               0:s 0:s 1:s;         -;          ''
            a dissenting vote is refused once stable;   0:s 1:t 2:s 3:s;     0 2 3 @ s;  CHECKPOINT_MISMATCH
            a replica that votes twice differently;     0:s 0:t 1:s 2:s;     0 1 2 @ s;  EQUIVOCATION
            two digests, neither with 2f+1;             0:s 1:s 2:t 3:t;     -;          ''
            the later digest reaches 2f+1;              0:s 1:t 2:t 3:t;     1 2 3 @ t;  CHECKPOINT_MISMATCH
            """)
    void twoFPlusOneMatchingVotesMakeACheckpointStable(String name, String arrivals, String stable, String refused) {
        StableCheckpoint result = null;
        for (String v : arrivals.split(" ")) {
            int replica = Integer.parseInt(v.substring(0, v.indexOf(':')));
            StableCheckpoint s = votes.onCheckpoint(vote(4, v.substring(v.indexOf(':') + 1), replica), replica);
            if (s != null) {
                assertNull(result, "stable once");
                result = s;
                votes.install(s.seq(), s.stateDigest(), s.proof());
            }
        }
        if (stable.equals("-")) {
            assertNull(result);
        } else {
            assertNotNull(result, "stable");
            StringJoiner replicas = new StringJoiner(" ");
            result.proof().forEach(c -> replicas.add(Integer.toString(c.replica())));
            String state = stable.substring(stable.indexOf('@') + 1).trim();
            assertEquals(stable.substring(0, stable.indexOf('@')).trim(), replicas.toString(), "the proof's replicas, sorted");
            assertEquals(4, result.seq());
            assertArrayEquals(state(state), result.stateDigest());
            assertEquals(4, votes.stableSeq());
            assertEquals(result.proof(), votes.stableProof());
        }
        assertEquals(refused, refusals.keySet().stream().map(Enum::name).reduce((a, b) -> a + " " + b).orElse(""));
        refusals.values().forEach(count -> assertEquals(1L, count));
    }

    /** What {@code onCheckpoint} refuses before counting a vote, with h = 4 (state s). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                               seq; state; signer; sender; refused as
            a vote for another sender;             8;   s;     1;      2;      FORGED_SENDER
            not a checkpoint number;               6;   s;     1;      1;      BAD_CHECKPOINT
            a forged signature;                    8;   s;     -1;     1;      BAD_SIGNATURE
            another digest for h;                  4;   t;     1;      1;      CHECKPOINT_MISMATCH
            h's digest again;                      4;   s;     1;      1;      ''
            seq 0, h before any checkpoint;        0;   t;     1;      1;      BAD_CHECKPOINT
            a fresh vote above h;                  8;   s;     1;      1;      ''
            """)
    void badVotesAreRefused(String name, long seq, String state, int signer, int sender, String refusedAs) {
        votes.install(4, state("s"), List.of(vote(4, "s", 0), vote(4, "s", 1), vote(4, "s", 2)));
        Checkpoint c = signer < 0 ? new Checkpoint(seq, state(state), sender, new byte[16]) : vote(seq, state, signer);
        assertNull(votes.onCheckpoint(c, sender));
        assertEquals(refusedAs, refusals.keySet().stream().map(Enum::name).reduce((a, b) -> a + " " + b).orElse(""));
    }

    @Test
    void ownVotesAreCastOnceAboveH() {
        Checkpoint own = votes.vote(4, state("s"), 0);
        assertNotNull(own);
        assertNull(votes.vote(4, state("s"), 0), "voted already");
        assertNull(votes.record(own));
        assertNull(votes.onCheckpoint(vote(4, "s", 1), 1));
        StableCheckpoint stable = votes.onCheckpoint(vote(4, "s", 2), 2);
        assertNotNull(stable);
        assertEquals(List.of(own), List.copyOf(votes.ownVotes()), "until installed, the own vote is retransmitted");
        votes.install(stable.seq(), stable.stateDigest(), stable.proof());
        assertEquals(List.of(), List.copyOf(votes.ownVotes()));
        assertNull(votes.vote(4, state("s"), 0), "at h");
        assertNotNull(votes.vote(8, state("u"), 0));
    }

    /** A replica's votes are capped at L/K + 1 = 3 (its highest): far-future votes cannot fill memory. */
    @Test
    void votesPerReplicaAreBounded() {
        for (long seq = 4; seq <= 40; seq += 4) {
            votes.onCheckpoint(vote(seq, "s", 3), 3);
        }
        // Replica 3's votes at 4..32 were dropped: two more at 4 do not make it stable, at 40 they do.
        assertNull(votes.onCheckpoint(vote(4, "s", 1), 1));
        assertNull(votes.onCheckpoint(vote(4, "s", 2), 2));
        assertNull(votes.onCheckpoint(vote(40, "s", 1), 1));
        StableCheckpoint stable = votes.onCheckpoint(vote(40, "s", 2), 2);
        assertNotNull(stable);
        assertEquals(40, stable.seq());
    }

    /** A stable-checkpoint proof: 2f+1 distinct replicas, one (seq, digest), each validly signed. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', textBlock = """
            # name;                        seq; proof;                valid
            three matching;                 4;   4:s:0 4:s:1 4:s:2;    true
            four matching;                  4;   4:s:0 4:s:1 4:s:2 4:s:3; true
            two;                            4;   4:s:0 4:s:1;          false
            one replica twice;              4;   4:s:0 4:s:1 4:s:1;    false
            another digest;                 4;   4:s:0 4:s:1 4:t:2;    false
            another checkpoint;             4;   4:s:0 4:s:1 8:s:2;    false
            a forged signature;             4;   4:s:0 4:s:1 4:s:-2;   false
            an unknown replica;             4;   4:s:0 4:s:1 4:s:4;    false
            not a checkpoint number;        5;   5:s:0 5:s:1 5:s:2;    false
            """)
    void proofsAreChecked(String name, long seq, String proof, boolean valid) {
        List<Checkpoint> checkpoints = new ArrayList<>();
        for (String c : proof.split(" ")) {
            String[] f = c.split(":");
            int replica = Integer.parseInt(f[2]);
            checkpoints.add(replica < 0
                    ? new Checkpoint(Long.parseLong(f[0]), state(f[1]), -replica, new byte[16])
                    : Checkpoint.signed(Long.parseLong(f[0]), state(f[1]), replica, AUTH));
        }
        assertEquals(valid, votes.validProof(seq, state("s"), checkpoints));
    }
}
