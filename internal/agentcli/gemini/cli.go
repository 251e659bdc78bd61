// Package gemini is agentgrid's knowledge of Gemini CLI: its preset, the
// hook events its per-process settings file subscribes to, that file
// (passed through GEMINI_CLI_SYSTEM_SETTINGS_PATH) and the adapter for its
// hook payloads.
package gemini

import (
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Name is the CLI's name.
const Name = "gemini"

// CLI is Gemini CLI.
type CLI struct{}

// Name implements agentcli.CLI.
func (CLI) Name() string { return Name }

// Preset implements agentcli.CLI.
func (CLI) Preset() agentcli.Preset {
	return agentcli.Preset{Command: []string{"gemini"}, PromptArgs: []string{"-i", "{prompt}"}, Hooks: true, MCP: true}
}

// Events are the Gemini CLI hook events the settings file subscribes to.
// BeforeModel/AfterModel are left out on purpose: AfterModel fires for
// every streamed chunk and would cost a process per chunk.
func (CLI) Events() []string {
	return []string{
		"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "Notification",
		"AfterAgent", "PreCompress", "SessionEnd",
	}
}

// toolEvents are the Events that take a tool matcher.
func toolEvents() []string { return []string{"BeforeTool", "AfterTool"} }

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: the payload comes on stdin.
func (CLI) PayloadInArgs() bool { return false }

// Wire implements agentcli.CLI: a settings file with hooks and mcpServers,
// passed through GEMINI_CLI_SYSTEM_SETTINGS_PATH (the one per-process
// settings file Gemini CLI reads; it takes the place of
// /etc/gemini-cli/settings.json for this process).
func (c CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	settings := map[string]any{}
	if w.Hooks {
		cmd := agentcli.HookCommand{Type: "command", Name: "agentgrid", Command: agentcli.ShellQuote(w.Exe) + " hook gemini", Timeout: agentcli.HookTimeoutSeconds * 1000}
		settings["hooks"] = agentcli.HookTable(c.Events(), toolEvents(), cmd)
		settings["hooksConfig"] = map[string]any{"enabled": true}
	}
	if w.MCP {
		settings["mcpServers"] = map[string]agentcli.MCPServer{"agentgrid": w.MCPServer()}
	}
	path, err := w.JSONFile("gemini-settings.json", settings)
	if err != nil {
		return nil, nil, err
	}
	return argv, append(env, "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+path), nil
}
