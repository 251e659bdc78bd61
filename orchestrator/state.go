package orchestrator

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Sources of state evidence, strongest first. The process is the only
// authority on done/failed and exit codes; hooks speak for the agent CLI;
// terminal signals (bell, notifications) and user input come next; output
// activity is used only when no fresher source has spoken.
const (
	sourceEngine   = "engine"
	sourceProcess  = "process"
	sourceHook     = "hook"
	sourceTerminal = "terminal"
	sourceInput    = "input"
	sourceActivity = "activity"
)

// evidenceKind is what happened to an agent.
type evidenceKind int

const (
	evQueued      evidenceKind = iota // waiting for a slot or a limit
	evStarting                        // the engine is starting the process
	evStarted                         // the process runs
	evStartFailed                     // the process could not start (Why has the error)
	evExited                          // the process exited (Code, Killed)
	evHook                            // a hook signal (HookState, Why, Source, SubagentDelta)
	evTerminal                        // bell or OSC 9/777/99 notification (Why)
	evInput                           // the user typed into the pane (Interrupt, Answer)
	evActivity                        // the child wrote output
	evQuiet                           // no output for idle_after
)

// evidence is one observation about an agent, fed to fuseState.
type evidence struct {
	Kind          evidenceKind
	Time          time.Time
	Why           string
	Source        string           // hooks: "hook:claude"
	HookState     agentstate.State // "", running, waiting, idle
	SubagentDelta int
	Code          int
	Killed        bool
	Interrupt     bool
	// Answer is set when the input can answer a prompt (Enter, Esc, a
	// letter or digit), not when it only moves in a menu.
	Answer bool
}

// fusion is an agent's fused state plus the memory the rules need.
type fusion struct {
	State     agentstate.State
	Why       string
	Source    string
	Since     time.Time
	Confirmed time.Time
	Subagents int
	// InterruptAt is when the user last pressed Esc/ctrl+c while the agent
	// was running; the next idle from a hook is then labelled interrupted.
	InterruptAt time.Time
	Interrupted bool
	// LastHook is when a hook last set a state.
	LastHook time.Time
}

// fusionConfig holds the time windows of the rules.
type fusionConfig struct {
	// StaleAfter is how long a hook's or the terminal's word stands against
	// output activity.
	StaleAfter time.Duration
	// IdleAfter is the quiet period that makes a running agent idle.
	IdleAfter time.Duration
}

// fuseState applies one piece of evidence to f and returns the new fused
// state. It is pure: the engine keeps f per agent and records transitions.
func fuseState(f fusion, ev evidence, cfg fusionConfig) fusion {
	if f.State.Finished() {
		return f // only the process ends an agent, and only once
	}
	t := ev.Time
	switch ev.Kind {
	case evQueued:
		f = setState(f, agentstate.Pending, ev.Why, sourceEngine, t)
	case evStarting:
		f = setState(f, agentstate.Starting, "starting the process", sourceEngine, t)
	case evStarted:
		f = setState(f, agentstate.Running, "process started", sourceProcess, t)
	case evStartFailed:
		f = setState(f, agentstate.Failed, ev.Why, sourceProcess, t)
	case evExited:
		switch {
		case ev.Killed:
			why := ev.Why
			if why == "" {
				why = "closed"
			}
			f = setState(f, agentstate.Killed, why, sourceProcess, t)
		case ev.Code == 0:
			f = setState(f, agentstate.Done, "exited with code 0", sourceProcess, t)
		default:
			f = setState(f, agentstate.Failed, exitWhy(ev.Code), sourceProcess, t)
		}
	case evHook:
		f = fuseHook(f, ev, t)
	case evTerminal:
		if !f.State.Alive() || hookFresh(f, t, cfg) {
			return f
		}
		f = setState(f, agentstate.Waiting, ev.Why, sourceTerminal, t)
	case evInput:
		if ev.Interrupt && f.State == agentstate.Running {
			f.InterruptAt = t
		}
		if f.State == agentstate.Waiting && ev.Answer {
			f = setState(f, agentstate.Running, "user answered", sourceInput, t)
			f.Interrupted = false
		}
	case evActivity:
		if !f.State.Alive() {
			return f
		}
		if f.State == agentstate.Running {
			if f.Source == sourceActivity {
				f.Confirmed = t
			}
			return f
		}
		if yieldsToActivity(f, t, cfg) {
			f = setState(f, agentstate.Running, "output activity", sourceActivity, t)
			f.Interrupted = false
		}
	case evQuiet:
		// Quiet counts from the later of the last output and the state
		// change: an answer to a long-silent prompt is running for a while,
		// not idle a moment later.
		if f.State == agentstate.Running && t.Sub(f.Since) >= cfg.IdleAfter && yieldsToActivity(f, t, cfg) {
			f = setState(f, agentstate.Idle, fmt.Sprintf("no output for %s", cfg.IdleAfter), sourceActivity, t)
		}
	}
	return f
}

func fuseHook(f fusion, ev evidence, t time.Time) fusion {
	f.Subagents = max(0, f.Subagents+ev.SubagentDelta)
	if ev.SubagentDelta < 0 {
		// A subagent finishing says nothing about its parent.
		return f
	}
	st := ev.HookState
	if !st.Reported() {
		return f // status only
	}
	if !f.State.Alive() && f.State != agentstate.Starting {
		return f
	}
	src := ev.Source
	if src == "" {
		src = sourceHook
	}
	why := ev.Why
	switch st {
	case agentstate.Running:
		f.InterruptAt = time.Time{}
		f.Interrupted = false
	case agentstate.Idle:
		if !f.InterruptAt.IsZero() {
			why = "interrupted by user"
			f.Interrupted = true
			f.InterruptAt = time.Time{}
		}
	}
	if why == "" {
		why = string(st)
	}
	f.LastHook = t
	return setState(f, st, why, src, t)
}

// hookFresh reports whether a hook set the state recently enough to outrank
// weaker sources.
func hookFresh(f fusion, t time.Time, cfg fusionConfig) bool {
	return isHook(f.Source) && t.Sub(f.Confirmed) < cfg.StaleAfter
}

// yieldsToActivity reports whether output activity (or its absence) may
// override the current state: states made by activity, the process start or
// user input always may; a hook's or the terminal's only once stale.
func yieldsToActivity(f fusion, t time.Time, cfg fusionConfig) bool {
	switch f.Source {
	case sourceActivity, sourceProcess, sourceInput, sourceEngine:
		return true
	}
	return t.Sub(f.Confirmed) >= cfg.StaleAfter
}

func isHook(source string) bool {
	return source == sourceHook || strings.HasPrefix(source, sourceHook+":")
}

func setState(f fusion, st agentstate.State, why, source string, t time.Time) fusion {
	if f.State != st {
		f.Since = t
	}
	f.State, f.Why, f.Source, f.Confirmed = st, why, source, t
	return f
}

// exitWhy describes a non-zero exit code; codes above 128 are signals.
func exitWhy(code int) string {
	if code > 128 && code < 128+65 {
		return fmt.Sprintf("killed by signal %d (%s)", code-128, syscall.Signal(code-128))
	}
	return fmt.Sprintf("exited with code %d", code)
}
