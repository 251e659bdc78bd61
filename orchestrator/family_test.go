package orchestrator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// The tree's limits through the socket, with each agent's own token: the
// refusal names the limit.
func TestFamilyLimits(t *testing.T) {
	e, sock := startAuthzEngine(t) // max_depth 3
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	spawnAs := func(c *control.Client, title string) (control.AgentInfo, error) {
		return c.Spawn(ctx, control.SpawnParams{Title: title, Argv: []string{"cat"}})
	}
	a1, err := spawnAs(user, "a1")
	if err != nil {
		t.Fatal(err)
	}
	c1, err := spawnAs(dialAs(t, sock, e.AgentToken(a1.ID)), "child")
	if err != nil {
		t.Fatal(err)
	}
	g, err := spawnAs(dialAs(t, sock, e.AgentToken(c1.ID)), "grandchild")
	if err != nil {
		t.Fatal(err)
	}
	_, err = spawnAs(dialAs(t, sock, e.AgentToken(g.ID)), "too deep")
	if err == nil || !strings.Contains(err.Error(), "max_depth = 3") || !strings.Contains(err.Error(), "depth 4") {
		t.Errorf("a spawn at depth 4: %v, want a refusal naming max_depth", err)
	}
	// The main view's children are at depth 1 like the user's.
	m, err := spawnAs(dialAs(t, sock, e.AgentToken(control.MainID)), "from main")
	if err != nil || m.Parent != control.MainID {
		t.Fatalf("main spawns: %+v, %v", m, err)
	}
	if got := e.depthOfID(m.ID); got != 1 {
		t.Errorf("depth of main's child = %d, want 1", got)
	}
}

func TestMaxDescendants(t *testing.T) {
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) { c.Agents.MaxDescendants = 2; c.Agents.MaxDepth = 5 })
	a1, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	c1, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: a1.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: c1.ID}); err != nil {
		t.Fatal(err)
	}
	// a1 has two live descendants (its child and grandchild): a third is refused, also from below.
	for _, parent := range []string{a1.ID, c1.ID} {
		_, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: parent})
		if err == nil || !strings.Contains(err.Error(), a1.ID+" already has 2 live descendants") || !strings.Contains(err.Error(), "max_descendants") {
			t.Errorf("a third descendant via %s: %v, want a refusal naming a1 and max_descendants", parent, err)
		}
	}
	// A finished descendant no longer counts.
	if err := e.Close(c1.ID); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, c1.ID, "finished", func(a control.AgentInfo) bool { return a.State.Finished() })
	if _, err := e.Spawn(control.SpawnRequest{Argv: []string{"cat"}, Parent: a1.ID}); err != nil {
		t.Errorf("after closing one: %v", err)
	}
}

// depthOfID is depthOf on the reconciler, for callers outside it.
func (e *Engine) depthOfID(id string) int {
	var d int
	_ = e.do(func() { d = e.depthOf(id) })
	return d
}
