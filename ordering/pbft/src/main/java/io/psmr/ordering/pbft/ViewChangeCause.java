package io.psmr.ordering.pbft;

/**
 * Why a pillar left its view, as this replica saw it: its own complaint's reason when 2f+1 complaints moved it, or
 * the step that moved it without one. For operators (the replica's log and status), never for the protocol.
 */
public enum ViewChangeCause {
    /** No request committed for the request timeout while one waited (a leader that proposes but does not commit). */
    REQUEST_TIMEOUT("no commit within the request timeout while requests waited"),
    /** The slow-leader rule: the leader of the awaited instance did not pre-prepare it within the propose timeout. */
    SLOW_LEADER("the awaited instance's leader did not pre-prepare it within the propose timeout"),
    /** f+1 other replicas complained first, so at least one correct one did. */
    OTHERS_COMPLAINED("f+1 other replicas complained"),
    /** f+1 replicas were seen in higher views: it joined the lowest of them. */
    JOINED_HIGHER_VIEW("f+1 replicas were in higher views"),
    /** The view change it was in did not complete within its timer: it tried the next view. */
    VIEW_CHANGE_TIMER("the view change did not complete in time");

    private final String description;

    ViewChangeCause(String description) {
        this.description = description;
    }

    /** The cause in words, for a log line. */
    public String description() {
        return description;
    }
}
