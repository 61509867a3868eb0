package io.psmr.simulation.cli;

/** What {@code simulate} prints on stdout. */
public enum OutputFormat {
    /** Tables for people. */
    TEXT,
    /** CSV, header first. */
    CSV,
    /** One JSON object. */
    JSON
}
