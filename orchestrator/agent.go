package orchestrator

import (
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// historyLen is how many transitions Explain keeps per agent.
const historyLen = 20

// agent is one entry of the registry. Every field except the atomics is
// owned by the reconciler goroutine.
type agent struct {
	// lastHookAt is when the hook program of the latest applied signal
	// started (agentstate.Signal.At).
	lastHookAt time.Time
	id         string
	seq        int
	// worktree and branch are the git worktree the agent runs in, if any.
	worktree, branch string
	title            string // asked for; "" means derive from the terminal title or argv
	kind             string
	// route is how a category or kind resolved (kind, model, provider,
	// the fallbacks left, the tries) — categories_engine.go.
	route routing
	argv  []string
	cwd   string
	env   []string
	// parent is the agent whose token spawned this one; "" for the user.
	parent string

	termTitle string // OSC 0/2 from the child
	logPath   string
	logErr    atomic.Pointer[string] // why the output log stopped, set by the reader goroutine

	created time.Time
	started time.Time
	ended   time.Time
	code    *int
	pid     int

	f       fusion
	history []control.Transition

	pane *panes.Pane
	term *vterm.Terminal // the pane's, or one showing why the start failed

	box      layout.Rect // the box drawn now (empty while another pane is zoomed)
	cols     int         // size given to the PTY
	rows     int
	visible  bool
	placed   time.Time // when it last got a slot
	queued   bool
	reason   string // why it waits for a slot (from the decision)
	limitWhy string // why it may not start yet (concurrency limits), or ""

	holdsPermit bool     // counted by the limiter
	permit      limitKey // what it was counted by
	closed      bool     // the user closed it: out of grid and queue for good
	killWhy     string
	accent      string // border colour ("4", "#ff8800") from tmux pane styles (tmuxops.go)

	// wantEcho is set when the user's keystroke reached the pane: its next
	// output is the echo, drawn at once (Engine.AwaitedOutput).
	wantEcho atomic.Bool
	// firstOut is when the current pane's first output is drawn at once.
	firstOut *firstOutput

	// wantActivity asks the reader goroutine to report the next output; it
	// is off while the agent is running, when the idle timer does the work.
	wantActivity atomic.Bool
	idleTimer    Timer

	// prompt is the spawn's prompt still to be typed (typedprompt.go);
	// mcpReadyAt is when its MCP server last listed agentgrid's tools.
	prompt     *typedPrompt
	mcpReadyAt time.Time

	// sig holds what the pane reported and the reconciler has not handled.
	sig paneSignals
	// When the last title, bell and notification were handled, and the
	// timer that hands over the ones held back by the rate limit.
	lastTitle, lastBell, lastNotice time.Time
	throttle                        Timer
	throttleAt                      time.Time
	// bellEvery and noticeEvery are the current intervals of bells and
	// notifications (0: noticeInterval), longer while they come in a flood.
	bellEvery, noticeEvery time.Duration
}

// Caps on texts from children and hooks, applied by oneline.Sanitize
// where they enter the engine.
const (
	maxTitleLen = 200 // an agent's title
	maxWhyLen   = 200 // the reason given for its state
)

// displayTitle is the title shown in borders and lists.
func (a *agent) displayTitle() string {
	switch {
	case a.title != "":
		return a.title
	case a.termTitle != "":
		return a.termTitle
	case len(a.argv) > 0:
		return filepath.Base(a.argv[0])
	}
	return a.id
}

// info builds the agent's public snapshot; its queue entry (nil when not
// queued) and pane number come from the engine.
func (a *agent) info(q *queueEntry, number int) control.AgentInfo {
	queuePos := 0
	if q != nil {
		queuePos = q.pos
	}
	in := control.AgentInfo{
		ID: a.id, Title: a.displayTitle(), Kind: a.kind, Argv: slices.Clone(a.argv), Cwd: a.cwd, Parent: a.parent,
		State: a.f.State, Why: a.f.Why, Source: a.f.Source, Since: a.f.Since, Confirmed: a.f.Confirmed,
		Created: a.created, PID: a.pid, Visible: a.visible && !a.closed, Number: number, QueuePos: queuePos,
		LogPath: a.logPath, Subagents: a.f.Subagents, Interrupted: a.f.Interrupted, Accent: a.accent,
		Category: a.route.category, Model: a.route.model, Provider: a.route.provider,
		Worktree: a.worktree, Branch: a.branch,
	}
	if a.route.try > 1 {
		in.Try = a.route.try
	}
	if why := a.logErr.Load(); why != nil {
		in.LogError = *why
	}
	switch {
	case a.limitWhy != "" && a.f.State == agentstate.Pending:
		in.QueueReason = a.limitWhy
	case a.queued:
		in.QueueReason = a.reason
	}
	if q != nil {
		t := q.Since
		in.QueuedSince = &t
	}
	in.ExitCode, in.Started, in.Ended = a.lifecycle()
	return in
}

// ref is the agent as events carry it.
func (a *agent) ref(prev agentstate.State) *hooks.AgentRef {
	r := &hooks.AgentRef{
		ID: a.id, Title: a.displayTitle(), Kind: a.kind, State: string(a.f.State), PrevState: string(prev),
		Why: a.f.Why, Source: a.f.Source, Created: a.created,
	}
	r.ExitCode, r.Started, r.Ended = a.lifecycle()
	return r
}

// lifecycle returns copies of the agent's exit code, start and end for a
// snapshot or an event to keep: nil for what has not happened yet.
func (a *agent) lifecycle() (code *int, started, ended *time.Time) {
	if a.code != nil {
		c := *a.code
		code = &c
	}
	if !a.started.IsZero() {
		t := a.started
		started = &t
	}
	if !a.ended.IsZero() {
		t := a.ended
		ended = &t
	}
	return code, started, ended
}

// isInterruptKey reports whether input is Esc or ctrl+c alone: the keys
// that interrupt an agent CLI's turn.
func isInterruptKey(data []byte) bool {
	s := string(data)
	return s == "\x1b" || s == "\x03" || s == "\x1b[27u" || s == "\x1b[99;5u" || strings.HasPrefix(s, "\x1b[27;1u")
}

// isAnswerKey reports whether input can answer a prompt the agent waits at:
// Enter (or text ending a line), Esc or ctrl+c, or one letter or digit (the
// menus of agent CLIs take "1", "y", "n"). Moving in a menu (arrows, Tab,
// Page keys), focus reports and mouse reports answer nothing: the prompt is
// still on screen after them.
func isAnswerKey(data []byte) bool {
	s := string(data)
	switch {
	case isInterruptKey(data):
		return true
	case strings.ContainsAny(s, "\r\n"):
		return true
	case s == "\x1b[13u" || strings.HasPrefix(s, "\x1b[13;"):
		return true // Enter in the kitty keyboard protocol
	case len(s) == 1:
		c := s[0]
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	return false
}

// firstOutput is when a pane's first output pokes Engine.AwaitedOutput:
// once the pane printed and a published snapshot shows the pane, whichever
// comes last. The output often comes before the engine publishes the
// snapshot with the new pane (the child prints as soon as it runs), and a
// frame drawn for a poke then cannot show the pane at all; the frame that
// can was an ordinary one, behind the frame budget the first had spent.
type firstOutput struct {
	printed atomic.Bool // set by the pane's reader goroutine
	shown   atomic.Bool // set by the engine loop, after the publish
	poked   atomic.Bool
}

// due reports, once, that both have happened. Each side sets its flag and
// then asks, so the side that comes second sees both.
func (f *firstOutput) due() bool {
	return f.printed.Load() && f.shown.Load() && f.poked.CompareAndSwap(false, true)
}
