package orchestrator

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// fakeCLI writes an executable named name (so that agentgrid takes it for
// that agent CLI) running script, and returns its path.
func fakeCLI(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// printsArgs is a script that prints each argument on its own line
// between > and <, then waits.
const printsArgs = `for a in "$@"; do printf '>%s<\n' "$a"; done; exec cat`

func resolution(t *testing.T, e *Engine, id string) string {
	t.Helper()
	ex, err := e.Explain(id)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range ex.Resolution {
		lines = append(lines, s.Text)
	}
	return strings.Join(lines, "\n")
}

// TestCategorySpawnPassesModelAndPrefix: a category runs its kind with
// the model the way that CLI takes one and the prompt behind its prefix;
// a model with shell metacharacters is one argv element, never run.
func TestCategorySpawnPassesModelAndPrefix(t *testing.T) {
	claude := fakeCLI(t, "claude", printsArgs)
	marker := filepath.Join(t.TempDir(), "pwned")
	model := "x$(touch${IFS}" + marker + ");touch${IFS}" + marker
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["cl"] = config.Kind{Command: []string{claude}, PromptArgs: []string{"{prompt}"}}
		c.Categories = map[string]config.Category{
			"quick": {Kind: "cl", Model: "claude-haiku-4-5", PromptPrefix: "Small change. "},
			"odd":   {Kind: "cl", Model: model},
		}
	})
	e.Resize(120, 20)
	in, err := e.Spawn(control.SpawnRequest{Category: "quick", Prompt: "fix the typo"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{claude, "--model", "claude-haiku-4-5", "Small change. fix the typo"}
	if !slices.Equal(in.Argv, want) || in.Kind != "cl" || in.Category != "quick" || in.Model != "claude-haiku-4-5" || in.Provider != "anthropic" {
		t.Fatalf("spawned %+v\nwant argv %q", in, want)
	}
	pollUntil(t, 15*time.Second, "the arguments on screen", func() bool {
		s, _ := e.Capture(in.ID, false, 0)
		return strings.Contains(s, ">--model<\n>claude-haiku-4-5<\n>Small change. fix the typo<")
	})
	if got := resolution(t, e, in.ID); got != "category quick → cl, model claude-haiku-4-5" {
		t.Errorf("resolution = %q", got)
	}

	odd, err := e.Spawn(control.SpawnRequest{Category: "odd"})
	if err != nil {
		t.Fatal(err)
	}
	pollUntil(t, 15*time.Second, "the odd model on screen", func() bool {
		s, _ := e.Capture(odd.ID, false, 0)
		return strings.Contains(strings.ReplaceAll(s, "\n", ""), ">"+model+"<")
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the model name was run by a shell")
	}

	for _, bad := range []control.SpawnRequest{
		{Category: "quick", Kind: "cl"},
		{Category: "nope"},
		{Category: "quick", Argv: []string{"sh"}},
	} {
		if _, err := e.Spawn(bad); err == nil {
			t.Errorf("spawn %+v was accepted", bad)
		}
	}
}

// TestCategoryFallsBackAfterStartFailure: a command that does not exist
// moves the agent, same id, to the next fallback.
func TestCategoryFallsBackAfterStartFailure(t *testing.T) {
	claude := fakeCLI(t, "claude", printsArgs)
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["broken"] = config.Kind{Command: []string{"/nonexistent/agentgrid/claude"}, PromptArgs: []string{"{prompt}"}}
		c.Kinds["cl"] = config.Kind{Command: []string{claude}, PromptArgs: []string{"{prompt}"}}
		c.Categories = map[string]config.Category{
			"quick": {Kind: "broken", Model: "claude-haiku-4-5", PromptPrefix: "Quick: ", Fallback: []string{"cl"}},
		}
	})
	e.Resize(120, 20)
	in, err := e.Spawn(control.SpawnRequest{Category: "quick", Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	got := waitAgent(t, e, in.ID, "running its fallback", func(a control.AgentInfo) bool {
		return a.State == agentstate.Running && a.Kind == "cl"
	})
	if want := []string{claude, "Quick: go"}; !slices.Equal(got.Argv, want) || got.Model != "" {
		t.Fatalf("fallback argv %q model %q, want %q and none", got.Argv, got.Model, want)
	}
	res := resolution(t, e, in.ID)
	if !strings.HasPrefix(res, "category quick → broken, model claude-haiku-4-5\nfell back to cl: could not start: ") {
		t.Fatalf("resolution = %q", res)
	}
	if l := e.List(); len(l) != 1 {
		t.Fatalf("the fallback made a new agent: %+v", l)
	}
}

// TestRetryThenFallBackOnRateLimit: a process that fails with a rate
// limit on its screen is tried again per its kind's policy, then the
// category falls back; a plain failure moves nowhere.
func TestRetryThenFallBackOnRateLimit(t *testing.T) {
	count := filepath.Join(t.TempDir(), "tries")
	limited := fakeCLI(t, "claude", `echo x >> `+count+`; echo "API Error: 429 rate limit reached"; exit 1`)
	failing := fakeCLI(t, "codex", `echo "error: no such file"; exit 1`)
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["rl"] = config.Kind{Command: []string{limited}, RetryOn: []string{"rate_limit"}, MaxTries: 3,
			Backoff: config.Duration{Duration: 20 * time.Millisecond}}
		c.Kinds["plain"] = config.Kind{Command: []string{failing}, RetryOn: []string{"rate_limit"}, MaxTries: 3}
		c.Kinds["ok"] = config.Kind{Command: []string{"cat"}}
		c.Categories = map[string]config.Category{
			"busy":  {Kind: "rl", Fallback: []string{"ok"}},
			"other": {Kind: "plain", Fallback: []string{"ok"}},
		}
	})
	e.Resize(120, 20)
	in, err := e.Spawn(control.SpawnRequest{Category: "busy"})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, in.ID, "running its fallback", func(a control.AgentInfo) bool {
		return a.State == agentstate.Running && a.Kind == "ok"
	})
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 3 {
		t.Fatalf("tries of the rate-limited route: %q, want 3", b)
	}
	want := "category busy → rl\n" +
		"try 1 of rl ended: rate_limit; try 2 of 3 in 20ms\n" +
		"try 2 of rl ended: rate_limit; try 3 of 3 in 40ms\n" +
		"fell back to ok: rate_limit"
	if got := resolution(t, e, in.ID); got != want {
		t.Fatalf("resolution:\n%s\nwant:\n%s", got, want)
	}

	other, err := e.Spawn(control.SpawnRequest{Category: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if got := waitFinished(t, e, other.ID); got.State != agentstate.Failed || got.Kind != "plain" {
		t.Fatalf("a plain failure moved on: %+v", got)
	}
}

// TestHookRateLimitFallsBack: a rate limit the CLI reports through its
// hook (Claude's StopFailure) ends the process and falls back.
func TestHookRateLimitFallsBack(t *testing.T) {
	claude := fakeCLI(t, "claude", printsArgs)
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["cl"] = config.Kind{Command: []string{claude}}
		c.Kinds["ok"] = config.Kind{Command: []string{"cat"}}
		c.Categories = map[string]config.Category{"quick": {Kind: "cl", Model: "claude-opus-4-5", Fallback: []string{"ok"}}}
	})
	e.Resize(120, 20)
	in, err := e.Spawn(control.SpawnRequest{Category: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	first := waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	sig := agentstate.Signal{Event: "StopFailure", State: agentstate.Idle, Why: "turn failed: 429", Failure: "rate_limit"}
	if err := e.Signal(in.ID, sig, "claude"); err != nil {
		t.Fatal(err)
	}
	got := waitAgent(t, e, in.ID, "running its fallback", func(a control.AgentInfo) bool {
		return a.State == agentstate.Running && a.Kind == "ok"
	})
	if got.PID == first.PID || !groupGone(first.PID) {
		t.Fatalf("the rate-limited process still runs: %d", first.PID)
	}
	if res := resolution(t, e, in.ID); !strings.HasSuffix(res, "the CLI reported rate_limit; ending it to move on\nfell back to ok: rate_limit") {
		t.Fatalf("resolution = %q", res)
	}
	// With nowhere left to go, a reported rate limit changes nothing.
	if err := e.Signal(in.ID, sig, "claude"); err != nil {
		t.Fatal(err)
	}
	if a, _ := e.Agent(in.ID); a.PID != got.PID || a.State.Finished() {
		t.Fatalf("the last route was ended: %+v", a)
	}
}

// TestQueueReasonNamesTheLimit: agents beyond a model's or a provider's
// limit wait, and the reason names the limit that holds them.
func TestQueueReasonNamesTheLimit(t *testing.T) {
	claude := fakeCLI(t, "claude", printsArgs)
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["cl"] = config.Kind{Command: []string{claude}}
		c.Categories = map[string]config.Category{
			"deep":  {Kind: "cl", Model: "claude-opus-4-5"},
			"quick": {Kind: "cl", Model: "claude-haiku-4-5"},
		}
		c.Limits.Models = map[string]int{"claude-opus-4-5": 1}
		c.Limits.Providers = map[string]int{"anthropic": 2}
	})
	e.Resize(120, 20)
	mk := func(cat string) string {
		in, err := e.Spawn(control.SpawnRequest{Category: cat})
		if err != nil {
			t.Fatal(err)
		}
		return in.ID
	}
	d1, d2 := mk("deep"), mk("deep")
	waitAgent(t, e, d1, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	a, _ := e.Agent(d2)
	if a.State != agentstate.Pending || a.QueueReason != "waiting for a slot: model claude-opus-4-5 1/1 (limits.models.claude-opus-4-5 = 1)" {
		t.Fatalf("d2 = %+v", a)
	}
	q1, q2 := mk("quick"), mk("quick")
	waitAgent(t, e, q1, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	a, _ = e.Agent(q2)
	if a.State != agentstate.Pending || a.Why != "waiting for a slot: provider anthropic 2/2 (limits.providers.anthropic = 2)" {
		t.Fatalf("q2 = %+v", a)
	}
	kinds := e.Kinds()
	var deep control.KindInfo
	for _, k := range kinds.Kinds {
		if k.Name == "deep" {
			deep = k
		}
	}
	wantLimits := []control.LimitUsage{{Name: "limits.models.claude-opus-4-5", Used: 1, Max: 1}, {Name: "limits.providers.anthropic", Used: 2, Max: 2}}
	if !deep.Category || deep.Running != 1 || deep.Queued != 1 || !slices.Equal(deep.Limits, wantLimits) {
		t.Fatalf("kinds: deep = %+v", deep)
	}
	// Closing the running opus agent hands its slots on: d2 starts.
	if err := e.Close(d1); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, d2, "started after the release", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
}

// TestCategoryGrantsAreWhatEveryRouteAllows: an agent spawned by category
// holds only the grants and MCP tools that every kind it may fall back to
// allows, so a fallback is never a way to more rights.
func TestCategoryGrantsAreWhatEveryRouteAllows(t *testing.T) {
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["lead"] = config.Kind{Command: []string{"cat"}, Grants: []string{"all"}}
		c.Kinds["reader"] = config.Kind{Command: []string{"cat"}, Grants: []string{"read", "wait"}, MCPTools: []string{"list_agents", "wait_agent"}}
		c.Kinds["worker"] = config.Kind{Command: []string{"cat"}, MCPTools: []string{"list_agents", "set_status"}}
		c.Categories = map[string]config.Category{
			"up":   {Kind: "reader", Fallback: []string{"lead"}},
			"down": {Kind: "lead", Fallback: []string{"reader"}},
			"mix":  {Kind: "reader", Fallback: []string{"worker"}},
		}
	})
	e.Resize(120, 20)
	cases := []struct {
		cat    string
		grants []string
		tools  []string // nil: every tool
	}{
		{"up", []string{"read", "wait"}, []string{"list_agents", "wait_agent"}},
		{"down", []string{"read", "wait"}, []string{"list_agents", "wait_agent"}},
		{"mix", nil, []string{"list_agents"}},
	}
	for _, c := range cases {
		in, err := e.Spawn(control.SpawnRequest{Category: c.cat})
		if err != nil {
			t.Fatal(err)
		}
		e.auth.mu.RLock()
		p := e.auth.byID[in.ID]
		grants, tools := slices.Sorted(maps.Keys(p.grants)), p.tools
		e.auth.mu.RUnlock()
		if !slices.Equal(grants, c.grants) && (len(grants) != 0 || len(c.grants) != 0) {
			t.Errorf("%s: grants %v, want %v", c.cat, grants, c.grants)
		}
		if got := slices.Sorted(maps.Keys(tools)); !slices.Equal(got, c.tools) {
			t.Errorf("%s: tools %v, want %v", c.cat, got, c.tools)
		}
	}
}

// TestCloseDuringBackoff: a retry waits for its backoff on the engine's
// clock; an agent closed while it waits is closed like one that has not
// started, and its retry never runs.
func TestCloseDuringBackoff(t *testing.T) {
	dir := t.TempDir()
	script := func(name string) string {
		return fakeCLI(t, "claude", `echo x >> `+filepath.Join(dir, name)+`; echo "529 overloaded"; exit 1`)
	}
	tries := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.Count(string(b), "x")
	}
	clock := newFakeClock()
	e := newClockedEngine(t, nil, clock, nil, func(c *config.Config) {
		for _, name := range []string{"closed", "kept"} {
			c.Kinds[name] = config.Kind{Command: []string{script(name)}, RetryOn: []string{"overloaded"}, MaxTries: 2,
				Backoff: config.Duration{Duration: time.Hour}}
		}
	})
	e.Resize(120, 20)
	var ids []string
	for _, kind := range []string{"closed", "kept"} {
		in, err := e.Spawn(control.SpawnRequest{Kind: kind})
		if err != nil {
			t.Fatal(err)
		}
		a := waitAgent(t, e, in.ID, "waiting for its retry", func(a control.AgentInfo) bool {
			return a.State == agentstate.Pending && a.Try == 2
		})
		if a.Why != "retrying after overloaded: try 2 of 2 in 1h0m0s" {
			t.Fatalf("why = %q", a.Why)
		}
		ids = append(ids, in.ID)
	}
	if err := e.Close(ids[0]); err != nil {
		t.Fatal(err)
	}
	got := waitFinished(t, e, ids[0])
	if got.State != agentstate.Killed || got.Why != "closed before it started" {
		t.Fatalf("closed during the backoff: %+v", got)
	}
	if tries("kept") != 1 {
		t.Fatal("the retry ran before its backoff")
	}
	clock.Advance(time.Hour)
	kept := waitFinished(t, e, ids[1])
	if kept.State != agentstate.Failed || tries("kept") != 2 {
		t.Fatalf("the kept agent after its backoff: %+v, %d tries", kept, tries("kept"))
	}
	if tries("closed") != 1 {
		t.Fatalf("the closed agent was tried %d times", tries("closed"))
	}
	if got, _ := e.Agent(ids[0]); got.State != agentstate.Killed {
		t.Fatalf("after the backoff: %+v", got)
	}
}
