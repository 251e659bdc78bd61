package orchestrator

import (
	"strconv"
	"testing"
	"time"
)

// TestPaneNumbersStayForTheAgentsLife closes the second of four panes: the
// others keep their numbers (a4 stays 4, as in tmux), in the snapshot's
// panes and in what agentgrid list shows alike.
func TestPaneNumbersStayForTheAgentsLife(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(160, 48)
	var ids []string
	for range 4 {
		ids = append(ids, spawn(t, e, "sh", "-c", "sleep 60").ID)
	}
	numbers := func() map[string]int {
		got := map[string]int{}
		snap := e.Snapshot()
		for _, p := range snap.Panes {
			got[p.Agent.ID] = p.Number
			if p.Agent.Number != p.Number {
				t.Errorf("%s: pane number %d, agent number %d", p.Agent.ID, p.Number, p.Agent.Number)
			}
		}
		return got
	}
	pollUntil(t, 10*time.Second, "four panes", func() bool { return len(numbers()) == 4 })
	if err := e.Close(ids[1]); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 10*time.Second, ids[1]+" gone from the grid", func() bool { return len(numbers()) == 3 })
	got := numbers()
	for _, id := range []string{ids[0], ids[2], ids[3]} {
		if want, _ := strconv.Atoi(id[1:]); got[id] != want {
			t.Errorf("after closing %s: %s is pane %d, want %d (all: %v)", ids[1], id, got[id], want, got)
		}
	}
}
