package e2e

import (
	"strings"
	"testing"
	"time"
)

// A child spawned from inside agent a1 is listed under a1; the tree's
// depth limit refuses a spawn below it and says which limit; close --tree
// closes a1 and everything below it and nothing else.
func TestFamilyTreeListAndClose(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 160, 50, "[agents]\nmax_depth = 2\n")
	h.startSession("--", "sh")
	other := h.spawn("--title", "other", "--", "sleep", "1000")
	script := `c=$(agentgrid spawn --title child -- sh -c 'agentgrid spawn --title deep -- sleep 1000; echo "deep=$?"; sleep 1000'); echo "child=$c"; echo done; sleep 1000`
	a1 := h.spawn("--title", "parent", "--", "sh", "-c", script)
	h.waitFor(20*time.Second, func() bool {
		out, _ := h.client("capture", a1)
		return strings.Contains(out, "done")
	}, "a1's spawn to finish")
	agents, err := h.list()
	if err != nil {
		t.Fatal(err)
	}
	var child string
	for _, a := range agents {
		if a.Title == "child" {
			child = a.ID
		}
	}
	if child == "" {
		t.Fatalf("no child agent in %+v", agents)
	}
	// The child's own spawn is at depth 3: refused, naming the limit.
	h.waitFor(20*time.Second, func() bool {
		out, _ := h.client("capture", child)
		return strings.Contains(out, "deep=1")
	}, "the child's spawn at depth 3 to be refused")
	if out, _ := h.client("capture", child); !strings.Contains(out, "max_depth = 2") {
		t.Errorf("the refusal does not name the limit:\n%s", out)
	}

	tree := h.mustClient("list", "--tree")
	lines := strings.Split(tree, "\n")
	at := func(prefix string) int {
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), prefix) {
				return i
			}
		}
		return -1
	}
	pi, ci := at(a1+" "), at("└─ "+child+" ")
	if pi < 0 || ci != pi+1 {
		t.Errorf("list --tree does not draw %s under %s:\n%s", child, a1, tree)
	}

	// The agents overlay draws the same tree: the child on the row below
	// its parent, indented.
	h.prefix("w")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "agents (") }, "the agents overlay")
	rows := strings.Split(h.capture(), "\n")
	pr, cr := -1, -1
	for i, r := range rows {
		if strings.Contains(r, "│"+a1+" ") || strings.Contains(r, "│ "+a1+" ") {
			pr = i
		}
		if strings.Contains(r, "└─ "+child+" ") {
			cr = i
		}
	}
	if pr < 0 || cr != pr+1 {
		t.Errorf("the agents overlay does not draw %s under %s:\n%s", child, a1, strings.Join(rows, "\n"))
	}
	h.keys("Escape")

	h.mustClient("close", "--tree", a1)
	h.waitAgent(child, 15*time.Second, func(a agent) bool { return a.State == "killed" }, "the child closed with its parent")
	h.waitAgent(a1, 15*time.Second, func(a agent) bool { return a.State == "killed" }, "a1 closed")
	// Running, or idle once it has been quiet for agents.idle_after (5 s,
	// which a loaded machine reaches here): alive either way.
	if o, ok := h.agent(other); !ok || o.State != "running" && o.State != "idle" {
		t.Errorf("close --tree %s touched an unrelated agent: %+v", a1, o)
	}
}
