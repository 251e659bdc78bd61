// Package control is a session's control socket: the protocol (JSON-RPC 2.0,
// one message per line, over a unix socket private to the user), the server
// that answers it for a Backend, and the Client that every other program
// uses to talk to a session — the agentgrid commands, `agentgrid hook`, the
// MCP server, the demo and the benchmarks.
//
// The request and result types are the protocol: AgentInfo, SpawnRequest,
// Explanation and the *Params types are what goes over the
// wire, and the engine (package orchestrator) speaks them too. The engine
// implements Backend and starts the Server; who may do what is its decision
// (see Authorizer), from the identity the server passes it: the request's
// token and the process at the other end of the connection.
package control
