package io.psmr.simulation;

/**
 * A simulation parameter outside its domain. Carries which parameter, so that the command line
 * can name the flag the user typed rather than a field of a record.
 */
public final class InvalidConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final SimulationConfig.Parameter parameter;

    /** An error about {@code parameter}, with a message that says what was wrong. */
    public InvalidConfigException(SimulationConfig.Parameter parameter, String message) {
        super(message);
        this.parameter = parameter;
    }

    /** The parameter that was out of its domain. */
    public SimulationConfig.Parameter parameter() {
        return parameter;
    }
}
