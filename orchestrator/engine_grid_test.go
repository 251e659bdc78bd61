package orchestrator

// Engine tests about the grid: the deferred queue, placement, resizing,
// lingering, limits, Show and layouts, with real processes.

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

func TestManySpawnsAreAllAccountedFor(t *testing.T) {
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Agents.StartOffscreen = false
		c.Agents.MaxQueued = 100
	})
	e.Resize(24, 5) // capacity 2
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, refused int
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case strings.Contains(err.Error(), "queue is full (100 agents waiting); close some agents or raise agents.max_queued"):
				refused++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}()
	}
	wg.Wait()
	snap := e.Snapshot()
	visible, queued := 0, 0
	for _, a := range snap.Agents {
		if a.Visible {
			visible++
		}
		if a.QueuePos > 0 {
			queued++
		}
	}
	if ok != 102 || refused != 98 || visible != 2 || queued != 100 || len(snap.Agents) != 102 {
		t.Fatalf("ok %d refused %d visible %d queued %d listed %d", ok, refused, visible, queued, len(snap.Agents))
	}
	if snap.Counts.Queued != 100 || snap.Counts.Running != 2 {
		t.Fatalf("counts = %+v", snap.Counts)
	}
	// Queue positions are 1..100 in creation (FIFO) order.
	pos := 0
	for _, a := range snap.Agents {
		if a.QueuePos > 0 {
			pos++
			if a.QueuePos != pos || a.State != agentstate.Pending || a.QueueReason == "" {
				t.Fatalf("queue entry %+v at position %d", a, pos)
			}
		}
	}
}

func TestResizeShrinkMovesNewestToQueueAndGrowBringsThemBack(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(24, 10) // capacity 4
	var ids []string
	for range 4 {
		ids = append(ids, spawn(t, e, "cat").ID)
	}
	for _, id := range ids {
		waitAgent(t, e, id, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running && a.Visible })
	}
	e.Resize(24, 5) // capacity 2
	snap := e.Snapshot()
	if len(snap.Panes) != 2 || snap.Panes[0].Agent.ID != "a1" || snap.Panes[1].Agent.ID != "a2" {
		t.Fatalf("panes after shrink: %+v", snap.Panes)
	}
	for _, id := range ids[2:] {
		a, _ := e.Agent(id)
		if a.Visible || a.QueuePos == 0 || a.State != agentstate.Running || groupGone(a.PID) {
			t.Fatalf("%s after shrink: %+v", id, a)
		}
	}
	// The PTY follows the new box (12x5 box, 10x3 content).
	if c, r := snap.Panes[0].Term.Size(); c != 10 || r != 3 {
		t.Fatalf("pane size = %dx%d", c, r)
	}
	e.Resize(48, 10) // capacity 8
	for _, id := range ids {
		waitAgent(t, e, id, "visible again", func(a control.AgentInfo) bool { return a.Visible && a.QueuePos == 0 })
	}
	snap = e.Snapshot()
	if snap.Capacity != 8 || len(snap.Panes) != 4 {
		t.Fatalf("snapshot after grow: capacity %d panes %d", snap.Capacity, len(snap.Panes))
	}
	// Tiny terminal: everything off screen, nothing killed.
	e.Resize(5, 2)
	snap = e.Snapshot()
	if !snap.TooSmall || len(snap.Panes) != 0 || snap.Counts.Queued != 4 {
		t.Fatalf("tiny: %+v", snap.Counts)
	}
	for _, a := range snap.Agents {
		if a.State != agentstate.Running {
			t.Fatalf("tiny terminal changed %s: %+v", a.ID, a)
		}
	}
}

func TestOffscreenAgentRunsAt80x24AndIsResizedWhenPlaced(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(24, 5) // capacity 2
	first := spawn(t, e, "cat")
	spawn(t, e, "cat")
	second := spawn(t, e, "sh", "-c", "stty size; exec cat")
	pollUntil(t, 10*time.Second, "the off-screen agent's output", func() bool {
		s, _ := e.Capture(second.ID, false, 0)
		return strings.Contains(s, "24 80")
	})
	if a, _ := e.Agent(second.ID); a.Visible || a.QueuePos != 1 || a.State != agentstate.Running {
		t.Fatalf("second = %+v", a)
	}
	if err := e.Close(first.ID); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, second.ID, "placed", func(a control.AgentInfo) bool { return a.Visible })
	snap := e.Snapshot()
	if snap.Panes[1].Agent.ID != second.ID {
		t.Fatalf("the freed slot went to %s", snap.Panes[1].Agent.ID)
	}
	if c, r := snap.Panes[1].Term.Size(); c != 10 || r != 3 {
		t.Fatalf("placed pane is %dx%d, want 10x3", c, r)
	}
}

func TestFinishedPaneLingersThenIsReclaimed(t *testing.T) {
	clock := newFakeClock()
	linger := time.Hour
	e := newClockedEngine(t, nil, clock, nil, func(c *config.Config) {
		c.Agents.FinishedLinger = config.Duration{Duration: linger}
		c.Agents.StartOffscreen = false
		c.Layout.MinAgentWidth = 20
	})
	e.Resize(24, 5) // capacity 1
	if c := e.Snapshot().Capacity; c != 1 {
		t.Fatalf("capacity = %d, want 1", c)
	}
	first := spawn(t, e, "sh", "-c", "echo bye")
	second := spawn(t, e, "cat")
	fin := waitFinished(t, e, first.ID)
	if !fin.Visible {
		t.Fatalf("a finished pane must stay visible while lingering: %+v", fin)
	}
	// The engine wakes up when the linger ends, and not before.
	clock.waitTimerAt(t, fin.Ended.Add(linger), "the linger timer")
	clock.Advance(linger - time.Second)
	if a, _ := e.Agent(second.ID); a.Visible || a.QueuePos != 1 || a.State != agentstate.Pending {
		t.Fatalf("second before the linger: %+v", a)
	}
	clock.Advance(time.Second)
	a := waitAgent(t, e, second.ID, "placed after the linger", func(a control.AgentInfo) bool { return a.Visible && a.State == agentstate.Running })
	if el := a.Started.Sub(*fin.Ended); el < linger {
		t.Fatalf("reclaimed after %s, before the linger", el)
	}
	a, _ = e.Agent(first.ID)
	if a.Visible || a.State != agentstate.Done {
		t.Fatalf("first after reclaim: %+v", a)
	}
	// Its screen can still be read.
	if s, err := e.Capture(first.ID, false, 0); err != nil || !strings.Contains(s, "bye") {
		t.Fatalf("capture of a reclaimed pane = %q, %v", s, err)
	}
}

func TestLimitsHandOffInFIFOOrder(t *testing.T) {
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Limits.Default = 3
		c.Limits.Kinds = map[string]int{"shell": 1}
	})
	e.Resize(120, 10)
	mk := func(kind string) string {
		in, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		return in.ID
	}
	s1, s2, p1, s3 := mk("shell"), mk("shell"), mk(""), mk("shell")
	waitAgent(t, e, s1, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	waitAgent(t, e, p1, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	for _, id := range []string{s2, s3} {
		a, _ := e.Agent(id)
		if a.State != agentstate.Pending || !strings.Contains(a.Why, "limits.kinds.shell = 1") {
			t.Fatalf("%s = %+v", id, a)
		}
	}
	if err := e.Close(s1); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, s2, "started after the release", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if a, _ := e.Agent(s3); a.State != agentstate.Pending {
		t.Fatalf("s3 started out of order: %+v", a)
	}
	// The default limit: 3 running (s2, p1, and one more).
	p2, p3 := mk(""), mk("")
	waitAgent(t, e, p2, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if a, _ := e.Agent(p3); a.State != agentstate.Pending || !strings.Contains(a.Why, "limits.default = 3") {
		t.Fatalf("p3 = %+v", a)
	}
	if err := e.Close(p1); err != nil {
		t.Fatal(err)
	}
	// s3 is older than p3 but still blocked by its kind limit; p3 gets the permit.
	waitAgent(t, e, p3, "started", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	if a, _ := e.Agent(s3); a.State != agentstate.Pending {
		t.Fatalf("s3 = %+v", a)
	}
}

func TestShowSwapsAQueuedAgentIn(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(24, 5) // capacity 2
	a1, a2, a3 := spawn(t, e, "cat"), spawn(t, e, "cat"), spawn(t, e, "cat")
	e.Focus(a2.ID)
	if err := e.Show(a3.ID); err != nil {
		t.Fatal(err)
	}
	snap := e.Snapshot()
	if len(snap.Panes) != 2 || snap.Panes[0].Agent.ID != a3.ID || snap.Panes[1].Agent.ID != a2.ID || snap.Focus != a3.ID {
		t.Fatalf("after show: focus %s panes %+v", snap.Focus, snap.Panes)
	}
	if a, _ := e.Agent(a1.ID); a.QueuePos != 1 || a.State.Finished() {
		t.Fatalf("swapped-out agent: %+v", a)
	}
	if err := e.Show("a42"); err == nil {
		t.Fatal("showing an unknown agent succeeded")
	}
}

func TestLayoutZoomAndFocus(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) { c.Layout.Name = "main-vertical" })
	e.Resize(100, 30)
	in := spawn(t, e, "cat")
	waitAgent(t, e, in.ID, "visible", func(a control.AgentInfo) bool { return a.Visible })
	e.Focus(in.ID)
	e.ToggleZoom()
	snap := e.Snapshot()
	if !snap.Zoomed || len(snap.Panes) != 1 || snap.Panes[0].Box.W != 100 || !snap.Main.Box.Empty() {
		t.Fatalf("zoomed: %+v main %+v", snap.Panes, snap.Main.Box)
	}
	pollUntil(t, 5*time.Second, "the zoomed size", func() bool { c, _ := snap.Panes[0].Term.Size(); return c == 98 })
	e.ToggleZoom()
	if err := e.SetLayout("nope"); err == nil {
		t.Fatal("an unknown layout was accepted")
	}
	if err := e.SetLayout("main-horizontal"); err != nil {
		t.Fatal(err)
	}
	e.CycleLayout()
	snap = e.Snapshot()
	if snap.Zoomed || snap.Layout != "tiled" || len(snap.Panes) != 1 || snap.Main == nil || snap.Main.Box.Empty() {
		t.Fatalf("after cycle: layout %s zoomed %v panes %d", snap.Layout, snap.Zoomed, len(snap.Panes))
	}
}

func TestResizeStormKeepsEveryAgent(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(48, 10)
	var ids []string
	for range 6 {
		ids = append(ids, spawn(t, e, "cat").ID)
	}
	sizes := [][2]int{{48, 10}, {24, 5}, {0, 0}, {120, 30}, {13, 4}, {60, 10}}
	for i := range 100 {
		s := sizes[i%len(sizes)]
		e.Resize(s[0], s[1])
	}
	e.Resize(60, 10) // capacity 10: everyone fits
	snap := e.Snapshot()
	if len(snap.Panes) != 6 || snap.Counts.Queued != 0 {
		t.Fatalf("after the storm: %d panes, counts %+v", len(snap.Panes), snap.Counts)
	}
	for _, p := range snap.Panes {
		if p.Agent.State != agentstate.Running {
			t.Fatalf("%s = %s after the storm", p.Agent.ID, p.Agent.State)
		}
		want := p.Box.Inset(1)
		pollUntil(t, 5*time.Second, p.Agent.ID+" sized to its box", func() bool {
			c, r := p.Term.Size()
			return c == want.W && r == want.H
		})
	}
	// Slot order is creation order after everything came back.
	for i, p := range snap.Panes {
		if p.Agent.ID != ids[i] || p.Number != i+1 {
			t.Fatalf("slot %d holds %s (number %d)", i, p.Agent.ID, p.Number)
		}
	}
}

func TestClosingAQueuedAgentAndBadKinds(t *testing.T) {
	e := newTestEngine(t, nil, nil, func(c *config.Config) { c.Agents.StartOffscreen = false })
	e.Resize(24, 5) // capacity 2
	spawn(t, e, "cat")
	spawn(t, e, "cat")
	q1, q2 := spawn(t, e, "cat"), spawn(t, e, "cat")
	if q1.QueuePos != 1 || q2.QueuePos != 2 || q1.QueuedSince == nil {
		t.Fatalf("queued: %+v %+v", q1, q2)
	}
	if err := e.Close(q1.ID); err != nil {
		t.Fatal(err)
	}
	got := waitFinished(t, e, q1.ID)
	if got.State != agentstate.Killed || got.Why != "closed before it started" || got.QueuePos != 0 || got.PID != 0 {
		t.Fatalf("closed queued agent: %+v", got)
	}
	if a, _ := e.Agent(q2.ID); a.QueuePos != 1 {
		t.Fatalf("the queue did not move up: %+v", a)
	}
	if _, err := e.Spawn(control.SpawnRequest{Kind: "no-such-kind"}); err == nil || !strings.Contains(err.Error(), `unknown kind "no-such-kind"`) {
		t.Fatalf("unknown kind: %v", err)
	}
}

// Agents that finish off screen (they start at once with start_offscreen,
// the grid being full) leave the queue as they end: the queue count, the
// queue positions and explain are right, and spawns are never refused for
// places that finished agents hold. Shown later, such a pane lingers from
// when it was shown.
func TestFinishedAgentsLeaveTheQueueAtOnce(t *testing.T) {
	clock := newFakeClock()
	linger := time.Hour
	e := newClockedEngine(t, nil, clock, nil, func(c *config.Config) {
		c.Agents.FinishedLinger = config.Duration{Duration: linger}
		c.Agents.StartOffscreen = true
		c.Agents.MaxQueued = 5
		c.Layout.MinAgentWidth = 20
	})
	e.Resize(24, 5) // capacity 1
	busy := spawn(t, e, "cat")
	waitAgent(t, e, busy.ID, "placed", func(a control.AgentInfo) bool { return a.Visible && a.State == agentstate.Running })
	var ids []string
	for i := range 20 {
		in, err := e.Spawn(control.SpawnRequest{Argv: []string{"sh", "-c", "exit 0"}})
		if err != nil {
			t.Fatalf("spawn %d with the grid full and every earlier agent finished: %v", i+1, err)
		}
		ids = append(ids, in.ID)
		waitFinished(t, e, in.ID)
	}
	snap := e.Snapshot()
	if snap.Counts.Queued != 0 || snap.Counts.Done != len(ids) || snap.Counts.Running != 1 {
		t.Fatalf("counts = %+v, want 0 queued, %d done, 1 running", snap.Counts, len(ids))
	}
	for _, id := range ids {
		ex, err := e.Explain(id)
		if err != nil {
			t.Fatal(err)
		}
		if a := ex.Agent; a.QueuePos != 0 || a.QueueReason != "" || a.QueuedSince != nil || a.Visible || a.State != agentstate.Done {
			t.Fatalf("explain %s = %+v, want done, not queued, not visible", id, a)
		}
	}
	// A spawn that must wait still gets a queue place, position 1.
	waiting := spawn(t, e, "cat")
	if in, _ := e.Agent(waiting.ID); in.QueuePos != 1 {
		t.Fatalf("new waiting agent = %+v, want queue position 1", in)
	}
	// Shown, a finished agent's pane comes into view (the running one
	// goes back to the queue) and lingers from then before its slot is
	// reclaimed.
	last := ids[len(ids)-1]
	if err := e.Show(last); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, last, "shown", func(a control.AgentInfo) bool { return a.Visible })
	shownAt := clock.Now()
	clock.waitTimerAt(t, shownAt.Add(linger), "the shown pane's linger")
	clock.Advance(linger - time.Second)
	if a, _ := e.Agent(last); !a.Visible {
		t.Fatalf("the pane of an agent that ended off screen was reclaimed %s after it was shown", linger-time.Second)
	}
	clock.Advance(time.Second)
	waitAgent(t, e, last, "reclaimed", func(a control.AgentInfo) bool { return !a.Visible })
	waitAgent(t, e, busy.ID, "placed again", func(a control.AgentInfo) bool { return a.Visible })
}
