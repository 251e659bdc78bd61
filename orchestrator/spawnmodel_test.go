package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// TestSpawnKindWithModel: a spawn of a kind with a model runs the kind's
// CLI with the model the way it takes one, as one argv element before the
// prompt; the agent carries the model and its provider, the model's limit
// counts it, and explain names it. A model that begins with "-", a kind
// whose program takes no model, a category with a model, a model without
// a kind and OpenCode without provider/ are refused, each saying why.
func TestSpawnKindWithModel(t *testing.T) {
	claude := fakeCLI(t, "claude", printsArgs)
	marker := filepath.Join(t.TempDir(), "pwned")
	model := "x;touch${IFS}" + marker
	e := newTestEngine(t, nil, nil, func(c *config.Config) {
		c.Kinds["cl"] = config.Kind{Command: []string{claude}, PromptArgs: []string{"{prompt}"}}
		c.Kinds["oc"] = config.Kind{Command: []string{fakeCLI(t, "opencode", printsArgs)}}
		c.Categories = map[string]config.Category{"quick": {Kind: "cl", Model: "claude-haiku-4-5"}}
		c.Limits.Models = map[string]int{"opus": 1}
	})
	e.Resize(120, 20)
	in, err := e.Spawn(control.SpawnRequest{Kind: "cl", Model: "opus", Prompt: "review it"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{claude, "--model", "opus", "review it"}
	if !slices.Equal(in.Argv, want) || in.Model != "opus" || in.Provider != "anthropic" {
		t.Fatalf("spawned argv %q, model %q, provider %q; want argv %q, model opus, provider anthropic", in.Argv, in.Model, in.Provider, want)
	}
	pollUntil(t, 15*time.Second, "the arguments on screen", func() bool {
		s, _ := e.Capture(in.ID, false, 0)
		return strings.Contains(s, ">--model<\n>opus<\n>review it<")
	})
	if got := resolution(t, e, in.ID); got != "kind cl, model opus" {
		t.Errorf("resolution = %q, want the kind and its model", got)
	}
	// [limits.models] opus = 1: a second opus waits for the first.
	second, err := e.Spawn(control.SpawnRequest{Kind: "cl", Model: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(second.QueueReason, "opus") {
		t.Errorf("a second opus agent is not held by the model's limit: %+v", second)
	}

	odd, err := e.Spawn(control.SpawnRequest{Kind: "cl", Model: model})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(odd.Argv, []string{claude, "--model", model}) {
		t.Errorf("argv %q, want the model as one element", odd.Argv)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the model name was run by a shell")
	}

	for _, c := range []struct {
		req  control.SpawnRequest
		want string
	}{
		{control.SpawnRequest{Kind: "cl", Model: "--dangerously-skip-permissions"}, `cannot start kind cl with model "--dangerously-skip-permissions": begins with "-", which the CLI would read as a flag`},
		{control.SpawnRequest{Kind: "shell", Model: "opus"}, "kind shell runs a program agentgrid passes no model to"},
		{control.SpawnRequest{Kind: "oc", Model: "gpt-5"}, `opencode takes provider/model, e.g. "anthropic/gpt-5"`},
		{control.SpawnRequest{Category: "quick", Model: "opus"}, `category "quick" picks its own model`},
		{control.SpawnRequest{Argv: []string{"sh"}, Model: "opus"}, "a model needs a kind"},
	} {
		_, err := e.Spawn(c.req)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("spawn %+v: error %v, want one saying %q", c.req, err, c.want)
		}
	}
}
