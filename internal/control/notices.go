package control

// MethodAgentEvents returns the notices queued for the calling agent about
// the agents it started (finished turns, exits, waits), after a cursor,
// waiting for one up to a timeout.
const MethodAgentEvents = "agent.events"
