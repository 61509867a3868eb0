/**
 * Key files of a PBFT cluster of real processes: {@link io.psmr.ordering.pbft.keys.PbftKeyFiles} generates
 * one owner-only file per replica holding exactly that replica's secrets and loads it as
 * {@link io.psmr.ordering.pbft.PbftKeys}, refusing bad files with a message naming the file
 * ({@link io.psmr.ordering.pbft.keys.PbftKeyFileException}). Format and procedures: {@code docs/pbft.md}, "Keys".
 */
package io.psmr.ordering.pbft.keys;
