package io.psmr.ordering.pbft;

/** A client request's identity: the client and its request number. */
public record RequestId(long client, long number) {
}
