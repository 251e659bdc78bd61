// Package registry lists the agent CLIs agentgrid knows, each an
// agentcli.CLI: the ones with hooks (claude, codex, gemini, opencode) and
// the plain presets (aider, shell). Config validates `[kinds.NAME] hooks`
// against it and takes its built-in kinds from it, the engine wires a
// process through it, and `agentgrid hook NAME` adapts payloads through it.
package registry

import (
	"time"

	"fmt"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/claude"
	"github.com/agentgrid/agentgrid/internal/agentcli/codex"
	"github.com/agentgrid/agentgrid/internal/agentcli/gemini"
	"github.com/agentgrid/agentgrid/internal/agentcli/opencode"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// all is every CLI, sorted by name.
var all = []agentcli.CLI{
	agentcli.Plain{CLIName: "aider", ModelFlag: "--model", Defaults: agentcli.Preset{
		Command: []string{"aider"}, PromptArgs: []string{"--message", "{prompt}"}, Description: "Aider, a pair programmer for many model providers",
	}},
	claude.CLI{},
	codex.CLI{},
	gemini.CLI{},
	opencode.CLI{},
	agentcli.Plain{CLIName: "shell", Defaults: agentcli.Preset{Description: "your shell ($SHELL)"}},
}

// All returns every CLI, sorted by name.
func All() []agentcli.CLI { return append([]agentcli.CLI(nil), all...) }

// Lookup returns the CLI of that name.
func Lookup(name string) (agentcli.CLI, bool) {
	for _, c := range all {
		if c.Name() == name {
			return c, true
		}
	}
	return nil, false
}

// Adapters names the CLIs with hooks, sorted: the values `[kinds.NAME]
// hooks` and `agentgrid hook` accept.
func Adapters() []string {
	var names []string
	for _, c := range all {
		if c.Events() != nil {
			names = append(names, c.Name())
		}
	}
	return names
}

// Adapter returns the CLI with hooks of that name.
func Adapter(name string) (agentcli.CLI, bool) {
	c, ok := Lookup(name)
	if !ok || c.Events() == nil {
		return nil, false
	}
	return c, true
}

// MaxPayload is the largest hook payload Adapt reads.
const MaxPayload = 1 << 20

// HookTimeout is the timeout the generated settings give every hook of an
// agent whose $AGENTGRID_HOOK_BUDGET is budget ("" when unset): an answer
// printed later is not read (agentcli.HookTimeout).
func HookTimeout(budget string) time.Duration { return agentcli.HookTimeout(budget) }

// MaxHookBudget caps $AGENTGRID_HOOK_BUDGET (agentcli.MaxHookBudget).
const MaxHookBudget = agentcli.MaxHookBudget

// HookBudget is the budget $AGENTGRID_HOOK_BUDGET=v sets, if any
// (agentcli.HookBudget).
func HookBudget(v string) (time.Duration, bool) { return agentcli.HookBudget(v) }

// RewakeTimeout is the timeout the generated settings give the rewake
// waiter's hook (agentcli.RewakeTimeoutSeconds), which `agentgrid hook
// --rewake` stays under.
const RewakeTimeout = agentcli.RewakeTimeoutSeconds * time.Second

// Caps on the text an adapter puts in a Signal.
const (
	maxWhy    = 160
	maxStatus = 120
)

// Adapt turns one hook payload of the named CLI into a Signal, with its
// text made safe to draw. An event the adapter does not know yields a
// Signal with only Event set (nothing to do), not an error; malformed JSON,
// oversized payloads and unknown CLIs are errors.
func Adapt(cli string, payload []byte) (agentstate.Signal, error) {
	c, ok := Adapter(cli)
	if !ok {
		return agentstate.Signal{}, fmt.Errorf("unknown agent CLI %q; known: %s", cli, strings.Join(Adapters(), ", "))
	}
	if len(payload) > MaxPayload {
		return agentstate.Signal{}, fmt.Errorf("%s hook payload is %d bytes, more than the %d allowed", cli, len(payload), MaxPayload)
	}
	s, err := c.Adapt(payload)
	if err != nil {
		return agentstate.Signal{}, fmt.Errorf("read the %s hook payload: %w", cli, err)
	}
	s.Why = oneline.Sanitize(s.Why, maxWhy)
	s.Status = oneline.Sanitize(s.Status, maxStatus)
	return s, nil
}
