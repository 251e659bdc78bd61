package orchestrator

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/layout"
)

// actionKind is what the engine is asked to do with one agent's pane.
type actionKind int

const (
	// actPlace puts a queued agent into a slot.
	actPlace actionKind = iota
	// actClose reclaims a finished agent's slot; its process is long gone.
	actClose
	// actResize sets a pane's terminal (its PTY, or the screen of a
	// finished agent) to Cols x Rows.
	actResize
	// actDefer keeps (or puts back) an agent in the queue, with a reason.
	actDefer
	// actStart starts a pending agent's process in a PTY of Cols x Rows.
	actStart
	// actHold keeps a pending agent from starting: a concurrency limit
	// (Reason) is reached.
	actHold
	// actStop ends an agent the user closed: it leaves the grid and the
	// queue for good and its process group is ended.
	actStop
)

func (k actionKind) String() string {
	switch k {
	case actPlace:
		return "place"
	case actClose:
		return "close"
	case actResize:
		return "resize"
	case actDefer:
		return "defer"
	case actStart:
		return "start"
	case actHold:
		return "hold"
	case actStop:
		return "stop"
	}
	return "?"
}

// action is one step of a decision.
type action struct {
	Kind  actionKind
	Agent string
	Slot  int         // 0-based slot index (place, resize of an agent); -1 for the main view
	Box   layout.Rect // outer box: the slot (place), the drawn box (resize)
	// Cols and Rows are the terminal size (start, resize).
	Cols, Rows int
	Reason     string
}

func (a action) String() string {
	switch a.Kind {
	case actPlace:
		return fmt.Sprintf("%s %s slot %d %dx%d", a.Kind, a.Agent, a.Slot, a.Box.W, a.Box.H)
	case actResize, actStart:
		return fmt.Sprintf("%s %s %dx%d", a.Kind, a.Agent, a.Cols, a.Rows)
	}
	return fmt.Sprintf("%s %s (%s)", a.Kind, a.Agent, a.Reason)
}

// decision is the output of decideSpawnActions: the whole plan of a pass.
type decision struct {
	// Actions in the order the engine executes them: stops, moves off
	// screen, reclaims, defers, then per slot places and resizes, the main
	// view's resize, and last the starts and holds.
	Actions []action
	// Visible is the slot order after the actions.
	Visible []string
	// Plan is the geometry after the actions, zoom applied: Plan.Main is
	// the main view's box and Plan.Slots[i] the box of Visible[i] (empty
	// while another pane is zoomed). Plan.Capacity is how many agent panes
	// fit.
	Plan layout.Plan
	// Zoom and Focus are the zoom target and the focused pane after the
	// pass ("" for no zoom; "main" or an agent id).
	Zoom, Focus string
	// Reason summarises the decision for the log.
	Reason string
	// WakeAt, when set, is when a finished pane becomes reclaimable for an
	// agent still waiting: the engine runs a pass then.
	WakeAt time.Time
}

// slotAgent is a visible agent as the decision sees it.
type slotAgent struct {
	ID       string
	Seq      int // creation order: higher is newer
	Finished bool
	// Ended is when it has been on screen finished since (its exit, or its
	// placement if it ended off screen): the linger counts from there.
	Ended time.Time
	// Cols and Rows are its terminal's size now (0 when it has none yet).
	Cols, Rows int
}

// queuedAgent is an agent waiting for a slot.
type queuedAgent struct {
	ID  string
	Seq int
	// Finished is set for an agent that ended off screen: once placed its
	// pane lingers from now.
	Finished bool
	// Cols and Rows are its terminal's size now (0 when it has none yet).
	Cols, Rows int
}

// pendingAgent is an agent whose process has not been started.
type pendingAgent struct {
	ID string
	// Limit is what the concurrency limits count it by.
	Limit limitKey
}

// mainPane is the main view as the decision sees it.
type mainPane struct {
	// Pending is set until its process was started.
	Pending bool
	// Cols and Rows are its terminal's size now.
	Cols, Rows int
}

// usage is how many agents hold a concurrency permit, in all and per kind.
type usage struct {
	All        int
	ByKind     map[string]int
	ByModel    map[string]int
	ByProvider map[string]int
}

// windowState is the Query step's picture of the session: everything the
// decision depends on.
type windowState struct {
	Now time.Time
	// Area is the space of the main view and the grid (the terminal minus
	// the status line); Layout the layout's options (its Zoom is ignored:
	// Zoom says who is zoomed).
	Area   layout.Rect
	Layout layout.Options
	// Main is the main view; nil when there is none.
	Main    *mainPane
	Visible []slotAgent   // slot order
	Queue   []queuedAgent // FIFO order
	// Pending are the agents not started yet, in creation order.
	Pending []pendingAgent
	// Running is how many agents hold a permit of the concurrency limits.
	Running usage
	// Closes are the agents the user closed since the last pass.
	Closes []string
	// Show asks to bring this agent into view now, swapping out another
	// pane when the grid is full (and to focus it).
	Show string
	// Focus is the focused pane, spared by a Show swap when possible; Zoom
	// the zoomed one ("" for none).
	Focus, Zoom string
	// Closing is set while the session shuts down: nothing starts.
	Closing bool
}

// decideConfig holds the rules' parameters.
type decideConfig struct {
	FinishedLinger time.Duration
	// StartOffscreen starts queued agents before they have a slot.
	StartOffscreen bool
	// Limits are the concurrency limits.
	Limits config.Limits
	// Geometry computes a layout plan; nil means layout.Compute.
	Geometry func(area layout.Rect, n int, o layout.Options) layout.Plan
}

// decideSpawnActions is the pure Decide step. Rules: the grid never holds
// more than the layout's capacity (shrinking moves the newest back to the
// queue, never kills them; a finished one just leaves the screen); a
// closed agent leaves at once and its slot is free in the same pass; free
// slots go to the queue in FIFO order; when the grid is full a finished
// pane is reclaimed (oldest finished first) once it has lingered
// FinishedLinger and only for a waiting agent; running and waiting agents
// are never evicted except by an explicit Show, which moves one back to
// the queue; pending agents start in creation order (visible ones, and
// queued ones with StartOffscreen) within the concurrency limits. The
// layout is computed once.
func decideSpawnActions(st windowState, cfg decideConfig) decision {
	var d decision
	geometry := cfg.Geometry
	if geometry == nil {
		geometry = layout.Compute
	}
	lo := st.Layout
	lo.Zoom = -1
	closed := map[string]bool{}
	for _, id := range st.Closes {
		if !closed[id] {
			closed[id] = true
			d.Actions = append(d.Actions, action{Kind: actStop, Agent: id, Reason: "closed by the user"})
		}
	}
	// A closed agent leaves its slot (the others move up) and the queue.
	vis := slices.DeleteFunc(slices.Clone(st.Visible), func(a slotAgent) bool { return closed[a.ID] })
	queue := slices.DeleteFunc(slices.Clone(st.Queue), func(q queuedAgent) bool { return closed[q.ID] })

	// Every agent that wants a slot gets one up to the capacity, so the
	// final count is known before deciding who: one layout computation.
	plan := geometry(st.Area, len(vis)+len(queue), lo)
	capacity := max(plan.Capacity, 0)
	g := gridDecision{d: &d, st: st, cfg: cfg, vis: vis, queue: queue, capacity: capacity,
		placed: map[string]queuedAgent{}, offscreen: map[string]bool{}}
	g.arrange()
	if len(g.vis) != len(plan.Slots) {
		plan = geometry(st.Area, len(g.vis), lo) // not expected; never draw a wrong plan
	}
	g.finish(plan)
	return d
}
