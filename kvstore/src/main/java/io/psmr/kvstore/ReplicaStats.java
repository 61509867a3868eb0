package io.psmr.kvstore;

/**
 * A snapshot of a replica's counters.
 *
 * @param batchesDelivered    batches delivered by atomic broadcast, refused ones included
 * @param batchesRefused      batches refused whole: malformed, too large, summary rejected
 * @param refusalsUnaddressed refused batches whose header could not be read, so nobody was answered
 * @param commandsExecuted    commands executed against the store
 * @param duplicates          commands answered from the reply cache
 * @param staleRequests       commands refused as older than the reply-cache window
 * @param commandsTooLarge    commands answered TOO_LARGE on their own
 * @param commandsFull        writes refused FULL: no room in the store's replicated capacity
 * @param sessionsOpened      OPEN_SESSION commands answered
 * @param sessionRefusals     commands answered SESSION_EXPIRED
 * @param lastInstance        the last instance handed to the scheduler or refused, 0 if none
 */
public record ReplicaStats(long batchesDelivered, long batchesRefused, long refusalsUnaddressed, long commandsExecuted,
                           long duplicates, long staleRequests, long commandsTooLarge, long commandsFull,
                           long sessionsOpened, long sessionRefusals, long lastInstance) {
}
