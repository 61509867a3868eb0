/**
 * The proxy's end of replies over TCP: {@link io.psmr.proxy.net.ReplyConnector} connects to every
 * replica's {@code io.psmr.kvstore.net.ReplyServer} and feeds the replies to a
 * {@link io.psmr.kvstore.ReplyChannel}, normally a {@link io.psmr.proxy.ClientProxy}.
 */
package io.psmr.proxy.net;
