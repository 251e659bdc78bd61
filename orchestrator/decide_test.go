package orchestrator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/layout"
)

// testSlots is a stand-in geometry: n equal columns of a 120x20 area, so a
// change of n changes every box.
func testSlots(n int) []layout.Rect {
	out := make([]layout.Rect, n)
	for i := range out {
		out[i] = layout.Rect{X: i * (120 / n), W: 120 / n, H: 20}
	}
	return out
}

// testGeometry is the stand-in layout: an area's width is its capacity and
// the slots are testSlots.
func testGeometry(area layout.Rect, n int, _ layout.Options) layout.Plan {
	return layout.Plan{Area: area, Capacity: area.W, Zoomed: -1, Slots: testSlots(min(n, area.W))}
}

// room is an area for testGeometry with room for n agent panes.
func room(n int) layout.Rect { return layout.Rect{W: n, H: 1} }

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// vis builds a visible agent already sized for its slot among n.
func vis(id string, seq, slot, n int) slotAgent {
	c := testSlots(n)[slot].Inset(1)
	return slotAgent{ID: id, Seq: seq, Cols: c.W, Rows: c.H}
}

func fin(a slotAgent, ago time.Duration) slotAgent {
	a.Finished, a.Ended = true, t0.Add(-ago)
	return a
}

func queued(ids ...string) []queuedAgent {
	var out []queuedAgent
	for _, id := range ids {
		var seq int
		fmt.Sscanf(id, "a%d", &seq)
		out = append(out, queuedAgent{ID: id, Seq: seq})
	}
	return out
}

// summary renders a decision's actions compactly: "place a4@1", "close a2".
func summary(d decision) string {
	var parts []string
	for _, a := range d.Actions {
		switch a.Kind {
		case actPlace, actResize:
			parts = append(parts, fmt.Sprintf("%s %s@%d", a.Kind, a.Agent, a.Slot))
		default:
			parts = append(parts, fmt.Sprintf("%s %s", a.Kind, a.Agent))
		}
	}
	return strings.Join(parts, ", ")
}

func TestDecideSpawnActions(t *testing.T) {
	linger := 15 * time.Second
	tests := []struct {
		name    string
		st      windowState
		want    string
		visible string
		wake    time.Time
		reason  string // substring of the first defer's reason, if any
	}{
		{
			name:    "empty grid places in FIFO order",
			st:      windowState{Area: room(4), Queue: queued("a1", "a2", "a3")},
			want:    "place a1@0, place a2@1, place a3@2",
			visible: "a1 a2 a3",
		},
		{
			name:    "partial grid fills the free slot and defers the rest",
			st:      windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 1)}, Queue: queued("a2", "a3", "a4")},
			want:    "defer a3, defer a4, resize a1@0, place a2@1",
			visible: "a1 a2",
			reason:  "grid full (2 of 2 panes busy)",
		},
		{
			name:    "full grid of running agents evicts nobody",
			st:      windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 2), vis("a2", 2, 1, 2)}, Queue: queued("a3")},
			want:    "defer a3",
			visible: "a1 a2",
			reason:  "grid full",
		},
		{
			name: "reclaims the oldest finished pane that lingered, in place",
			st: windowState{Area: room(3), Visible: []slotAgent{
				fin(vis("a1", 1, 0, 3), 20*time.Second), fin(vis("a2", 2, 1, 3), 30*time.Second), vis("a3", 3, 2, 3),
			}, Queue: queued("a4")},
			want:    "close a2, place a4@1",
			visible: "a1 a4 a3",
		},
		{
			name: "reclaims several for several waiting agents",
			st: windowState{Area: room(3), Visible: []slotAgent{
				fin(vis("a1", 1, 0, 3), 20*time.Second), fin(vis("a2", 2, 1, 3), 30*time.Second), vis("a3", 3, 2, 3),
			}, Queue: queued("a4", "a5", "a6")},
			want:    "close a2, close a1, defer a6, place a5@0, place a4@1",
			visible: "a5 a4 a3",
		},
		{
			name: "a finished pane that has not lingered is kept; wake at its expiry",
			st: windowState{Area: room(2), Visible: []slotAgent{
				fin(vis("a1", 1, 0, 2), 5*time.Second), vis("a2", 2, 1, 2),
			}, Queue: queued("a3")},
			want:    "defer a3",
			visible: "a1 a2",
			wake:    t0.Add(10 * time.Second),
			reason:  "a finished pane frees in 10s",
		},
		{
			name:    "finished panes stay when nobody waits",
			st:      windowState{Area: room(2), Visible: []slotAgent{fin(vis("a1", 1, 0, 2), time.Hour), vis("a2", 2, 1, 2)}},
			want:    "",
			visible: "a1 a2",
		},
		{
			name:    "tiny terminal defers everything and kills nothing",
			st:      windowState{Area: room(0), Queue: queued("a1", "a2")},
			want:    "defer a1, defer a2",
			visible: "",
			reason:  "terminal too small",
		},
		{
			name: "shrinking to zero moves every visible agent to the queue",
			st: windowState{Area: room(0), Visible: []slotAgent{
				vis("a1", 1, 0, 2), fin(vis("a2", 2, 1, 2), time.Hour),
			}},
			want:    "close a2, defer a1",
			visible: "",
		},
		{
			name: "shrinking moves the newest visible agents back, never closes",
			st: windowState{Area: room(2), Visible: []slotAgent{
				vis("a3", 3, 0, 4), vis("a1", 1, 1, 4), vis("a4", 4, 2, 4), vis("a2", 2, 3, 4),
			}},
			want:    "defer a4, defer a3, resize a1@0, resize a2@1",
			visible: "a1 a2",
			reason:  "terminal too small",
		},
		{
			name:    "growing places the queue head first",
			st:      windowState{Area: room(3), Visible: []slotAgent{vis("a1", 1, 0, 1)}, Queue: queued("a4", "a2", "a3")},
			want:    "defer a3, resize a1@0, place a4@1, place a2@2",
			visible: "a1 a4 a2",
		},
		{
			name: "show swaps a queued agent in for the newest unfocused one",
			st: windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 2), vis("a2", 2, 1, 2)},
				Queue: queued("a3", "a4"), Show: "a4", Focus: "a2"},
			want:    "defer a1, defer a3, place a4@0",
			visible: "a4 a2",
		},
		{
			name: "show prefers to swap out a finished pane, even one still lingering",
			st: windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 2), fin(vis("a2", 2, 1, 2), time.Second)},
				Queue: queued("a3", "a4"), Show: "a4", Focus: "a1"},
			want:    "close a2, defer a3, place a4@1",
			visible: "a1 a4",
			wake:    time.Time{},
		},
		{
			name:    "show with a free slot just places",
			st:      windowState{Area: room(3), Visible: []slotAgent{vis("a1", 1, 0, 1)}, Queue: queued("a2", "a3"), Show: "a3"},
			want:    "resize a1@0, place a3@1, place a2@2",
			visible: "a1 a3 a2",
		},
		{
			name: "an agent that ended off screen lingers from its placement",
			st: windowState{Area: room(1), Visible: []slotAgent{fin(vis("a1", 1, 0, 1), time.Hour)},
				Queue: []queuedAgent{{ID: "a2", Seq: 2, Finished: true}, {ID: "a3", Seq: 3}}},
			want:    "close a1, defer a3, place a2@0",
			visible: "a2",
			wake:    t0.Add(15 * time.Second),
			reason:  "a finished pane frees in 15s",
		},
		{
			name:    "show on a tiny terminal does nothing",
			st:      windowState{Area: room(0), Queue: queued("a1"), Show: "a1"},
			want:    "defer a1",
			visible: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Now = t0
			d := decideSpawnActions(tc.st, decideConfig{FinishedLinger: linger, Geometry: testGeometry})
			if got := summary(d); got != tc.want {
				t.Errorf("actions:\n got  %s\n want %s", got, tc.want)
			}
			if got := strings.Join(d.Visible, " "); got != tc.visible {
				t.Errorf("visible = %q, want %q", got, tc.visible)
			}
			if !d.WakeAt.Equal(tc.wake) {
				t.Errorf("wake = %v, want %v", d.WakeAt, tc.wake)
			}
			if tc.reason != "" {
				i := slices.IndexFunc(d.Actions, func(a action) bool { return a.Kind == actDefer })
				if i < 0 || !strings.Contains(d.Actions[i].Reason, tc.reason) {
					t.Errorf("defer reason = %+v, want it to contain %q", d.Actions, tc.reason)
				}
			}
			// Invariants: never more visible than capacity; nobody both
			// visible and deferred; running agents are never closed.
			if len(d.Visible) > tc.st.Area.W {
				t.Errorf("%d visible > capacity %d", len(d.Visible), tc.st.Area.W)
			}
			for _, a := range d.Actions {
				if a.Kind == actDefer && slices.Contains(d.Visible, a.Agent) {
					t.Errorf("%s is both visible and deferred", a.Agent)
				}
				if a.Kind == actClose {
					for _, v := range tc.st.Visible {
						if v.ID == a.Agent && !v.Finished {
							t.Errorf("running agent %s was closed", a.Agent)
						}
					}
				}
			}
		})
	}
}

// Every agent given to the decision comes out either visible or deferred
// (or closed, if finished): none is lost, for many random shapes.
func TestDecideAccountsForEveryAgent(t *testing.T) {
	for _, linger := range []time.Duration{0, 15 * time.Second} {
		accountForEveryAgent(t, linger)
	}
}

func accountForEveryAgent(t *testing.T, linger time.Duration) {
	for capacity := range 6 {
		for nVis := range 7 {
			for nQ := range 5 {
				for nFin := 0; nFin <= nVis; nFin++ {
					st := windowState{Now: t0, Area: room(capacity)}
					seq := 0
					for i := range nVis {
						seq++
						a := slotAgent{ID: fmt.Sprintf("a%d", seq), Seq: seq}
						if i < nFin {
							a = fin(a, time.Duration(i+1)*10*time.Second)
						}
						st.Visible = append(st.Visible, a)
					}
					for i := range nQ {
						seq++
						st.Queue = append(st.Queue, queuedAgent{ID: fmt.Sprintf("a%d", seq), Seq: seq, Finished: i%2 == 1})
					}
					d := decideSpawnActions(st, decideConfig{FinishedLinger: linger, Geometry: testGeometry})
					seen := map[string]int{}
					for _, id := range d.Visible {
						seen[id]++
					}
					for _, a := range d.Actions {
						if a.Kind == actDefer || a.Kind == actClose {
							seen[a.Agent]++
						}
					}
					for i := 1; i <= seq; i++ {
						if n := seen[fmt.Sprintf("a%d", i)]; n != 1 {
							t.Fatalf("cap %d vis %d queue %d fin %d: a%d accounted %d times: %s", capacity, nVis, nQ, nFin, i, n, summary(d))
						}
					}
				}
			}
		}
	}
}
