package orchestrator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
)

// gridDecision is the working state of one decideSpawnActions call.
type gridDecision struct {
	d         *decision
	st        windowState
	cfg       decideConfig
	vis       []slotAgent
	queue     []queuedAgent
	capacity  int
	placed    map[string]queuedAgent
	offscreen map[string]bool // deferred by this decision
	deferred  int             // visible agents moved off screen
	closed    int             // finished panes reclaimed
	holds     int             // starts held by limits
}

func (g *gridDecision) act(a action) { g.d.Actions = append(g.d.Actions, a) }

// leave takes a visible agent off screen: a finished one's pane closes, a
// live one goes back to the queue.
func (g *gridDecision) leave(a slotAgent, reason string) {
	if a.Finished {
		g.act(action{Kind: actClose, Agent: a.ID, Reason: reason})
		g.closed++
		return
	}
	g.act(action{Kind: actDefer, Agent: a.ID, Reason: reason})
	g.offscreen[a.ID] = true
	g.deferred++
}

// place puts q into the first hole left by a close, else at the end.
func (g *gridDecision) place(q queuedAgent) {
	g.placed[q.ID] = q
	a := slotAgent{ID: q.ID, Seq: q.Seq, Finished: q.Finished, Cols: q.Cols, Rows: q.Rows}
	if q.Finished {
		a.Ended = g.st.Now
	}
	for i := range g.vis {
		if g.vis[i].ID == "" {
			g.vis[i] = a
			return
		}
	}
	g.vis = append(g.vis, a)
}

func (g *gridDecision) used() int {
	n := 0
	for _, a := range g.vis {
		if a.ID != "" {
			n++
		}
	}
	return n
}

// arrange decides who is on screen: shrink, show, fill, reclaim, defer.
func (g *gridDecision) arrange() {
	st, capacity := g.st, g.capacity
	// Shrink: the newest visible agents go back to the queue.
	for len(g.vis) > capacity {
		n := 0
		for i := range g.vis {
			if g.vis[i].Seq > g.vis[n].Seq {
				n = i
			}
		}
		reason := "terminal too small: moved off screen"
		if capacity == 0 {
			reason = "terminal too small for any agent pane"
		}
		g.leave(g.vis[n], reason)
		g.vis = slices.Delete(g.vis, n, n+1)
	}

	// An explicit Show goes first and may swap another agent out.
	if i := slices.IndexFunc(g.queue, func(q queuedAgent) bool { return q.ID == st.Show }); st.Show != "" && i >= 0 && capacity > 0 {
		q := g.queue[i]
		g.queue = slices.Delete(g.queue, i, i+1)
		if g.used() >= capacity {
			victim := showVictim(g.vis, st.Focus)
			g.leave(g.vis[victim], "swapped out for "+q.ID)
			g.vis[victim] = slotAgent{}
		}
		g.place(q)
	}

	// Free slots go to the queue in FIFO order.
	for len(g.queue) > 0 && g.used() < capacity {
		g.place(g.queue[0])
		g.queue = g.queue[1:]
	}

	// Grid full: reclaim finished panes that have lingered, oldest first.
	// Panes placed just now count too (a finished one lingers from now),
	// which tells the engine when to look again.
	for len(g.queue) > 0 && capacity > 0 {
		oldest := -1
		for i, a := range g.vis {
			if a.ID != "" && a.Finished && (oldest < 0 || a.Ended.Before(g.vis[oldest].Ended)) {
				oldest = i
			}
		}
		if oldest < 0 {
			break
		}
		if ready := g.vis[oldest].Ended.Add(g.cfg.FinishedLinger); st.Now.Before(ready) {
			g.d.WakeAt = ready
			break
		}
		g.act(action{Kind: actClose, Agent: g.vis[oldest].ID, Reason: "reclaimed for " + g.queue[0].ID})
		g.closed++
		g.vis[oldest] = slotAgent{}
		g.place(g.queue[0])
		g.queue = g.queue[1:]
	}

	// Whoever is left waits, with the reason.
	for _, q := range g.queue {
		var reason string
		switch {
		case capacity == 0:
			reason = "terminal too small for any agent pane"
		case !g.d.WakeAt.IsZero():
			reason = fmt.Sprintf("grid full; a finished pane frees in %s", g.d.WakeAt.Sub(st.Now).Round(time.Second))
		default:
			reason = fmt.Sprintf("grid full (%d of %d panes busy)", g.used(), capacity)
		}
		g.act(action{Kind: actDefer, Agent: q.ID, Reason: reason})
		g.offscreen[q.ID] = true
	}
	g.vis = slices.DeleteFunc(g.vis, func(a slotAgent) bool { return a.ID == "" })
}

// finish lays out the visible agents on plan (the unzoomed geometry for
// len(g.vis) agents): places, resizes, zoom and focus, starts and holds.
func (g *gridDecision) finish(plan layout.Plan) {
	st, d := g.st, g.d
	hasMain := st.Main != nil && st.Layout.HasMain
	zoom, zi := st.Zoom, -1
	switch {
	case zoom == control.MainID:
		zi = 0
	case zoom != "":
		if i := slices.IndexFunc(g.vis, func(a slotAgent) bool { return a.ID == zoom }); i >= 0 {
			zi = i + 1
		} else {
			zoom = "" // its pane left the screen
		}
	}
	d.Plan = plan.WithZoom(zi, hasMain)
	d.Zoom = zoom

	nPlaced, nResized := 0, 0
	for i, a := range g.vis {
		d.Visible = append(d.Visible, a.ID)
		if _, ok := g.placed[a.ID]; ok {
			g.act(action{Kind: actPlace, Agent: a.ID, Slot: i, Box: plan.Slots[i]})
			nPlaced++
		}
		if c, ok := resizeTo(d.Plan.Slots[i], a.Cols, a.Rows); ok {
			g.act(action{Kind: actResize, Agent: a.ID, Slot: i, Box: d.Plan.Slots[i], Cols: c.W, Rows: c.H})
			nResized++
		}
	}

	// Focus: a Show focuses its agent; a focus whose pane left falls back
	// to the first slot, else the main view.
	d.Focus = st.Focus
	if st.Show != "" && (slices.Contains(d.Visible, st.Show) || (st.Show == control.MainID && st.Main != nil)) {
		d.Focus = st.Show
	}
	if d.Focus != control.MainID && d.Focus != "" && !slices.Contains(d.Visible, d.Focus) {
		d.Focus = control.MainID
		if len(d.Visible) > 0 {
			d.Focus = d.Visible[0]
		}
	}

	nStarted, nHeld := 0, 0
	if m := st.Main; m != nil {
		switch c, ok := resizeTo(d.Plan.Main, m.Cols, m.Rows); {
		case m.Pending && !st.Closing:
			cols, rows := startSize(d.Plan.Main)
			g.act(action{Kind: actStart, Agent: control.MainID, Slot: -1, Box: d.Plan.Main, Cols: cols, Rows: rows})
			nStarted++
		case !m.Pending && ok:
			g.act(action{Kind: actResize, Agent: control.MainID, Slot: -1, Box: d.Plan.Main, Cols: c.W, Rows: c.H})
			nResized++
		}
	}
	if !st.Closing {
		nStarted, nHeld = nStarted+g.starts(plan), g.holds
	}

	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{len(st.Closes), "stopped"}, {nPlaced, "placed"}, {g.closed, "reclaimed"}, {g.deferred, "moved off screen"},
		{nResized, "resized"}, {len(g.queue), "waiting"}, {nStarted, "started"}, {nHeld, "held by limits"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p.what, p.n))
		}
	}
	d.Reason = strings.Join(parts, ", ")
	if d.Reason == "" {
		d.Reason = "nothing to do"
	}
}

// starts decides which pending agents start, in creation order so that a
// released permit goes to the oldest waiter (FIFO hand-off): visible ones
// at their pane's size, queued ones (with StartOffscreen) off screen.
func (g *gridDecision) starts(plan layout.Plan) int {
	st, d := g.st, g.d
	lim := limiterFor(g.cfg.Limits, st.Running)
	closed := map[string]bool{}
	for _, id := range st.Closes {
		closed[id] = true
	}
	n := 0
	for _, p := range st.Pending {
		if closed[p.ID] {
			continue
		}
		cols, rows := offscreenCols, offscreenRows
		if i := slices.Index(d.Visible, p.ID); i >= 0 {
			box := d.Plan.Slots[i]
			if box.Empty() {
				box = plan.Slots[i] // hidden by a zoom: its slot's size
			}
			cols, rows = startSize(box)
		} else if !g.offscreen[p.ID] || !g.cfg.StartOffscreen {
			continue
		}
		if why := lim.blocked(p.Limit); why != "" {
			g.act(action{Kind: actHold, Agent: p.ID, Reason: why})
			g.holds++
			continue
		}
		lim.acquire(p.Limit)
		g.act(action{Kind: actStart, Agent: p.ID, Cols: cols, Rows: rows})
		n++
	}
	return n
}

// startSize is the terminal size for a pane in box: its content, or the
// off-screen size when it has no box.
func startSize(box layout.Rect) (cols, rows int) {
	if c := box.Inset(1); !box.Empty() && !c.Empty() {
		return c.W, c.H
	}
	return offscreenCols, offscreenRows
}

// resizeTo reports the content size of box when a terminal of cols x rows
// must change to it: never for a hidden pane (a zoom keeps the others'
// sizes, like tmux) nor for one without a terminal yet.
func resizeTo(box layout.Rect, cols, rows int) (layout.Rect, bool) {
	c := box.Inset(1)
	if box.Empty() || c.Empty() || cols <= 0 || rows <= 0 || (c.W == cols && c.H == rows) {
		return c, false
	}
	return c, true
}

// showVictim picks the pane a Show swaps out: the oldest finished pane,
// else the newest pane that is not focused, else the newest.
func showVictim(vis []slotAgent, focus string) int {
	best := -1
	for i, a := range vis {
		if a.ID != "" && a.Finished && (best < 0 || a.Ended.Before(vis[best].Ended)) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i, a := range vis {
		if a.ID != "" && a.ID != focus && (best < 0 || a.Seq > vis[best].Seq) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	for i, a := range vis {
		if a.ID != "" && (best < 0 || a.Seq > vis[best].Seq) {
			best = i
		}
	}
	return best
}
