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
	claude := limitKey{Kind: "claude", Provider: "anthropic"}
	l := newLimiter(config.Limits{Default: 2, Kinds: map[string]int{"claude": 1}})
	if l.blocked(claude) != "" {
		t.Fatal("blocked with nothing running")
	}
	l.acquire(claude)
	if why := l.blocked(claude); why != "waiting for a slot: kind claude 1/1 (limits.kinds.claude = 1)" {
		t.Fatalf("why = %q", why)
	}
	if l.blocked(limitKey{}) != "" {
		t.Fatal("another kind is blocked by claude's limit")
	}
	l.acquire(limitKey{})
	if why := l.blocked(limitKey{}); !strings.Contains(why, "limits.default = 2") {
		t.Fatalf("why = %q", why)
	}
	l.release(claude)
	l.release(claude) // an extra release never goes negative
	if l.blocked(claude) != "" || l.used.All != 1 || l.used.ByProvider["anthropic"] != 0 {
		t.Fatalf("after release: %+v", l.used)
	}
	unlimited := newLimiter(config.Limits{})
	for range 1000 {
		unlimited.acquire(limitKey{Kind: "x", Model: "m", Provider: "p"})
	}
	if unlimited.blocked(limitKey{Kind: "x", Model: "m", Provider: "p"}) != "" {
		t.Fatal("no limit configured but blocked")
	}
}

// TestLimitLookup: every matching limit holds; they are looked up model,
// provider, kind, then default, and the reason names the first full one.
func TestLimitLookup(t *testing.T) {
	limits := config.Limits{
		Default:   10,
		Kinds:     map[string]int{"claude": 4, "codex": 1},
		Providers: map[string]int{"anthropic": 3, "openrouter": 1},
		Models:    map[string]int{"claude-opus-4-5": 2, "gpt-4.1": 1},
	}
	opus := limitKey{Kind: "claude", Model: "claude-opus-4-5", Provider: "anthropic"}
	haiku := limitKey{Kind: "claude", Model: "claude-haiku-4-5", Provider: "anthropic"}
	cases := []struct {
		name    string
		running []limitKey
		k       limitKey
		want    string
	}{
		{"nothing running", nil, opus, ""},
		{"the model's limit is full", []limitKey{opus, opus}, opus,
			`waiting for a slot: model claude-opus-4-5 2/2 (limits.models.claude-opus-4-5 = 2)`},
		{"another model of the provider is free", []limitKey{opus, opus}, haiku, ""},
		{"the provider's limit counts every model", []limitKey{opus, opus, haiku}, haiku,
			"waiting for a slot: provider anthropic 3/3 (limits.providers.anthropic = 3)"},
		{"model before provider when both are full", []limitKey{opus, opus, haiku}, opus,
			`waiting for a slot: model claude-opus-4-5 2/2 (limits.models.claude-opus-4-5 = 2)`},
		{"a kind's limit without a model", []limitKey{{Kind: "codex", Provider: "openai"}}, limitKey{Kind: "codex", Provider: "openai"},
			"waiting for a slot: kind codex 1/1 (limits.kinds.codex = 1)"},
		{"a model with a dot in its name", []limitKey{{Kind: "codex", Model: "gpt-4.1", Provider: "openai"}},
			limitKey{Kind: "aider", Model: "gpt-4.1", Provider: "openai"},
			`waiting for a slot: model gpt-4.1 1/1 (limits.models."gpt-4.1" = 1)`},
		{"a provider from an opencode model", []limitKey{{Kind: "opencode", Model: "openrouter/x", Provider: "openrouter"}},
			limitKey{Kind: "opencode", Model: "openrouter/y", Provider: "openrouter"},
			"waiting for a slot: provider openrouter 1/1 (limits.providers.openrouter = 1)"},
		{"the default holds last", []limitKey{{Kind: "a"}, {Kind: "b"}, {Kind: "c"}, {Kind: "d"}, {Kind: "e"}, {Kind: "f"}, {Kind: "g"}, {Kind: "h"}, {Kind: "i"}, {Kind: "j"}},
			limitKey{Kind: "k"}, "waiting for a slot: agents 10/10 (limits.default = 10)"},
		{"an unknown provider has no limit", []limitKey{{Kind: "shell"}}, limitKey{Kind: "shell"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := newLimiter(limits)
			for _, k := range c.running {
				l.acquire(k)
			}
			if got := l.blocked(c.k); got != c.want {
				t.Errorf("blocked(%+v)\n got %q\nwant %q", c.k, got, c.want)
			}
		})
	}
}
