package orchestrator

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/layout"
)

// ActionKind is what the engine is asked to do with one agent's pane.
type ActionKind int

const (
	// ActPlace puts a queued agent into a slot (starting or resizing its process).
	ActPlace ActionKind = iota
	// ActClose reclaims a finished agent's slot; its process is long gone.
	ActClose
	// ActResize moves a visible agent to a new box.
	ActResize
	// ActDefer keeps (or puts back) an agent in the queue, with a reason.
	ActDefer
)

func (k ActionKind) String() string {
	switch k {
	case ActPlace:
		return "place"
	case ActClose:
		return "close"
	case ActResize:
		return "resize"
	case ActDefer:
		return "defer"
	}
	return "?"
}

// Action is one step of a Decision.
type Action struct {
	Kind   ActionKind
	Agent  string
	Slot   int         // 0-based slot index (place, resize)
	Box    layout.Rect // outer box (place, resize)
	Reason string
}

func (a Action) String() string {
	switch a.Kind {
	case ActPlace, ActResize:
		return fmt.Sprintf("%s %s slot %d %dx%d", a.Kind, a.Agent, a.Slot, a.Box.W, a.Box.H)
	}
	return fmt.Sprintf("%s %s (%s)", a.Kind, a.Agent, a.Reason)
}

// Decision is the output of decideSpawnActions.
type Decision struct {
	Actions []Action
	// Visible is the slot order after the actions.
	Visible []string
	// Reason summarises the decision for the log.
	Reason string
	// WakeAt, when set, is when a finished pane becomes reclaimable for an
	// agent still waiting: the engine runs a pass then.
	WakeAt time.Time
}

// SlotAgent is a visible agent as the decision sees it.
type SlotAgent struct {
	ID       string
	Seq      int // creation order: higher is newer
	Finished bool
	// Ended is when it has been on screen finished since (its exit, or its
	// placement if it ended off screen): the linger counts from there.
	Ended time.Time
	Box   layout.Rect // current outer box
}

// QueuedAgent is an agent waiting for a slot.
type QueuedAgent struct {
	ID  string
	Seq int
	// Finished is set for an agent that ended off screen: once placed its
	// pane lingers from now.
	Finished bool
}

// WindowState is the Query step's picture of the grid.
type WindowState struct {
	Now      time.Time
	Capacity int
	Visible  []SlotAgent   // slot order
	Queue    []QueuedAgent // FIFO order
	// Show asks to bring this queued agent into view now, swapping out
	// another pane when the grid is full.
	Show string
	// Focus is the focused agent, spared by a Show swap when possible.
	Focus string
}

// DecideConfig holds the rules' parameters.
type DecideConfig struct {
	FinishedLinger time.Duration
	// Slots returns the outer boxes of n visible agents, row-major.
	Slots func(n int) []layout.Rect
}

// decideSpawnActions is the pure Decide step. Rules: the grid never holds
// more than Capacity agents (shrinking moves the newest back to the queue,
// never kills them; a finished one just leaves the screen); free slots go to the queue in FIFO order; when the
// grid is full a finished pane is reclaimed (oldest finished first) once it
// has lingered FinishedLinger and only for a waiting agent; running and
// waiting agents are never evicted except by an explicit Show, which moves
// one back to the queue.
func decideSpawnActions(st WindowState, cfg DecideConfig) Decision {
	var d Decision
	capacity := max(st.Capacity, 0)
	vis := slices.Clone(st.Visible)
	placed := map[string]bool{}
	byID := map[string]SlotAgent{}
	for _, a := range vis {
		byID[a.ID] = a
	}
	var deferred, closed int

	// Shrink: the newest visible agents go back to the queue.
	for len(vis) > capacity {
		n := 0
		for i := range vis {
			if vis[i].Seq > vis[n].Seq {
				n = i
			}
		}
		reason := "terminal too small: moved off screen"
		if capacity == 0 {
			reason = "terminal too small for any agent pane"
		}
		if vis[n].Finished {
			// Nothing runs there: its pane just leaves the screen.
			d.Actions = append(d.Actions, Action{Kind: ActClose, Agent: vis[n].ID, Reason: reason})
			closed++
		} else {
			d.Actions = append(d.Actions, Action{Kind: ActDefer, Agent: vis[n].ID, Reason: reason})
			deferred++
		}
		vis = slices.Delete(vis, n, n+1)
	}

	queue := slices.Clone(st.Queue)
	// place puts a into the first hole left by a close, else at the end.
	place := func(q QueuedAgent) {
		placed[q.ID] = true
		a := SlotAgent{ID: q.ID, Seq: q.Seq, Finished: q.Finished}
		if q.Finished {
			a.Ended = st.Now
		}
		for i := range vis {
			if vis[i].ID == "" {
				vis[i] = a
				return
			}
		}
		vis = append(vis, a)
	}
	used := func() int {
		n := 0
		for _, a := range vis {
			if a.ID != "" {
				n++
			}
		}
		return n
	}

	// An explicit Show goes first and may swap another agent out.
	if i := slices.IndexFunc(queue, func(q QueuedAgent) bool { return q.ID == st.Show }); st.Show != "" && i >= 0 && capacity > 0 {
		q := queue[i]
		queue = slices.Delete(queue, i, i+1)
		if used() >= capacity {
			victim := showVictim(vis, st.Focus)
			v := vis[victim]
			if v.Finished {
				d.Actions = append(d.Actions, Action{Kind: ActClose, Agent: v.ID, Reason: "swapped out for " + q.ID})
				closed++
			} else {
				d.Actions = append(d.Actions, Action{Kind: ActDefer, Agent: v.ID, Reason: "swapped out for " + q.ID})
				deferred++
			}
			vis[victim] = SlotAgent{}
		}
		place(q)
	}

	// Free slots go to the queue in FIFO order.
	for len(queue) > 0 && used() < capacity {
		place(queue[0])
		queue = queue[1:]
	}

	// Grid full: reclaim finished panes that have lingered, oldest first.
	// Panes placed just now count too (a finished one lingers from now),
	// which tells the engine when to look again.
	for len(queue) > 0 && capacity > 0 {
		oldest := -1
		for i, a := range vis {
			if a.ID != "" && a.Finished && (oldest < 0 || a.Ended.Before(vis[oldest].Ended)) {
				oldest = i
			}
		}
		if oldest < 0 {
			break
		}
		if ready := vis[oldest].Ended.Add(cfg.FinishedLinger); st.Now.Before(ready) {
			d.WakeAt = ready
			break
		}
		d.Actions = append(d.Actions, Action{Kind: ActClose, Agent: vis[oldest].ID, Reason: "reclaimed for " + queue[0].ID})
		closed++
		vis[oldest] = SlotAgent{}
		place(queue[0])
		queue = queue[1:]
	}

	// Whoever is left waits, with the reason.
	for _, q := range queue {
		reason := "grid full"
		switch {
		case capacity == 0:
			reason = "terminal too small for any agent pane"
		case !d.WakeAt.IsZero():
			reason = fmt.Sprintf("grid full; a finished pane frees in %s", d.WakeAt.Sub(st.Now).Round(time.Second))
		default:
			reason = fmt.Sprintf("grid full (%d of %d panes busy)", used(), capacity)
		}
		d.Actions = append(d.Actions, Action{Kind: ActDefer, Agent: q.ID, Reason: reason})
	}

	vis = slices.DeleteFunc(vis, func(a SlotAgent) bool { return a.ID == "" })
	var boxes []layout.Rect
	if cfg.Slots != nil {
		boxes = cfg.Slots(len(vis))
	}
	nPlaced, nResized := 0, 0
	for i, a := range vis {
		var box layout.Rect
		if i < len(boxes) {
			box = boxes[i]
		}
		d.Visible = append(d.Visible, a.ID)
		if placed[a.ID] {
			d.Actions = append(d.Actions, Action{Kind: ActPlace, Agent: a.ID, Slot: i, Box: box})
			nPlaced++
		} else if old := byID[a.ID]; old.Box != box {
			d.Actions = append(d.Actions, Action{Kind: ActResize, Agent: a.ID, Slot: i, Box: box})
			nResized++
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{nPlaced, "placed"}, {closed, "reclaimed"}, {deferred, "moved off screen"}, {nResized, "resized"}, {len(queue), "waiting"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", p.what, p.n))
		}
	}
	d.Reason = strings.Join(parts, ", ")
	if d.Reason == "" {
		d.Reason = "nothing to do"
	}
	return d
}

// showVictim picks the pane a Show swaps out: the oldest finished pane,
// else the newest pane that is not focused, else the newest.
func showVictim(vis []SlotAgent, focus string) int {
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
