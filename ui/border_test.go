package ui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// TestBorderShowsCategoryAndModel: an agent started with a category or a
// model names them after its title on its border, the model cut to 24
// cells; in a narrow box they are cut first.
func TestBorderShowsCategoryAndModel(t *testing.T) {
	snap := testSnapshot()
	a1 := testPane("a1", 1, agentstate.Running, layout.Rect{X: 40, Y: 0, W: 80, H: 11}, "building\n")
	a1.Agent.Category, a1.Agent.Model = "review", "opus"
	a2 := testPane("a2", 2, agentstate.Idle, layout.Rect{X: 40, Y: 11, W: 80, H: 12}, "done?\n")
	a2.Agent.Model = "claude-sonnet-4-5-20250929-with-a-long-name"
	snap.Cols, snap.Panes, snap.Agents = 120, []orchestrator.PaneView{a1, a2}, []control.AgentInfo{a1.Agent, a2.Agent}
	m, _ := newTestModel(t, snap)
	m.Update(teaWindowSize(120, 24))
	rows := strings.Split(ansi.Strip(viewText(m)), "\n")
	if want := "┌─ 1 a1-title [review · opus] ● running 12s ──"; !strings.Contains(rows[0], want) {
		t.Errorf("a1's border is %q, want it to contain %q", rows[0], want)
	}
	if want := "┌─ 2 a2-title [claude-sonnet-4-5-20250…] ○ idle <1m ──"; !strings.Contains(rows[11], want) {
		t.Errorf("a2's border is %q, want it to contain %q", rows[11], want)
	}
	if !strings.HasPrefix(rows[0], "┌─ 0 main-title ● running 12s ─") {
		t.Errorf("main's border is %q, want no category or model", rows[0])
	}

	// At 80 columns a1's box is 40 wide: the category and model are cut.
	snap = testSnapshot()
	snap.Panes[0].Agent.Category, snap.Panes[0].Agent.Model = "review", "opus"
	snap.Agents[0] = snap.Panes[0].Agent
	m, _ = newTestModel(t, snap)
	rows = strings.Split(ansi.Strip(viewText(m)), "\n")
	if want := "┌─ 1 a1-title [review… ● running 12s ──┐"; !strings.HasSuffix(rows[0], want) {
		t.Errorf("a1's border at 40 columns is %q, want it to end %q", rows[0], want)
	}
}

// TestBorderCategoryAndModelCutWithTheTitle: narrower borders drop the
// status entries, cut the category and model, drop them, then cut the
// title, keeping the badge.
func TestBorderCategoryAndModelCutWithTheTitle(t *testing.T) {
	c := composer{}
	label := paneLabel{number: "3", title: "build-api", badge: "● running 12s", category: "review", model: "opus", entries: []string{"tests 42/50"}}
	for _, tt := range []struct {
		w    int
		want string
	}{
		{61, "┌─ 3 build-api [review · opus] ● running 12s · tests 42/50 ─┐"},
		{50, "┌─ 3 build-api [review · opus] ● running 12s ────┐"},
		{40, "┌─ 3 build-api [review… ● running 12s ─┐"},
		{36, "┌─ 3 build-api [re… ● running 12s ─┐"},
		{32, "┌─ 3 build-api ● running 12s ──┐"},
		{30, "┌─ 3 build-a… ● running 12s ─┐"},
		{22, "┌─ 3 ● running 12s ──┐"},
	} {
		p := paneFrame{label: label}
		var b strings.Builder
		for _, cl := range c.borderTop(nil, tt.w, &p, termrt.Style{}) {
			b.WriteString(cl.Content)
		}
		if got := b.String(); got != tt.want {
			t.Errorf("width %d:\n got %q\nwant %q", tt.w, got, tt.want)
		}
		if gw := ansi.StringWidth(b.String()); gw != tt.w {
			t.Errorf("width %d: the border is %d wide", tt.w, gw)
		}
	}
}

// TestAgentsOverlayShowsCategoryAndModel: the agents overlay names an
// agent's category and model after its title, as its border does.
func TestAgentsOverlayShowsCategoryAndModel(t *testing.T) {
	now := time.Unix(1000, 0)
	snap := orchestrator.Snapshot{
		Main: &orchestrator.PaneView{Agent: control.AgentInfo{ID: control.MainID, Title: "sh", State: agentstate.Running}},
		Agents: []control.AgentInfo{
			{ID: "a1", Title: "fix", Category: "review", Model: "opus", State: agentstate.Running, Created: now},
			{ID: "a2", Title: "plain", State: agentstate.Running, Created: now},
		},
	}
	o := newAgentsOverlay(120, 30, newUIStyles(testStyles()))
	o.setAgents(snap, now)
	cells, _, _ := o.View()
	text := strings.Join(overlayText(cells), "\n")
	if !strings.Contains(text, "fix [review · opus]") {
		t.Errorf("the overlay does not name a1's category and model:\n%s", text)
	}
	if strings.Contains(text, "plain [") {
		t.Errorf("the overlay shows a tag for a2, which has none:\n%s", text)
	}
}

// TestBorderRedrawsWhenOnlyTheModelChanges: a snapshot that changes
// nothing but an agent's model (a category's fallback) or its worktree
// branch redraws the border.
func TestBorderRedrawsWhenOnlyTheModelChanges(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	for _, change := range []func(a *control.AgentInfo){
		func(a *control.AgentInfo) { a.Model = "haiku" },
		func(a *control.AgentInfo) { a.Model, a.Worktree, a.Branch = "", "/w", "w" },
	} {
		eng.mu.Lock()
		snap := eng.snap
		snap.Panes = slices.Clone(snap.Panes)
		change(&snap.Panes[0].Agent)
		eng.snap = snap
		eng.mu.Unlock()
		settle(m, m.refresh())
		m.View()
		top := strings.Split(ansi.Strip(viewText(m)), "\n")[0]
		a := snap.Panes[0].Agent
		if a.Model != "" && !strings.Contains(top, "["+a.Model+"]") || a.Branch != "" && !strings.Contains(top, a.Branch) {
			t.Errorf("after %+v the border is %q", a, top)
		}
	}
}

// TestBorderTopAllocatesNothing: a label redrawn as its badge ticks (every
// idle pane's minutes, once a minute) is drawn into the cells kept from the
// last time, without a new string or list: an idle session's frame then
// takes no fresh memory, which after a quiet minute costs it page faults.
func TestBorderTopAllocatesNothing(t *testing.T) {
	c := composer{}
	p := paneFrame{label: paneLabel{number: "12", title: "build-api", badge: "○ idle 3m", entries: []string{"tests 42/50", "✓ green"}, branch: "⎇ agentgrid/fix"}}
	dst := c.borderTop(nil, 120, &p, termrt.Style{})
	var b strings.Builder
	for _, cl := range dst {
		b.WriteString(cl.Content)
	}
	if want := "┌─ 12 build-api ○ idle 3m · tests 42/50 · ✓ green "; !strings.HasPrefix(b.String(), want) || !strings.HasSuffix(b.String(), " ⎇ agentgrid/fix ─┐") {
		t.Fatalf("the border is %q", b.String())
	}
	if n := testing.AllocsPerRun(50, func() { dst = c.borderTop(dst[:0], 120, &p, termrt.Style{}) }); n != 0 {
		t.Errorf("borderTop allocates %v times a call, want 0", n)
	}
}
