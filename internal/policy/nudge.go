package policy

import (
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// NudgeText is the delegation nudge's reminder unless its rule gives a
// message. It is the same every time, so a model reads one known line.
const NudgeText = "agentgrid: you have been reading and editing files yourself in the main view. " +
	"Consider handing such work to a background agent (agentgrid spawn, or the spawn_agent MCP tool) and keeping this conversation for planning."

// InjectedPrefix starts a prompt that agentgrid typed into an agent itself
// (a notice, not the user's turn): the nudge leaves such prompts alone.
const InjectedPrefix = "[agentgrid]"

// taskNotificationPrefix starts the prompt Claude Code reports when a
// background task wakes the model (agentgrid's rewake hook among them):
// not the user's turn either.
const taskNotificationPrefix = "<task-notification>"

// nudgeTools are the file tools whose use marks the main view's agent
// (OpenCode's read, write and edit too: names compare without case).
var nudgeTools = []string{"Read", "Write", "Edit", "MultiEdit"}

// nudge runs the delegation nudge for one ask: a file tool's result marks
// the agent, and the next prompt the user types carries one reminder. The
// caller clears the mark once the reminder is really given (a refused
// prompt keeps it). By default it applies to the main view only.
func (e *Engine) nudge(r Rule, a Agent, ask agentstate.Ask) (string, bool) {
	if len(r.Agents) == 0 && a.ID != MainAgent {
		return "", false
	}
	switch ask.Point {
	case agentstate.PointPostTool:
		if toolIn(nudgeTools, ask.Tool) {
			e.marks[a.ID] = true
		}
	case agentstate.PointPrompt:
		prompt := strings.TrimSpace(ask.Prompt)
		if !e.marks[a.ID] || prompt == "" || ask.SessionID == "" || strings.HasPrefix(prompt, InjectedPrefix) || strings.HasPrefix(prompt, taskNotificationPrefix) {
			return "", false
		}
		if r.Message != "" {
			return r.Message, true
		}
		return NudgeText, true
	}
	return "", false
}
