package io.psmr.ordering.pbft;

/**
 * Which replicas may lead instances (ISS's leader selection policy, Spinning's blacklist). Safety never
 * depends on it: every choice of leader is safe, only liveness and speed differ.
 */
public enum LeaderSelection {
    /** Every replica leads in its turn, a faulty one too (each of its turns costs a view change). */
    ALL_REPLICAS("all"),
    /**
     * A replica that f+1 VIEW-CHANGEs of a NEW-VIEW name as the leader the view change was about is
     * excluded from leading this pillar for a backoff counted in instances, doubling each time it is
     * suspected again (capped), at most f at once ({@link LeaderPolicy}).
     */
    BLACKLIST("blacklist");

    private final String cliName;

    LeaderSelection(String cliName) {
        this.cliName = cliName;
    }

    /** The name on the command line and in cluster.json. */
    public String cliName() {
        return cliName;
    }

    /**
     * The selection named {@code name} on the command line.
     *
     * @throws IllegalArgumentException naming the valid names
     */
    public static LeaderSelection fromCliName(String name) {
        for (LeaderSelection s : values()) {
            if (s.cliName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown leader selection '" + name + "'; expected all or blacklist");
    }
}
