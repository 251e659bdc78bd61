package ui

import (
	"slices"
	"testing"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
)

func TestAgentEntriesReusesUnchanged(t *testing.T) {
	entries := []hooks.StatusEntry{
		{Key: "a", Text: "one", Agent: "a1"},
		{Key: "b", Text: "global"},
		{Key: "c", Text: "", Agent: "a1"},
		{Key: "d", Text: "two", Agent: "a1"},
		{Key: "e", Text: "other", Agent: "a2"},
	}
	got := agentEntries(entries, "a1", nil)
	if want := []string{"one", "two"}; !slices.Equal(got, want) {
		t.Fatalf("agentEntries = %q, want %q", got, want)
	}
	again := agentEntries(entries, "a1", got)
	if &again[0] != &got[0] {
		t.Errorf("unchanged entries were copied instead of reused")
	}
	entries[3].Text = "three"
	changed := agentEntries(entries, "a1", got)
	if want := []string{"one", "three"}; !slices.Equal(changed, want) || got[1] != "two" {
		t.Errorf("after a change: got %q (prev %q), want %q with prev untouched", changed, got, want)
	}
	if none := agentEntries(entries, "a9", nil); none != nil {
		t.Errorf("an agent without entries got %q", none)
	}
	if fewer := agentEntries(entries[:1], "a1", got); !slices.Equal(fewer, []string{"one"}) {
		t.Errorf("a removed entry: got %q", fewer)
	}
}

func TestStatusCacheRendersOnlyOnChange(t *testing.T) {
	var c statusCache
	renders := 0
	render := func() line { renders++; return plain("line") }
	k := statusKey{counts: agentstate.Counts{Running: 2}, entries: []hooks.StatusEntry{{Key: "k", Text: "t"}}, focus: "f", width: 80}
	for range 3 {
		c.get(k, render)
	}
	if renders != 1 {
		t.Fatalf("rendered %d times for the same inputs, want 1", renders)
	}
	changes := []func(k *statusKey){
		func(k *statusKey) { k.counts.Idle++ },
		func(k *statusKey) { k.focus = "g" },
		func(k *statusKey) { k.width = 81 },
		func(k *statusKey) { k.lead = "x" },
		func(k *statusKey) { k.maxW = 10 },
		func(k *statusKey) { k.entries = []hooks.StatusEntry{{Key: "k", Text: "t", Stale: true}} },
		func(k *statusKey) { k.entries = []hooks.StatusEntry{{Key: "k", Text: "u"}} },
		func(k *statusKey) { k.entries = nil },
	}
	for i, change := range changes {
		k2 := k
		change(&k2)
		before := renders
		c.get(k2, render)
		if renders != before+1 {
			t.Errorf("change %d did not render the line again", i)
		}
		c.get(k2, render)
		if renders != before+1 {
			t.Errorf("change %d: the same inputs rendered again", i)
		}
	}
	// The key keeps its own copy of the entries.
	es := []hooks.StatusEntry{{Key: "k", Text: "v"}}
	k.entries = es
	c.get(k, render)
	es[0].Text = "w"
	before := renders
	c.get(statusKey{counts: k.counts, entries: []hooks.StatusEntry{{Key: "k", Text: "w"}}, focus: k.focus, width: k.width}, render)
	if renders != before+1 {
		t.Errorf("changing the caller's slice changed the cached key")
	}
}
