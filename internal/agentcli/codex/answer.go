package codex

import (
	"github.com/agentgrid/agentgrid/internal/agentcli/claude"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Ask implements agentcli.Answerer: Codex's lifecycle hooks (Claude Code's
// shape) take an answer at PreToolUse, PostToolUse, UserPromptSubmit and
// Stop; its notify program takes none.
func (CLI) Ask(payload []byte) (agentstate.Ask, bool, error) {
	a, ok, err := claude.AskOf(payload)
	if err != nil {
		// A notify payload is not a hook's; it is no error here.
		return agentstate.Ask{}, false, nil
	}
	return a, ok, nil
}

// Answer implements agentcli.Answerer: Codex reads Claude Code's hook
// output (hookSpecificOutput with permissionDecision or additionalContext,
// or decision "block" with a reason).
func (CLI) Answer(a agentstate.Ask, d agentstate.Decision) []byte { return claude.Answer(a, d) }
