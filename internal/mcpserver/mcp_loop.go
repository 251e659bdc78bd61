package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// loopInfo is an agent's loop in list_agents and wait_agent.
type loopInfo = control.LoopInfo

type loopInput struct {
	ID              string  `json:"id"`
	Op              string  `json:"op,omitempty"`
	Promise         string  `json:"promise,omitempty"`
	Max             int     `json:"max,omitempty"`
	CooldownSeconds float64 `json:"cooldown_seconds,omitempty"`
	Forever         bool    `json:"forever,omitempty"`
	ForSeconds      float64 `json:"for_seconds,omitempty"`
	Task            string  `json:"task,omitempty"`
	WhileTodos      bool    `json:"while_todos,omitempty"`
	Stall           int     `json:"stall,omitempty"`
}

func init() {
	toolSchemas[control.ToolLoop] = `{
  "type": "object", "additionalProperties": false, "required": ["id"],
  "properties": {
    "id": ` + agentIDSchema + `,
    "op": {"type": "string", "enum": ["start", "stop", "resume"], "description": "start (default) a loop, stop it, or resume a paused one"},
    "promise": {"type": "string", "minLength": 1, "maxLength": 200, "description": "start: the loop succeeds when the agent's final message contains <promise>PROMISE</promise>"},
    "max": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "start: at most this many turns, the first included (required unless forever)"},
    "cooldown_seconds": {"type": "number", "minimum": 0, "maximum": 86400, "description": "start: wait this long after a turn before the next"},
    "forever": {"type": "boolean", "description": "start: no bound on the turns; needs for_seconds"},
    "for_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": 604800, "description": "start: stop the loop once it has run this long"},
    "task": {"type": "string", "maxLength": 16384, "description": "start: the task repeated in every continuation (default: the agent's last prompt)"},
    "while_todos": {"type": "boolean", "description": "start (Claude Code): go on while the agent's todo list has open items; none open is a success, and promise becomes optional"},
    "stall": {"type": "integer", "minimum": 1, "maximum": 100, "description": "start, with while_todos: stop after this many continuations in a row that complete no todo item (default 3)"}
  }
}`
}

func addLoopTool(s *server, t mcpTools) {
	addTool(s, control.ToolLoop, "Keep an agent on its task: after each turn it finishes, the session sends it the task again (iteration k/max and the promise's format) "+
		"until its final message contains <promise>PROMISE</promise>, max turns ran, or the user types into its pane (which pauses the loop). "+
		"op stop ends a loop, op resume continues a paused one. Returns the loop: iteration, status (running, paused, succeeded, stopped) and why.",
		&toolAnnotations{Title: "Loop agent", DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}, t.loop)
}

func (t mcpTools) loop(ctx context.Context, in loopInput) (any, error) {
	p := control.LoopParams{ID: in.ID, Op: in.Op}
	if p.Op == "" {
		p.Op = control.LoopStart
	}
	if p.Op == control.LoopStart {
		p.LoopSpec = control.LoopSpec{Promise: in.Promise, Max: in.Max, Forever: in.Forever, Task: in.Task, WhileTodos: in.WhileTodos, Stall: in.Stall}
		if in.CooldownSeconds > 0 {
			p.CooldownMS = secondsDuration(in.CooldownSeconds, time.Millisecond, control.MaxLoopCooldown).Milliseconds()
		}
		if in.ForSeconds > 0 {
			p.ForMS = secondsDuration(in.ForSeconds, time.Millisecond, control.MaxLoopFor).Milliseconds()
		}
		if err := p.Check(); err != nil {
			return nil, err
		}
	}
	ctx, cancel := callCtx(ctx)
	defer cancel()
	l, err := t.c.Loop(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("loop %s %s: %w", p.Op, in.ID, err)
	}
	return l, nil
}
