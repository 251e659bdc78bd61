package orchestrator

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/envlist"
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
	// offered is the Seq of the last notice handed to a hook that has not
	// acknowledged it yet; until offeredUntil no other hook gets them, so
	// two hooks at once (parallel tool calls, the Stop hook beside the
	// rewake waiter) never both print them.
	offered      int64
	offeredUntil time.Time
	offeredVia   string
}

// noticeBoard is every parent's notices.
type noticeBoard struct {
	mu sync.Mutex
	m  map[string]*noticeQueue
	ch chan struct{} // closed and replaced when a notice arrives
	// lease is how long an offer holds its notices for the hook it went to
	// (offerLease; shorter in tests).
	lease time.Duration
	// leases are the parents' own holds, longer than offerLease when
	// their hooks' timeout is (setLease).
	leases map[string]time.Duration
}

// offerLease is how long notices offered to a hook wait for its
// acknowledgement before another hook may get them: a hook that gave up
// (no answer within its budget) delays them by this much, never loses
// them. Claude Code kills a hook after the timeout agentgrid's settings
// give it (agentcli.HookTimeout: this, or longer with
// $AGENTGRID_HOOK_BUDGET, see setLease), so an acknowledgement later than
// that means the hook did not print.
const offerLease = agentcli.HookTimeoutSeconds * time.Second

// maxDeliveredShown is how many delivered notices explain lists.
const maxDeliveredShown = 10

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

// setLease holds the notices offered to parent's hooks for d, the time its
// CLI waits for them.
func (b *noticeBoard) setLease(parent string, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leases == nil {
		b.leases = map[string]time.Duration{}
	}
	b.leases[parent] = d
}

// noteHookTimeout holds the notices offered to a's hooks for as long as
// its CLI waits for them: the timeout agentgrid's settings give them,
// which follows $AGENTGRID_HOOK_BUDGET in a's environment. It runs
// whenever a's environment is set.
func (e *Engine) noteHookTimeout(a *agent) {
	e.notices.setLease(a.id, agentcli.HookTimeout(envlist.Value(a.env, agentcli.EnvHookBudget)))
}

// wakeLocked wakes everyone who waits on the board. b.mu is held.
func (b *noticeBoard) wakeLocked() {
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
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
	b.wakeLocked()
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

// since returns a copy of the notices after seq, oldest first.
func (q *noticeQueue) since(seq int64) []control.Notice {
	var out []control.Notice
	for _, n := range q.notices {
		if n.Seq > seq {
			out = append(out, n)
		}
	}
	return out
}

// held reports the Seq up to which notices are offered and not yet free
// to offer again at now.
func (q *noticeQueue) held(now time.Time) int64 {
	if q.offered > q.delivered && now.Before(q.offeredUntil) {
		return q.offered
	}
	return q.delivered
}

// available returns parent's notices that no hook holds at now, and when
// the notices a hook holds are free again (zero when none is held).
func (b *noticeBoard) available(parent string, now time.Time) ([]control.Notice, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return nil, time.Time{}
	}
	from := q.held(now)
	out := q.since(from)
	var until time.Time
	if from > q.delivered {
		until = q.offeredUntil
	}
	return out, until
}

// offer hands parent's free notices to one hook (via says which, for
// explain) and holds them for it for the lease: no other hook gets them
// until it acknowledges them or the lease ends.
func (b *noticeBoard) offer(parent string, now time.Time, via string) []control.Notice {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return nil
	}
	out := q.since(q.held(now))
	if len(out) > 0 {
		lease := b.lease
		if lease <= 0 {
			lease = max(offerLease, b.leases[parent])
		}
		q.offered, q.offeredUntil, q.offeredVia = out[len(out)-1].Seq, now.Add(lease), via
	}
	return out
}

// deliver marks parent's notices up to seq delivered at now (via says how;
// empty: as the hook they were offered to) and returns how many are left.
// Delivering what was delivered already changes nothing: an
// acknowledgement that comes twice (the hook's own, then the next hook's
// from its file) counts once.
func (b *noticeBoard) deliver(parent string, seq int64, now time.Time, via string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return 0
	}
	return b.deliverLocked(q, seq, now, via)
}

// deliverLocked is deliver with b.mu held.
func (b *noticeBoard) deliverLocked(q *noticeQueue, seq int64, now time.Time, via string) int {
	if seq > q.seq {
		seq = q.seq // an acknowledgement of notices never given out
	}
	if via == "" {
		via = "a hook"
		if q.offered > q.delivered && seq >= q.offered && q.offeredVia != "" {
			via = q.offeredVia
		}
	}
	for i := range q.notices {
		n := &q.notices[i]
		if n.Seq > q.delivered && n.Seq <= seq {
			n.Delivered, n.Via = now, via
		}
	}
	q.delivered = max(q.delivered, seq)
	if q.offered <= q.delivered {
		q.offered, q.offeredUntil, q.offeredVia = 0, time.Time{}, ""
	}
	b.wakeLocked()
	// Delivered notices are kept only for agent.events readers that pass
	// an older cursor, and for explain; the cap bounds them with the rest.
	return q.pending()
}

// shown returns what explain lists of parent's notices: every undelivered
// one and the latest delivered ones, oldest first.
func (b *noticeBoard) shown(parent string) []control.Notice {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.m[parent]
	if q == nil {
		return nil
	}
	first := 0
	delivered := 0
	for i := len(q.notices) - 1; i >= 0; i-- {
		if q.notices[i].Seq <= q.delivered {
			if delivered++; delivered > maxDeliveredShown {
				first = i + 1
				break
			}
		}
	}
	return slices.Clone(q.notices[first:])
}

// viaEvents is how a notice read through agent.events was delivered: by
// the MCP tool of that name.
const viaEvents = config.ToolEvents

// eventsRead is what agent.events may hand a parent's reader.
type eventsRead struct {
	notices []control.Notice
	next    int64 // the cursor past every notice looked at
	dropped int64 // how many after the cursor were dropped to the cap
	// heldUntil is when the notices a hook holds come free if it never
	// acknowledges them (zero when none is held).
	heldUntil time.Time
	changed   <-chan struct{} // closed when the board next changes
}

// takeForEvents is what agent.events returns of parent's notices after
// cursor at now: those no hook delivered or holds, which it marks
// delivered, and those agent.events returned before (its reader may read
// them again with an older cursor). Notices a hook holds, and every later
// one, wait until it acknowledges them (then they are its, and
// agent.events skips them) or its hold ends: delivery goes in order, and
// each notice goes by one path, whichever asked first. Taking them under
// the lock that offers them to hooks leaves no moment in which both could
// get them. pending is how many are still undelivered, -1 when nothing
// was taken.
func (b *noticeBoard) takeForEvents(parent string, cursor int64, now time.Time) (eventsRead, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := eventsRead{next: cursor, changed: b.changedLocked()}
	q := b.m[parent]
	if q == nil {
		return r, -1
	}
	if q.dropped > cursor {
		r.dropped = q.dropped - cursor // Seqs count this parent's notices only
	}
	held := q.held(now)
	for _, n := range q.notices {
		if n.Seq <= cursor {
			continue
		}
		if n.Seq > q.delivered && n.Seq <= held {
			r.heldUntil = q.offeredUntil
			break
		}
		if n.Seq > q.delivered || n.Via == viaEvents {
			r.notices = append(r.notices, n)
		}
		r.next = n.Seq
	}
	if r.next <= q.delivered {
		return r, -1
	}
	return r, b.deliverLocked(q, r.next, now, viaEvents)
}

// changed returns a channel closed when a notice arrives or is delivered.
func (b *noticeBoard) changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changedLocked()
}

// changedLocked is changed with b.mu held.
func (b *noticeBoard) changedLocked() <-chan struct{} {
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
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
	if d.Action == agentstate.ActionBlock {
		return d
	}
	if ask.Point == agentstate.PointStop && (ask.Repeat || e.liveChildren(id) > 0) {
		return d
	}
	// Whether the CLI can say anything here, asked before the notices are
	// taken so that none is held for a hook that cannot print it.
	if len(registry.Answer(cli, ask, noticeDecision(ask, d, "agentgrid: …"))) == 0 {
		return d
	}
	pending := e.notices.offer(id, e.now(), "the hook at "+string(ask.Point))
	if len(pending) == 0 {
		return d
	}
	nd := noticeDecision(ask, d, noticeText(pending))
	// Delivered once the hook acknowledges it (AckNotices): a hook that
	// gave up before the answer came has them offered again once the
	// lease ends.
	nd.Notices = pending[len(pending)-1].Seq
	e.log.Info("notices offered", "agent", id, "point", ask.Point, "count", len(pending))
	return nd
}

// noticeText is the line that tells a parent its notices.
func noticeText(ns []control.Notice) string {
	texts := make([]string, len(ns))
	for i, n := range ns {
		texts[i] = n.Text
	}
	return "agentgrid: " + strings.Join(texts, "; ")
}

// noticeDecision is d with the notices' text added at ask's point.
func noticeDecision(ask agentstate.Ask, d agentstate.Decision, text string) agentstate.Decision {
	if ask.Point == agentstate.PointStop {
		return agentstate.Decision{Action: agentstate.ActionBlock, Message: text, Policy: "notices"}
	}
	nd := d
	nd.Action = agentstate.ActionHint
	if nd.Message == "" {
		nd.Message, nd.Policy = text, "notices"
	} else {
		// Before the policies' hints, so the nudge stays last.
		nd.Message, nd.Policy = text+"\n"+nd.Message, "notices,"+nd.Policy
	}
	return nd
}

// AckNotices implements control.NoticeAcker: the hook printed an answer
// carrying id's notices up to seq.
func (e *Engine) AckNotices(id string, seq int64) error {
	e.showNotices(id, e.notices.deliver(id, seq, e.now(), ""))
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

// Notices implements control.NoticeBackend: forID's notices after cursor
// that no hook delivered or holds (see forEvents), waiting for one until
// ctx ends. What it returns counts as delivered.
func (e *Engine) Notices(ctx context.Context, forID string, cursor int64) (control.EventsResult, error) {
	for {
		now := e.now()
		r, pending := e.notices.takeForEvents(forID, cursor, now)
		if pending >= 0 {
			e.showNotices(forID, pending)
		}
		if len(r.notices) > 0 || ctx.Err() != nil {
			return control.EventsResult{Events: r.notices, Cursor: r.next, Dropped: r.dropped}, nil
		}
		cursor = r.next // past notices a hook delivered: they are not this reader's
		if err := e.eventsWait(ctx, r, now); err != nil {
			return control.EventsResult{Cursor: cursor}, err
		}
	}
}

// eventsWait waits for the next thing that may change what agent.events
// returns: a change of the board, the end of a hook's hold on notices, or
// ctx's end (nil: Notices answers then).
func (e *Engine) eventsWait(ctx context.Context, r eventsRead, now time.Time) error {
	var lapse <-chan time.Time
	if !r.heldUntil.IsZero() {
		// Notices a hook holds come free if it never acknowledges them.
		t := e.clock.NewTimer(max(r.heldUntil.Sub(now), time.Millisecond))
		defer t.Stop()
		lapse = t.C()
	}
	select {
	case <-r.changed:
	case <-lapse:
	case <-ctx.Done():
	case <-e.loopEnd:
		return errShutDown
	}
	return nil
}
