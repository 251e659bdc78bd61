// Package codex is agentgrid's knowledge of Codex: its preset, its notify
// program and MCP server passed as -c overrides, and the adapter for its
// notify payloads (and for Claude-style lifecycle hooks, which some builds
// send).
package codex

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Name is the CLI's name.
const Name = "codex"

// CLI is Codex.
type CLI struct{}

// Name implements agentcli.CLI.
func (CLI) Name() string { return Name }

// Preset implements agentcli.CLI.
func (CLI) Preset() agentcli.Preset {
	return agentcli.Preset{Command: []string{"codex"}, PromptArgs: []string{"{prompt}"}, Hooks: true, MCP: true}
}

// Events are the notify types Codex sends to its notify program: the
// documented turn end and the approval request of newer builds.
func (CLI) Events() []string { return []string{"agent-turn-complete", "approval-requested"} }

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: Codex passes the payload as the
// notify program's last argument.
func (CLI) PayloadInArgs() bool { return true }

// Wire implements agentcli.CLI: -c overrides for notify = [<exe>, "hook",
// "codex"] and mcp_servers.agentgrid, right after the command.
func (CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	var flags []string
	if w.Hooks {
		flags = append(flags, "-c", "notify="+agentcli.TOMLArray(w.Exe, "hook", "codex"))
	}
	if w.MCP {
		flags = append(flags,
			"-c", "mcp_servers.agentgrid.command="+agentcli.TOMLString(w.Exe),
			"-c", "mcp_servers.agentgrid.args="+agentcli.TOMLArray("mcp"),
			"-c", "mcp_servers.agentgrid.env="+agentcli.TOMLInlineTable(w.MCPEnv()),
		)
	}
	return agentcli.InsertAfterCommand(argv, flags...), env, nil
}
