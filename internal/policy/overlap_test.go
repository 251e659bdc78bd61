package policy

import (
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestOverlapWarnsBothLiveAgents(t *testing.T) {
	e := New([]Rule{{Name: "overlap", Use: UseOverlap, Window: 5 * time.Minute}})
	dead := map[string]bool{}
	e.SetLive(func(id string) bool { return !dead[id] })
	t0 := time.Unix(10000, 0)
	editAt := func(id, file string, at time.Time) (agentstate.Decision, []Warning) {
		return e.DecideAll(Agent{ID: id, Cwd: "/repo"}, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{file}}, at)
	}
	if d, w := editAt("a1", "/repo/x.go", t0); d.Action != agentstate.ActionNone || len(w) != 0 {
		t.Fatalf("the first edit: %+v %v", d, w)
	}
	if d, w := editAt("a1", "x.go", t0.Add(time.Minute)); d.Action != agentstate.ActionNone || len(w) != 0 {
		t.Fatalf("the same agent again: %+v %v", d, w)
	}
	d, w := editAt("a2", "x.go", t0.Add(3*time.Minute))
	if d.Action != agentstate.ActionHint || !strings.Contains(d.Message, "/repo/x.go was edited by agent a1 2m0s ago") || d.Policy != "overlap" {
		t.Errorf("a2 after a1: %+v", d)
	}
	if len(w) != 2 || w[0].Agent != "a1" || !strings.Contains(w[0].Text, "a2 also edits /repo/x.go") || w[1].Agent != "a2" {
		t.Errorf("warnings %+v, want one for each agent", w)
	}
	if rs := e.Records("a1"); len(rs) != 1 || rs[0].Action != "warn" || rs[0].Policy != "overlap" {
		t.Errorf("a1's records %+v, want the warning for explain", rs)
	}
	// A read is no edit; another file is no overlap.
	if d, _ := e.DecideAll(Agent{ID: "a3", Cwd: "/repo"}, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Read", Paths: []string{"x.go"}}, t0.Add(3*time.Minute)); d.Action != agentstate.ActionNone {
		t.Errorf("a read: %+v", d)
	}
	if d, _ := editAt("a3", "y.go", t0.Add(3*time.Minute)); d.Action != agentstate.ActionNone {
		t.Errorf("another file: %+v", d)
	}
	// Outside the window, or by an agent that finished: nothing.
	dead["a2"] = true
	if d, w := editAt("a4", "x.go", t0.Add(7*time.Minute)); d.Action != agentstate.ActionNone || len(w) != 0 {
		t.Errorf("a1's edit is 6 minutes old and a2 finished: %+v %v", d, w)
	}
}

func TestOverlapBlockKeepsTheBlockedEditOut(t *testing.T) {
	e := New([]Rule{{Name: "one-writer", Use: UseOverlap, Action: agentstate.ActionBlock, Message: "someone else has this file"}})
	now := time.Unix(10000, 0)
	edit := func(id string) agentstate.Decision {
		return e.Decide(Agent{ID: id}, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Write", Paths: []string{"/r/f"}}, now)
	}
	edit("a1")
	d := edit("a2")
	if d.Action != agentstate.ActionBlock || !strings.HasPrefix(d.Message, "someone else has this file (/r/f was edited by agent a1") {
		t.Fatalf("a2: %+v", d)
	}
	// a2's edit was refused, so a3 hears of a1 only.
	d = edit("a3")
	if strings.Contains(d.Message, "a2") || !strings.Contains(d.Message, "a1") {
		t.Errorf("a3: %+v; a2's refused edit must not count", d)
	}
}

// Agents in different git worktrees of one repository edit the same file
// when the paths match inside their worktrees: they are flagged, as two
// agents in one checkout are; a file of another name is not.
func TestOverlapAcrossWorktrees(t *testing.T) {
	e := New([]Rule{{Name: "overlap", Use: UseOverlap}})
	t0 := time.Unix(10000, 0)
	wt := func(name string) Agent {
		p := "/repo/.agentgrid/worktrees/" + name
		return Agent{ID: name, Cwd: p, Worktree: p, Repo: "/repo"}
	}
	edit := func(a Agent, file string, at time.Time) agentstate.Decision {
		d, _ := e.DecideAll(a, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{file}}, at)
		return d
	}
	if d := edit(wt("w1"), "api/x.go", t0); d.Action != agentstate.ActionNone {
		t.Fatalf("the first edit: %+v", d)
	}
	if d := edit(wt("w2"), "/repo/.agentgrid/worktrees/w2/api/y.go", t0.Add(time.Second)); d.Action != agentstate.ActionNone {
		t.Errorf("another file: %+v", d)
	}
	if d := edit(wt("w2"), "/repo/.agentgrid/worktrees/w2/api/x.go", t0.Add(time.Minute)); d.Action != agentstate.ActionHint || !strings.Contains(d.Message, "/repo/api/x.go was edited by agent w1") {
		t.Errorf("w2 edits w1's file in its own worktree: %+v", d)
	}
	// The main checkout's agent edits the same file of the repository.
	if d := edit(Agent{ID: "m", Cwd: "/repo"}, "api/x.go", t0.Add(2*time.Minute)); d.Action != agentstate.ActionHint {
		t.Errorf("the main checkout's edit of the file: %+v", d)
	}
}
