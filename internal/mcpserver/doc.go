// Package mcpserver is `agentgrid mcp`: an MCP server on stdio whose tools
// (spawn_agent, list_agents, read_agent_output, send_to_agent, wait_agent,
// close_agent, set_status) forward every call to a session over its control
// socket, as a client of package control like any other.
package mcpserver
