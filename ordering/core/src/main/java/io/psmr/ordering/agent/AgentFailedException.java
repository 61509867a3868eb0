package io.psmr.ordering.agent;

/** An agent threw and its {@link AgentRunner} fail-stopped; the cause is what it threw. */
public final class AgentFailedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String runner;
    private final String agent;

    /** A failure of {@code agent} in {@code runner}. */
    public AgentFailedException(String runner, String agent, Throwable cause) {
        super("agent " + agent + " of runner " + runner + " failed and stopped the runner: " + cause, cause);
        this.runner = runner;
        this.agent = agent;
    }

    /** The runner's name. */
    public String runner() {
        return runner;
    }

    /** The failed agent's role name. */
    public String agent() {
        return agent;
    }
}
