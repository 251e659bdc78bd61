package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// Notices to the parent: each agent's finished turns, exits and waits are
// queued for the agent that started it, and delivered in order and once:
// as added context on the parent's next hook that can carry it (Decide;
// delivered when the hook acknowledges the printed answer), or through
// agent.events (the MCP tool agent_events). The board is kept
// off the reconciler, under its own lock, because hooks are answered from
// socket goroutines.

// maxNotices is how many undelivered notices are kept per parent; older
// ones are dropped (and counted) past it.
const maxNotices = 256

// maxNoticeText bounds one notice's line.
const maxNoticeText = 200

// noticeStatusKey is the status line entry that counts a parent's
// undelivered notices.
func noticeStatusKey(parent string) string { return "notices:" + parent }

type noticeQueue struct {
	seq       int64            // the last Seq given out: one sequence per parent
	notices   []control.Notice // oldest first, Seq ascending
	delivered int64            // Seq of the last notice delivered
	dropped   int64            // Seq of the last notice dropped to the cap
}

// noticeBoard is every parent's notices.
type noticeBoard struct {
	mu sync.Mutex
	m  map[string]*noticeQueue
	ch chan struct{} // closed and replaced when a notice arrives
}

func (b *noticeBoard) queue(parent string) *noticeQueue {
	if b.m == nil {
		b.m = map[string]*noticeQueue{}
	}
	q := b.m[parent]
	if q == nil {
		q = &noticeQueue{}
		b.m[parent] = q
	}
	return q
}

// add queues n for parent and returns how many are undelivered.
func (b *noticeBoard) add(parent string, n control.Notice) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue(parent)
	q.seq++
	n.Seq = q.seq
	q.notices = append(q.notices, n)
	if over := len(q.notices) - maxNotices; over > 0 {
		q.dropped = q.notices[over-1].Seq
		q.notices = append([]control.Notice(nil), q.notices[over:]...)
	}
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	return q.pending()
}

func (q *noticeQueue) pending() int {
	n := 0
	for _, x := range q.notices {
		if x.Seq > q.delivered {
			n++
		}
	}
	return n
}

// undelivered returns parent's notices not delivered yet.
func (b *noticeBoard) undelivered(parent string) []control.Notice {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return nil
	}
	var out []control.Notice
	for _, n := range q.notices {
		if n.Seq > q.delivered {
			out = append(out, n)
		}
	}
	return out
}

// deliver marks parent's notices up to seq delivered and returns how many
// are left.
func (b *noticeBoard) deliver(parent string, seq int64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return 0
	}
	q.delivered = max(q.delivered, seq)
	// Delivered notices are kept only for agent.events readers that pass
	// an older cursor; the cap bounds them with the rest.
	return q.pending()
}

// after returns parent's notices after cursor, how many of those were
// dropped, and a channel closed when the next notice arrives.
func (b *noticeBoard) after(parent string, cursor int64) ([]control.Notice, int64, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	q := b.m[parent]
	if q == nil {
		return nil, 0, b.ch
	}
	var out []control.Notice
	for _, n := range q.notices {
		if n.Seq > cursor {
			out = append(out, n)
		}
	}
	var dropped int64
	if q.dropped > cursor {
		dropped = q.dropped - cursor // Seqs count this parent's notices only
	}
	return out, dropped, b.ch
}

// notify queues a notice about child for its parent, if it has one, and
// shows the parent's undelivered count in the status line. It runs on the
// reconciler or a socket goroutine; it never blocks.
func (e *Engine) notify(child, parent, event string, state agentstate.State, code *int, text string) {
	if parent == "" || !e.hearsNotices(parent) {
		// Started by the user, who reads the screen, or by a program
		// (a plain shell in the main view) that nothing would tell.
		return
	}
	n := control.Notice{Time: e.now(), Agent: child, Event: event, State: state, ExitCode: code, Text: oneline.Sanitize(text, maxNoticeText)}
	pending := e.notices.add(parent, n)
	e.showNotices(parent, pending)
}

func (e *Engine) showNotices(parent string, pending int) {
	text := ""
	switch {
	case pending == 1:
		text = "1 notice for " + parent
	case pending > 1:
		text = fmt.Sprintf("%d notices for %s", pending, parent)
	}
	e.status.Set(noticeStatusKey(parent), text, parent, "agentgrid", 0)
}

// hearsNotices reports whether an agent can be told anything: its kind
// wires the CLI's hooks (answers carry the notices) or agentgrid's MCP
// server (agent_events).
func (e *Engine) hearsNotices(id string) bool {
	info, ok := e.Agent(id)
	if !ok || info.Kind == "" {
		return false
	}
	k, ok := e.cfg.Kinds[info.Kind]
	return ok && (k.Hooks != "" || k.MCP)
}

// noticeOfState is the notice an agent's new state gives its parent, if any.
func noticeOfState(a *agent, old agentstate.State) (event, text string, ok bool) {
	st := a.f.State
	switch {
	case st == old:
		return "", "", false
	case st == agentstate.Waiting:
		why := a.f.Why
		if why == "" {
			why = "input"
		}
		return control.NoticeWaiting, a.id + " is waiting: " + why, true
	case st == agentstate.Killed:
		return control.NoticeExit, a.id + " was closed", true
	case st.Finished():
		code := "?"
		if a.code != nil {
			code = fmt.Sprint(*a.code)
		}
		text := fmt.Sprintf("%s finished (exit %s)", a.id, code)
		if st == agentstate.Failed {
			text = fmt.Sprintf("%s failed (exit %s)", a.id, code)
			if a.f.Why != "" && !strings.HasPrefix(a.f.Why, "exited with code") {
				text += ": " + a.f.Why // a reason beyond the code (a start that failed)
			}
		}
		return control.NoticeExit, text, true
	}
	return "", "", false
}

// noticeAnswer adds id's undelivered notices to the decision d at ask,
// when the CLI can carry them there: as context with a hint, or, at the end
// of a turn once every child has finished, as the reason the turn goes on.
// A block of a tool or a prompt carries its own message only; the notices
// wait for the next hook.
func (e *Engine) noticeAnswer(id, cli string, ask agentstate.Ask, d agentstate.Decision) agentstate.Decision {
	pending := e.notices.undelivered(id)
	if len(pending) == 0 || d.Action == agentstate.ActionBlock {
		return d
	}
	texts := make([]string, len(pending))
	for i, n := range pending {
		texts[i] = n.Text
	}
	text := "agentgrid: " + strings.Join(texts, "; ")
	nd := d
	switch ask.Point {
	case agentstate.PointStop:
		if ask.Repeat || e.liveChildren(id) > 0 {
			return d
		}
		nd = agentstate.Decision{Action: agentstate.ActionBlock, Message: text, Policy: "notices"}
	default:
		nd.Action = agentstate.ActionHint
		if nd.Message == "" {
			nd.Message, nd.Policy = text, "notices"
		} else {
			// Before the policies' hints, so the nudge stays last.
			nd.Message, nd.Policy = text+"\n"+nd.Message, "notices,"+nd.Policy
		}
	}
	if len(registry.Answer(cli, ask, nd)) == 0 {
		return d // the CLI has no way to say it here
	}
	// Delivered once the hook acknowledges it (AckNotices): a hook that
	// gave up before the answer came offers them again next time.
	nd.Notices = pending[len(pending)-1].Seq
	e.log.Info("notices offered", "agent", id, "point", ask.Point, "count", len(pending))
	return nd
}

// AckNotices implements control.NoticeAcker: the hook printed an answer
// carrying id's notices up to seq.
func (e *Engine) AckNotices(id string, seq int64) error {
	e.showNotices(id, e.notices.deliver(id, seq))
	return nil
}

// liveChildren counts the live agents id started, from the last snapshot.
func (e *Engine) liveChildren(id string) int {
	n := 0
	for _, a := range e.snap.Load().Agents {
		if a.Parent == id && !a.State.Finished() {
			n++
		}
	}
	return n
}

// Notices implements control.NoticeBackend: forID's notices after cursor,
// waiting for one until ctx ends. What it returns counts as delivered.
func (e *Engine) Notices(ctx context.Context, forID string, cursor int64) (control.EventsResult, error) {
	for {
		out, dropped, wake := e.notices.after(forID, cursor)
		if len(out) > 0 || ctx.Err() != nil {
			res := control.EventsResult{Events: out, Cursor: cursor, Dropped: dropped}
			if len(out) > 0 {
				res.Cursor = out[len(out)-1].Seq
				e.showNotices(forID, e.notices.deliver(forID, res.Cursor))
			}
			return res, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
		case <-e.loopEnd:
			return control.EventsResult{Cursor: cursor}, errShutDown
		}
	}
}
