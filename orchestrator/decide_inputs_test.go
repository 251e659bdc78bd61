package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
)

// plan renders every action of a decision, sizes included.
func plan(d decision) string {
	var parts []string
	for _, a := range d.Actions {
		switch a.Kind {
		case actPlace:
			parts = append(parts, fmt.Sprintf("place %s@%d", a.Agent, a.Slot))
		case actResize:
			parts = append(parts, fmt.Sprintf("resize %s %dx%d", a.Agent, a.Cols, a.Rows))
		case actStart:
			parts = append(parts, fmt.Sprintf("start %s %dx%d", a.Agent, a.Cols, a.Rows))
		default:
			parts = append(parts, fmt.Sprintf("%s %s", a.Kind, a.Agent))
		}
	}
	return strings.Join(parts, ", ")
}

func pending(ids ...string) []pendingAgent {
	var out []pendingAgent
	for _, id := range ids {
		kind := ""
		if k, rest, ok := strings.Cut(id, ":"); ok {
			id, kind = k, rest
		}
		out = append(out, pendingAgent{ID: id, Limit: limitKey{Kind: kind}})
	}
	return out
}

// The inputs the engine used to decide outside decideSpawnActions: closes,
// shows, limits and starts, the main view, zoom and focus. testSlots gives
// n slots of (120/n - 2) x 18 content.
func TestDecideClosesShowsLimitsAndStarts(t *testing.T) {
	tests := []struct {
		name    string
		st      windowState
		cfg     decideConfig
		want    string
		visible string
		focus   string
		reason  string // the first hold's reason, if any
	}{
		{
			name: "a close frees a slot which a queued agent takes in the same pass",
			st: windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 2), vis("a2", 2, 1, 2)},
				Queue: queued("a3"), Pending: pending("a3"), Closes: []string{"a1"}, Focus: "a1"},
			want:    "stop a1, place a3@1, start a3 58x18",
			visible: "a2 a3",
			focus:   "a2",
		},
		{
			name: "closing a queued agent takes it out of the queue and never starts it",
			st: windowState{Area: room(1), Visible: []slotAgent{vis("a1", 1, 0, 1)},
				Queue: queued("a2", "a3"), Pending: pending("a2", "a3"), Closes: []string{"a2"}},
			cfg:     decideConfig{StartOffscreen: true},
			want:    "stop a2, defer a3, start a3 80x24",
			visible: "a1",
		},
		{
			name: "a show of an off-screen agent swaps with the oldest finished pane",
			st: windowState{Area: room(3), Visible: []slotAgent{
				fin(vis("a1", 1, 0, 3), 10*time.Second), fin(vis("a2", 2, 1, 3), 40*time.Second), vis("a3", 3, 2, 3),
			}, Queue: queued("a4", "a5"), Show: "a5", Focus: "a3"},
			want:    "close a2, defer a4, place a5@1",
			visible: "a1 a5 a3",
			focus:   "a5",
		},
		{
			name:    "a show of a visible agent only focuses it",
			st:      windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 2), vis("a2", 2, 1, 2)}, Show: "a2", Focus: "a1"},
			want:    "",
			visible: "a1 a2",
			focus:   "a2",
		},
		{
			name: "a limit holds a start",
			st: windowState{Area: room(2), Visible: []slotAgent{vis("a1", 1, 0, 1)},
				Queue: queued("a2"), Pending: pending("a2"), Running: usage{All: 1}},
			cfg:     decideConfig{Limits: config.Limits{Default: 1}},
			want:    "resize a1 58x18, place a2@1, hold a2",
			visible: "a1 a2",
			reason:  "waiting for a slot: agents 1/1 (limits.default = 1)",
		},
		{
			name: "a free permit goes to the oldest pending agent, the next one is held",
			st: windowState{Area: room(3), Visible: []slotAgent{vis("a1", 1, 0, 3)},
				Queue: queued("a2", "a3"), Pending: pending("a2", "a3"), Running: usage{All: 1}},
			cfg:     decideConfig{Limits: config.Limits{Default: 2}},
			want:    "place a2@1, place a3@2, start a2 38x18, hold a3",
			visible: "a1 a2 a3",
			reason:  "limits.default = 2",
		},
		{
			name: "a kind's limit holds only that kind",
			st: windowState{Area: room(3), Queue: queued("a1", "a2"), Pending: pending("a1:claude", "a2:codex"),
				Running: usage{All: 1, ByKind: map[string]int{"claude": 1}}},
			cfg:     decideConfig{Limits: config.Limits{Kinds: map[string]int{"claude": 1}}},
			want:    "place a1@0, place a2@1, hold a1, start a2 58x18",
			visible: "a1 a2",
			reason:  "limits.kinds.claude = 1",
		},
		{
			name: "queued agents start off screen only with start_offscreen",
			st: windowState{Area: room(1), Visible: []slotAgent{vis("a1", 1, 0, 1)},
				Queue: queued("a2"), Pending: pending("a2")},
			want:    "defer a2",
			visible: "a1",
		},
		{
			name: "nothing starts while the session shuts down",
			st: windowState{Area: room(2), Queue: queued("a1"), Pending: pending("a1"), Closing: true,
				Main: &mainPane{Pending: true}},
			cfg:     decideConfig{StartOffscreen: true},
			want:    "place a1@0",
			visible: "a1",
		},
		{
			name:    "an agent running off screen is resized to its slot when placed",
			st:      windowState{Area: room(2), Queue: []queuedAgent{{ID: "a1", Seq: 1, Cols: 80, Rows: 24}}},
			want:    "place a1@0, resize a1 118x18",
			visible: "a1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.st.Now = t0
			tc.cfg.FinishedLinger = time.Minute
			tc.cfg.Geometry = testGeometry
			d := decideSpawnActions(tc.st, tc.cfg)
			if got := plan(d); got != tc.want {
				t.Errorf("actions:\n got  %s\n want %s", got, tc.want)
			}
			if got := strings.Join(d.Visible, " "); got != tc.visible {
				t.Errorf("visible = %q, want %q", got, tc.visible)
			}
			if tc.focus != "" && d.Focus != tc.focus {
				t.Errorf("focus = %q, want %q", d.Focus, tc.focus)
			}
			if tc.reason != "" {
				found := false
				for _, a := range d.Actions {
					if a.Kind == actHold {
						found = strings.Contains(a.Reason, tc.reason)
						break
					}
				}
				if !found {
					t.Errorf("hold reason: %+v, want one containing %q", d.Actions, tc.reason)
				}
			}
		})
	}
}

// With the real layout: the main view's start and resize, and a zoom, all
// from the one plan in the decision.
func TestDecideGeometryWithMainAndZoom(t *testing.T) {
	area := layout.Rect{W: 100, H: 30}
	lo := layout.Options{Name: layout.MainVertical, MinAgentWidth: 10, MinAgentHeight: 3, HasMain: true, Zoom: -1}
	want := layout.Compute(area, 2, lo)
	two := []slotAgent{{ID: "a1", Seq: 1, Cols: 1, Rows: 1}, {ID: "a2", Seq: 2, Cols: 1, Rows: 1}}
	size := func(r layout.Rect) string { c := r.Inset(1); return fmt.Sprintf("%dx%d", c.W, c.H) }

	// The main view starts at its box's size; the agents are resized to theirs.
	d := decideSpawnActions(windowState{Now: t0, Area: area, Layout: lo, Main: &mainPane{Pending: true}, Visible: two, Focus: control.MainID}, decideConfig{})
	if got, w := plan(d), fmt.Sprintf("resize a1 %s, resize a2 %s, start main %s", size(want.Slots[0]), size(want.Slots[1]), size(want.Main)); got != w {
		t.Fatalf("actions:\n got  %s\n want %s", got, w)
	}
	if d.Plan.Main != want.Main || d.Plan.Slots[0] != want.Slots[0] || d.Plan.Capacity != want.Capacity {
		t.Fatalf("plan = %+v, want %+v", d.Plan, want)
	}

	// Zoom on a2: it fills the area and is resized; a1 and main are hidden
	// and keep their sizes.
	c := want.Slots[0].Inset(1)
	m := want.Main.Inset(1)
	sized := []slotAgent{{ID: "a1", Seq: 1, Cols: c.W, Rows: c.H}, {ID: "a2", Seq: 2, Cols: c.W, Rows: c.H}}
	d = decideSpawnActions(windowState{Now: t0, Area: area, Layout: lo, Main: &mainPane{Cols: m.W, Rows: m.H}, Visible: sized, Zoom: "a2", Focus: "a2"}, decideConfig{})
	if got, w := plan(d), "resize a2 "+size(area); got != w {
		t.Fatalf("zoomed actions:\n got  %s\n want %s", got, w)
	}
	if d.Zoom != "a2" || d.Plan.Slots[1] != area || !d.Plan.Slots[0].Empty() || !d.Plan.Main.Empty() {
		t.Fatalf("zoomed plan = %+v, zoom %q", d.Plan, d.Zoom)
	}

	// Closing the zoomed agent ends the zoom; the focus falls back to the
	// first slot.
	d = decideSpawnActions(windowState{Now: t0, Area: area, Layout: lo, Main: &mainPane{Cols: m.W, Rows: m.H}, Visible: sized, Zoom: "a2", Focus: "a2", Closes: []string{"a2"}}, decideConfig{})
	one := layout.Compute(area, 1, lo)
	if d.Zoom != "" || d.Focus != "a1" || d.Plan.Slots[0] != one.Slots[0] || d.Plan.Main != one.Main {
		t.Fatalf("after closing the zoomed agent: zoom %q focus %q plan %+v", d.Zoom, d.Focus, d.Plan)
	}
	w := "stop a2, resize a1 " + size(one.Slots[0])
	if one.Main != want.Main {
		w += ", resize main " + size(one.Main)
	}
	if got := plan(d); got != w {
		t.Fatalf("actions:\n got  %s\n want %s", got, w)
	}
}

// The layout is computed once per decision, whatever the shape.
func TestDecideComputesTheLayoutOnce(t *testing.T) {
	for capacity := range 5 {
		for nVis := range 6 {
			for nQ := range 4 {
				calls := 0
				geo := func(area layout.Rect, n int, o layout.Options) layout.Plan {
					calls++
					return testGeometry(area, n, o)
				}
				st := windowState{Now: t0, Area: room(capacity), Main: &mainPane{Cols: 10, Rows: 10}}
				seq := 0
				for i := range nVis {
					seq++
					a := vis(fmt.Sprintf("a%d", seq), seq, 0, 1)
					if i%2 == 1 {
						a = fin(a, time.Duration(i)*time.Minute)
					}
					st.Visible = append(st.Visible, a)
				}
				for range nQ {
					seq++
					st.Queue = append(st.Queue, queuedAgent{ID: fmt.Sprintf("a%d", seq), Seq: seq})
				}
				if nVis > 0 {
					st.Closes = []string{"a1"}
				}
				if nQ > 0 {
					st.Show = st.Queue[nQ-1].ID
				}
				decideSpawnActions(st, decideConfig{FinishedLinger: time.Minute, Geometry: geo})
				if calls != 1 {
					t.Fatalf("cap %d vis %d queue %d: the layout was computed %d times", capacity, nVis, nQ, calls)
				}
			}
		}
	}
}
