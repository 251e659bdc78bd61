// Package claude is agentgrid's knowledge of Claude Code: its preset, the
// hook events a per-launch settings file subscribes to, that settings file
// and the MCP config passed with --settings and --mcp-config, and the
// adapter for its hook payloads.
package claude

import (
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Name is the CLI's name.
const Name = "claude"

// TeamsEnv turns on Claude Code's (experimental) agent teams.
const TeamsEnv = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"

// CLI is Claude Code.
type CLI struct{}

// Name implements agentcli.CLI.
func (CLI) Name() string { return Name }

// Preset implements agentcli.CLI.
func (CLI) Preset() agentcli.Preset {
	return agentcli.Preset{Command: []string{"claude"}, PromptArgs: []string{"{prompt}"}, Hooks: true, MCP: true, Description: "Claude Code, Anthropic's coding agent"}
}

// Events are the Claude Code hook events the adapter understands; a
// per-launch settings file subscribes to all of them.
func (CLI) Events() []string {
	return []string{
		"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"PermissionRequest", "Notification", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
		"PreCompact", "SessionEnd",
	}
}

// toolEvents are the Events that take a tool matcher.
func toolEvents() []string {
	return []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"}
}

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: the payload comes on stdin.
func (CLI) PayloadInArgs() bool { return false }

// Wire implements agentcli.CLI: a settings file with hooks calling
// `<exe> hook claude` for every event the adapter maps, and an MCP config
// naming `<exe> mcp`, both generated in StateDir and passed with
// --mcp-config and --settings. With Teams the settings put teammates in
// tmux panes and the environment turns agent teams on.
func (c CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	var flags []string
	if w.MCP {
		path, err := w.JSONFile("mcp.json", map[string]any{"mcpServers": map[string]agentcli.MCPServer{"agentgrid": w.MCPServer()}})
		if err != nil {
			return nil, nil, err
		}
		flags = append(flags, "--mcp-config", path)
	}
	// --settings always follows --mcp-config: the latter takes several
	// values and would otherwise swallow a prompt that comes next.
	settings := map[string]any{}
	if w.Hooks {
		cmd := agentcli.HookCommand{Type: "command", Command: agentcli.ShellQuote(w.Exe) + " hook claude", Timeout: int(w.HookTimeout() / time.Second)}
		table := agentcli.HookTable(c.Events(), toolEvents(), cmd)
		// Beside the Stop hook that answers, the waiter that wakes the
		// model once the agents it started have finished (exit 2 of an
		// asyncRewake hook), with nothing typed into its screen.
		table["Stop"][0].Hooks = append(table["Stop"][0].Hooks, RewakeHook(w.Exe))
		settings["hooks"] = table
	}
	if w.Teams {
		// The settings key, not the CLI flag, which not every version has.
		settings["teammateMode"] = "tmux"
		env = append(env, TeamsEnv+"=1")
	}
	path, err := w.JSONFile("claude-settings.json", settings)
	if err != nil {
		return nil, nil, err
	}
	flags = append(flags, "--settings", path)
	return agentcli.InsertAfterCommand(argv, flags...), env, nil
}

// ReadyEvent implements agentcli.PromptTyper: a prompt on Claude Code's
// command line is sent before its MCP servers are connected (its first
// request lists none of agentgrid's tools, whatever MCP_CONNECTION_NONBLOCKING
// or CLAUDE_CODE_MCP_STARTUP_WAIT_MS say), so agentgrid types it once
// SessionStart has run and the MCP server has listed its tools.
func (CLI) ReadyEvent() string { return "SessionStart" }

// RewakeHook is the Stop hook that waits in the background for the agents
// this one started (`agentgrid hook claude --rewake`) and wakes the model
// with their notices.
func RewakeHook(exe string) agentcli.HookCommand {
	return agentcli.HookCommand{
		Type: "command", Command: agentcli.ShellQuote(exe) + " hook claude --rewake", Timeout: agentcli.RewakeTimeoutSeconds,
		AsyncRewake:   true,
		RewakeMessage: "Notices from agentgrid about the agents you started:",
		RewakeSummary: "agentgrid: the agents Claude started have finished",
	}
}

// ModelArgs implements agentcli.CLI: Claude Code takes --model NAME ("claude-haiku-4-5", or an alias such as "opus").
func (CLI) ModelArgs(model string) []string {
	if model == "" {
		return nil
	}
	return []string{"--model", model}
}

// Provider implements agentcli.CLI: Claude Code always talks to Anthropic.
func (CLI) Provider(string) string { return "anthropic" }
