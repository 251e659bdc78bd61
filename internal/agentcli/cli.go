// Package agentcli is what agentgrid knows about one agent CLI, behind one
// interface: the built-in preset ([kinds.NAME] defaults), the hook events its
// wiring subscribes to, the per-process wiring (settings files, flags,
// environment) that connects it to a session, and the adapter that turns
// its hook payloads into agentstate.Signals. Each CLI lives in a package of
// its own below this one (claude, codex, gemini, opencode); package registry
// lists them. This package also holds what those packages share: the
// Wiring they write with and the helpers that read payloads.
package agentcli

import (
	"fmt"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// CLI is one agent CLI agentgrid can start and watch.
type CLI interface {
	// Name is the CLI's name: its built-in kind, the value of
	// `[kinds.NAME] hooks`, and the argument of `agentgrid hook NAME`.
	Name() string
	// Preset is the CLI's built-in [kinds.NAME] preset.
	Preset() Preset
	// Events lists the CLI's own hook events that its wiring delivers to
	// `agentgrid hook NAME`; nil for a CLI without hooks.
	Events() []string
	// Wire adds the per-process hook and MCP wiring that w asks for to the
	// CLI's argv and environment, writing any files it needs into
	// w.StateDir. It never edits the user's own configuration.
	Wire(w Wiring, argv, env []string) ([]string, []string, error)
	// Adapt turns one hook payload into a Signal. An event it does not know
	// yields a Signal with only Event (and SessionID) set, not an error;
	// malformed payloads are errors. Callers go through registry.Adapt,
	// which caps the payload and sanitises the text.
	Adapt(payload []byte) (agentstate.Signal, error)
	// PayloadInArgs reports whether the CLI passes its payload as the last
	// command-line argument of the hook program rather than on stdin.
	PayloadInArgs() bool
	// ModelArgs are the arguments that tell the CLI which model to use,
	// added to its command as separate argv elements (never through a
	// shell); nil when the CLI takes no model.
	ModelArgs(model string) []string
	// Provider names who serves model for this CLI ("anthropic", "openai",
	// "google", or the "provider/" prefix of the model); "" when unknown.
	// The [limits.providers] caps are looked up by it.
	Provider(model string) string
}

// PromptTyper is a CLI whose prompt agentgrid types into it once it is
// ready, instead of passing it on its command line, when its kind wires
// both its hooks and agentgrid's MCP server: started with a prompt
// argument, the CLI sends that prompt's model request before its MCP
// servers are connected, so the model's first turn lacks agentgrid's
// tools. The prompt is typed once the CLI's ReadyEvent hook has arrived and
// its MCP server has answered the CLI's tools/list (or after a deadline).
type PromptTyper interface {
	// ReadyEvent is the hook event after which the CLI takes typed input
	// ("SessionStart").
	ReadyEvent() string
}

// Preset is a CLI's built-in preset: what config.DefaultKinds holds for it.
type Preset struct {
	// Command is the argv that starts the CLI; empty means the user's shell.
	Command []string
	// PromptArgs is appended to Command when a prompt is given; "{prompt}" is replaced.
	PromptArgs []string
	// Hooks attaches the CLI's own hooks (`hooks = NAME`).
	Hooks bool
	// MCP attaches agentgrid's MCP server.
	MCP bool
	// Description says what the CLI is, for `agentgrid kinds` and the MCP
	// list_kinds tool.
	Description string
}

// Plain is a CLI agentgrid only starts: a preset without hooks or wiring
// (aider, a shell).
type Plain struct {
	CLIName  string
	Defaults Preset
	// ModelFlag is the flag that takes a model ("--model"); empty when the
	// program takes none.
	ModelFlag string
}

// Name implements CLI.
func (p Plain) Name() string { return p.CLIName }

// Preset implements CLI.
func (p Plain) Preset() Preset { return p.Defaults }

// Events implements CLI: a plain CLI has none.
func (Plain) Events() []string { return nil }

// Wire implements CLI: a plain CLI runs as it is.
func (Plain) Wire(_ Wiring, argv, env []string) ([]string, []string, error) { return argv, env, nil }

// Adapt implements CLI: a plain CLI sends no hook payloads.
func (p Plain) Adapt([]byte) (agentstate.Signal, error) {
	return agentstate.Signal{}, fmt.Errorf("%s has no hooks to adapt", p.CLIName)
}

// PayloadInArgs implements CLI.
func (Plain) PayloadInArgs() bool { return false }

// ModelArgs implements CLI: ModelFlag and the model, or nil.
func (p Plain) ModelArgs(model string) []string {
	if p.ModelFlag == "" || model == "" {
		return nil
	}
	return []string{p.ModelFlag, model}
}

// Provider implements CLI: the "provider/" prefix of the model, if any.
func (Plain) Provider(model string) string { return ProviderPrefix(model) }
