package orchestrator

import (
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
)

func TestDeferredQueue(t *testing.T) {
	q := newDeferredQueue(3)
	for i, id := range []string{"a1", "a2", "a3"} {
		if err := q.Push(queueEntry{ID: id, Seq: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	err := q.Push(queueEntry{ID: "a4", Seq: 4})
	if err == nil || err.Error() != "queue is full (3 agents waiting); close some agents or raise agents.max_queued" {
		t.Fatalf("push past the bound: %v", err)
	}
	// Agents moved off screen are never refused and go first, oldest first.
	q.PushFront(queueEntry{ID: "a9", Seq: 9}, queueEntry{ID: "a0", Seq: 0})
	if got := ids(q); got != "a0 a9 a1 a2 a3" {
		t.Fatalf("order = %s", got)
	}
	if !q.Remove("a9") || q.Remove("a9") {
		t.Fatal("remove")
	}
	q.SetReason("a2", "grid full")
	if e := q.Lookup("a2"); e == nil || e.pos != 3 || e.Reason != "grid full" {
		t.Fatalf("lookup = %+v", e)
	}
	if q.Lookup("zz") != nil {
		t.Fatal("lookup of a missing id")
	}
	if newDeferredQueue(0).max != 100 {
		t.Fatal("a zero bound must mean the default")
	}
}

func ids(q *deferredQueue) string {
	var out []string
	for _, e := range q.Entries() {
		out = append(out, e.ID)
	}
	return strings.Join(out, " ")
}

func TestLimiter(t *testing.T) {
	l := newLimiter(config.Limits{Default: 2, Kinds: map[string]int{"claude": 1}})
	if l.blocked("claude") != "" {
		t.Fatal("blocked with nothing running")
	}
	l.acquire("claude")
	if why := l.blocked("claude"); !strings.Contains(why, "limits.kinds.claude = 1") {
		t.Fatalf("why = %q", why)
	}
	if l.blocked("") != "" {
		t.Fatal("another kind is blocked by claude's limit")
	}
	l.acquire("")
	if why := l.blocked(""); !strings.Contains(why, "limits.default = 2") {
		t.Fatalf("why = %q", why)
	}
	l.release("claude")
	l.release("claude") // an extra release never goes negative
	if l.blocked("claude") != "" || l.all != 1 {
		t.Fatalf("after release: %+v", l)
	}
	unlimited := newLimiter(config.Limits{})
	for range 1000 {
		unlimited.acquire("x")
	}
	if unlimited.blocked("x") != "" {
		t.Fatal("no limit configured but blocked")
	}
}
