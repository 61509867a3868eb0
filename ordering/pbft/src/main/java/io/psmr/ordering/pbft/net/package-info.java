/**
 * PBFT between processes: {@link io.psmr.ordering.pbft.net.PbftNettyTransport}, one replica's
 * {@link io.psmr.ordering.pbft.PillarNetwork} over TCP, with one private connection per pillar per replica pair
 * (COP §4.2.3), built on the shared helper in {@link io.psmr.ordering.transport}.
 */
package io.psmr.ordering.pbft.net;
