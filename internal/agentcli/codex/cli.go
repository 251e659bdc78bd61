// Package codex is agentgrid's knowledge of Codex: its preset, its
// lifecycle hooks and MCP server passed as -c overrides, and the adapter for
// its hook payloads (Claude Code's shape) and notify payloads.
package codex

import (
	"slices"
	"strconv"
	"time"

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
	return agentcli.Preset{Command: []string{"codex"}, PromptArgs: []string{"{prompt}"}, Hooks: true, MCP: true, Description: "Codex CLI, OpenAI's coding agent"}
}

// Events are the lifecycle hooks the wiring subscribes to. Codex 0.171
// sends them in Claude Code's shape on stdin. Its notify program is not
// used: it only ever reports agent-turn-complete, also for side threads
// (the title it generates during a turn), which would end the turn early.
func (CLI) Events() []string {
	return []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"}
}

// toolEvents are the Events that take a tool matcher.
func toolEvents() []string { return []string{"PreToolUse", "PermissionRequest", "PostToolUse"} }

// Adapt implements agentcli.CLI.
func (CLI) Adapt(payload []byte) (agentstate.Signal, error) { return adapt(payload) }

// PayloadInArgs implements agentcli.CLI: Codex passes a notify program its
// payload as the last argument (hooks get theirs on stdin, and `agentgrid
// hook codex` then has no argument to read).
func (CLI) PayloadInArgs() bool { return true }

// Wire implements agentcli.CLI: -c overrides for hooks.<Event> running
// `<exe> hook codex` and for mcp_servers.agentgrid, right after the
// command. Codex asks the user once to trust new hooks ("Hooks need
// review"); its trust is kept per hook content, and the hook command is the
// same for every agent, so it asks once per agentgrid binary.
func (c CLI) Wire(w agentcli.Wiring, argv, env []string) ([]string, []string, error) {
	var flags []string
	if w.Hooks {
		// timeout is in seconds, as Claude Code's: Codex 0.171 ends a hook
		// that runs longer and goes on ("hook timed out after 2s"); it
		// ignores timeout_sec, which its binary also names.
		handler := "{type=\"command\",command=" + agentcli.TOMLString(agentcli.ShellQuote(w.Exe)+" hook codex") +
			",timeout=" + strconv.Itoa(int(w.HookTimeout()/time.Second)) + "}"
		for _, ev := range c.Events() {
			group := "hooks=[" + handler + "]"
			if slices.Contains(toolEvents(), ev) {
				group = "matcher=\"*\"," + group
			}
			flags = append(flags, "-c", "hooks."+ev+"=[{"+group+"}]")
		}
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

// ModelArgs implements agentcli.CLI: Codex takes -m/--model NAME.
func (CLI) ModelArgs(model string) []string {
	if model == "" {
		return nil
	}
	return []string{"--model", model}
}

// Provider implements agentcli.CLI: Codex talks to OpenAI.
func (CLI) Provider(string) string { return "openai" }
