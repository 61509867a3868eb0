/**
 * Fault-injecting links between the processes of a loopback cluster, after Toxiproxy:
 * {@link io.psmr.kvstore.cluster.links.LinkProxy} relays one port under a
 * {@link io.psmr.kvstore.cluster.links.LinkCondition} (pass, blackhole, delay, throttle) and resets its connections
 * on demand; {@link io.psmr.kvstore.cluster.links.LinkHost} runs one per port per directed pair of processes in a
 * process of its own and takes commands over HTTP ({@link io.psmr.kvstore.cluster.links.LinkControl});
 * {@link io.psmr.kvstore.cluster.links.LinkTable} ({@code links.json}) tells each process which port to dial
 * instead of which. The protocols do not know: a node dials the addresses its copy of the cluster gives it.
 */
package io.psmr.kvstore.cluster.links;
