/**
 * Replies over TCP: {@link io.psmr.kvstore.net.ReplyServer}, a replica's {@link io.psmr.kvstore.ReplyRouter}
 * that sends each reply to its proxy's connection, and {@link io.psmr.kvstore.net.ReplyProtocol}, the
 * handshake both ends share. The proxy's end ({@code io.psmr.proxy.net.ReplyConnector}) lives in the
 * client-proxy module. The wire format is described in {@code docs/kvstore.md}.
 */
package io.psmr.kvstore.net;
