package io.psmr.ordering.pbft;

/**
 * What the execution stage needs to know of a request: its identity (client and request number), for exactly-once
 * delivery, and its canonical bytes, for the checkpoint digest. Pure functions of the request.
 *
 * @param <R> the request type
 */
public interface RequestKeys<R> {

    /** The client that issued {@code request}. */
    long client(R request);

    /** The client's number of {@code request} (distinct per request of a client). */
    long number(R request);

    /** The canonical bytes of {@code request}, identical on every replica. */
    byte[] canonical(R request);
}
