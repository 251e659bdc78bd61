package orchestrator

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// A continuation loop keeps an agent on its task: after each finished turn
// the session decides (decideLoop, pure) whether to send the task again,
// pause for the user, or end the loop. The engine's side (loop_engine.go)
// feeds it the turns, the user's keys and the clock.

// typeSettle is the least time between a turn's end and a continuation
// typed into the pane: the CLI finishes its end-of-turn work (its hook
// runs, its input box comes back) before the first key arrives.
const typeSettle = 300 * time.Millisecond

// loopState is one agent's loop.
type loopState struct {
	spec      control.LoopSpec
	iteration int // the turn the loop is in; 1 is the first
	status    string
	started   time.Time
	reason    string
	updated   time.Time
	// typed is set when the user typed into the pane since the last
	// continuation: the next finished turn pauses the loop.
	typed bool
	// With --while-todos: the items done at the last continuation, and
	// how many continuations in a row added none.
	doneAt, stalls int
}

// loopTurn is what the session knows of a finished turn.
type loopTurn struct {
	// said is the turn's final assistant message, and only that: the
	// prompt (which carries the promise's format) is never searched.
	said string
	// waiting is set when the agent waits for the user (a permission
	// prompt, a question) as the turn ends.
	waiting bool
	// answerable is set when the turn ended at a hook whose answer makes
	// the CLI go on (Claude Code's Stop): a continuation can be that answer.
	answerable bool
	// todos is the agent's todo list as last seen, nil if never.
	todos *agentstate.Todos
	now   time.Time
}

// loopStep is the decision on a finished turn: the loop's new status and
// why, and when it continues, the iteration and the prompt to send.
type loopStep struct {
	status string
	reason string
	next   int // the next iteration, 0 when the loop does not continue
	prompt string
	// answer is set when the continuation goes out as the hook's answer;
	// otherwise it is typed into the pane delay after the turn ended, once
	// the agent is idle.
	answer bool
	delay  time.Duration
	// notify is set on a pause the user has to act on.
	notify bool
	// doneAt and stalls are the loop's new todo progress (--while-todos).
	doneAt, stalls int
}

// decideLoop decides what a finished turn means for a loop. The order is
// the issue's: the user's keys first, then a wait for the user, then the
// promise, then the bounds; only then does the loop continue.
func decideLoop(l loopState, t loopTurn) loopStep {
	keep := loopStep{status: l.status, reason: l.reason}
	if l.status != control.LoopRunning {
		return keep
	}
	promised := hasPromise(t.said, l.spec.Promise)
	switch {
	case l.typed:
		return loopStep{status: control.LoopPaused, reason: "paused: you typed into the pane; resume with agentgrid loop resume"}
	case t.waiting:
		return loopStep{status: control.LoopPaused, reason: "paused: the agent is waiting for you; resume with agentgrid loop resume", notify: true}
	case promised:
		return loopStep{status: control.LoopSucceeded, reason: fmt.Sprintf("succeeded: the promise came in iteration %d", l.iteration)}
	case l.spec.WhileTodos && t.todos != nil && t.todos.Open == 0:
		return loopStep{status: control.LoopSucceeded, reason: fmt.Sprintf("succeeded: the todo list has no open items after iteration %d", l.iteration)}
	case l.spec.Max > 0 && l.iteration >= l.spec.Max:
		return loopStep{status: control.LoopStopped, reason: fmt.Sprintf("stopped: %d iterations without the promise", l.iteration)}
	case l.spec.For() > 0 && t.now.Sub(l.started) >= l.spec.For():
		return loopStep{status: control.LoopStopped, reason: fmt.Sprintf("stopped: ran for %s without the promise", l.spec.For())}
	}
	doneAt, stalls := l.doneAt, l.stalls
	if l.spec.WhileTodos {
		// Progress is a change in the items done since the last
		// continuation (fewer: a new list was written). Only turns that
		// a continuation started count against it.
		switch {
		case t.todos != nil && t.todos.Done != l.doneAt:
			doneAt, stalls = t.todos.Done, 0
		case l.iteration > 1:
			if stalls++; stalls >= l.spec.Stalls() {
				return loopStep{status: control.LoopStopped, reason: fmt.Sprintf("stopped: %d continuations in a row completed no todo item", stalls)}
			}
		}
	}
	next := l.iteration + 1
	step := loopStep{
		status: control.LoopRunning,
		reason: fmt.Sprintf("continued: iteration %d", next),
		next:   next,
		prompt: loopPrompt(l.spec, next),
		doneAt: doneAt,
		stalls: stalls,
	}
	// A cooldown cannot be spent inside a hook (it has 200 ms): the
	// continuation is then typed.
	if t.answerable && l.spec.Cooldown() == 0 {
		step.answer = true
	} else {
		step.delay = max(l.spec.Cooldown(), typeSettle)
	}
	return step
}

// hasPromise reports whether said carries <promise>TEXT</promise> exactly.
func hasPromise(said, promise string) bool {
	return promise != "" && strings.Contains(said, "<promise>"+promise+"</promise>")
}

// loopPrompt is the prompt of iteration k: where the loop is, the original
// task, and the promise's format.
func loopPrompt(spec control.LoopSpec, k int) string {
	var of string
	if spec.Max > 0 {
		of = fmt.Sprintf("%d/%d", k, spec.Max)
	} else {
		of = fmt.Sprintf("%d, for at most %s", k, spec.For())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[agentgrid loop: iteration %s]\n\n", of)
	b.WriteString(strings.TrimSpace(spec.Task))
	b.WriteString("\n\nKeep working on this task until it is completely done and checked.")
	if spec.WhileTodos {
		b.WriteString(" Work through your todo list and mark each item completed when it is done; the loop goes on while items are open.")
	}
	if spec.Promise != "" {
		fmt.Fprintf(&b, " Only then end your final message with the line <promise>%s</promise>. "+
			"Do not write that line before the task is done.", spec.Promise)
	}
	return b.String()
}

// loopKey is what a user's input to a pane means to its loop.
type loopKey int

const (
	loopKeyNone      loopKey = iota // no typing: a focus or mouse report
	loopKeyTyped                    // the user typed: pause at the turn's end
	loopKeyInterrupt                // Esc or ctrl+c: pause now
)

// classifyLoopInput sorts the bytes of one Engine.Input call. Reports the
// terminal sends on its own (focus in and out, mouse) are not typing.
func classifyLoopInput(data []byte) loopKey {
	s := string(data)
	switch {
	case len(s) == 0:
		return loopKeyNone
	case isInterruptKey(data):
		return loopKeyInterrupt
	case s == "\x1b[I" || s == "\x1b[O":
		return loopKeyNone
	case strings.HasPrefix(s, "\x1b[<") || strings.HasPrefix(s, "\x1b[M"):
		return loopKeyNone
	}
	return loopKeyTyped
}
