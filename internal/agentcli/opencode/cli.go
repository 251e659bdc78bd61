// Package opencode is agentgrid's knowledge of OpenCode: its preset, a
// generated plugin that forwards OpenCode's events to `agentgrid hook
// opencode`, the inline config (OPENCODE_CONFIG_CONTENT) that loads it and
// the MCP server, and the adapter for the events the plugin forwards.
package opencode

import (
	"encoding/json"
	"fmt"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Name is the CLI's name.
const Name = "opencode"

// CLI is OpenCode.
type CLI struct{}

// Name implements agentcli.CLI.
func (CLI) Name() string { return Name }

// Preset implements agentcli.CLI.
func (CLI) Preset() agentcli.Preset {
	return agentcli.Preset{Command: []string{"opencode"}, PromptArgs: []string{"--prompt", "{prompt}"}, Hooks: true, MCP: true, Description: "OpenCode, a coding agent for many model providers"}
}

// busEvents are the OpenCode bus events the plugin forwards.
func busEvents() []string {
	return []string{
		"session.idle", "session.status", "session.error", "session.created", "session.deleted",
		"permission.updated", "permission.asked", "permission.replied", "server.instance.disposed",
	}
}

// Events are what the plugin forwards: the bus events and the plugin hooks
// it implements (chat.message, tool.execute.before and after).
func (CLI) Events() []string {
	return append(busEvents(), "chat.message", "tool.execute.before", "tool.execute.after")
}

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: the plugin writes the payload to stdin.
func (CLI) PayloadInArgs() bool { return false }

// Wire implements agentcli.CLI: OPENCODE_CONFIG_CONTENT (inline config
// merged over the user's) adding the generated plugin and the MCP server;
// with Teams ([kinds.opencode] omo), oh-my-opencode-slim's panes (see
// wireSlimPanes).
func (CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	if w.Teams {
		var err error
		if env, err = wireSlimPanes(w.StateDir, env); err != nil {
			return nil, nil, err
		}
	}
	inline := map[string]any{}
	if w.Hooks {
		path, err := w.File("opencode-plugin.js", []byte(Plugin(w.Exe)))
		if err != nil {
			return nil, nil, err
		}
		inline["plugin"] = []string{"file://" + path}
	}
	if w.MCP {
		inline["mcp"] = map[string]any{"agentgrid": map[string]any{
			"type": "local", "command": []string{w.Exe, "mcp"}, "enabled": true, "environment": w.MCPEnv(),
		}}
	}
	b, err := json.Marshal(inline)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the opencode config: %w", err)
	}
	return argv, append(env, "OPENCODE_CONFIG_CONTENT="+string(b)), nil
}

// ModelArgs implements agentcli.CLI: OpenCode takes --model provider/model ("anthropic/claude-haiku-4-5").
func (CLI) ModelArgs(model string) []string {
	if model == "" {
		return nil
	}
	return []string{"--model", model}
}

// Provider implements agentcli.CLI: OpenCode names the provider in the model: the part before the first "/".
func (CLI) Provider(model string) string { return agentcli.ProviderPrefix(model) }
