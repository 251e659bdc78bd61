// Package mcpserver is `agentgrid mcp`: an MCP server on stdio whose tools
// (control.MCPTools: spawn_agent, list_agents, read_agent_output and the
// rest) forward every call to a session over its control socket, as a
// client of package control like any other.
package mcpserver
