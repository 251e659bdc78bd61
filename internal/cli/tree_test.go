package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

func TestTreeOrderAndDescendants(t *testing.T) {
	agents := []control.AgentInfo{
		{ID: "a1"}, {ID: "a2", Parent: "main"}, {ID: "a3", Parent: "a1"}, {ID: "a4", Parent: "a3"},
		{ID: "a5", Parent: "a1"}, {ID: "a6", Parent: "a9"}, // a9 is not listed (another agent's view)
		{ID: "a7", Parent: "a8"}, {ID: "a8", Parent: "a7"}, // a cycle (never made by the engine) still lists
	}
	ordered, depth := control.TreeOrder(agents)
	var got []string
	for i, a := range ordered {
		got = append(got, strings.Repeat(">", depth[i])+a.ID)
	}
	want := []string{"a1", ">a3", ">>a4", ">a5", "a2", "a6", "a7", ">a8"}
	if !slices.Equal(got, want) {
		t.Errorf("tree order %v, want %v", got, want)
	}
	if d := descendantsOf(agents, "a1"); !slices.Equal(d, []string{"a5", "a4", "a3"}) {
		t.Errorf("descendants of a1 = %v, want deepest last-first [a5 a4 a3]", d)
	}
	if d := descendantsOf(agents, "a2"); len(d) != 0 {
		t.Errorf("descendants of a leaf = %v", d)
	}
	var b bytes.Buffer
	if err := writeAgentTree(&b, agents, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  └─ a4") || !strings.Contains(b.String(), "└─ a3") {
		t.Errorf("tree drawing:\n%s", b.String())
	}
}
