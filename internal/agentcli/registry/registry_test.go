package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli"
)

// TestRegistryAgrees checks that what the registry says about each CLI
// agrees with itself: names are unique, a preset wires hooks exactly when
// the CLI has hook events, and every event a CLI's wiring subscribes to is
// one its adapter maps. testdata/events/NAME.json holds a minimal payload
// for each subscribed event, and nothing else: each goes through Adapt and
// must come back without an error, naming the event, and saying something
// (an event the adapter does not know comes back empty).
func TestRegistryAgrees(t *testing.T) {
	names := map[string]bool{}
	var order []string
	for _, c := range All() {
		n := c.Name()
		if n == "" || names[n] {
			t.Errorf("CLI name %q is empty or listed twice", n)
		}
		names[n] = true
		order = append(order, n)
		got, ok := Lookup(n)
		if !ok || got.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, got, ok)
		}
		p := c.Preset()
		events := c.Events()
		if p.Hooks != (events != nil) {
			t.Errorf("%s: the preset wires hooks = %v, but the CLI has %d hook events", n, p.Hooks, len(events))
		}
		if _, isAdapter := Adapter(n); isAdapter != (events != nil) || slices.Contains(Adapters(), n) != isAdapter {
			t.Errorf("%s: Adapter and Adapters disagree with its events", n)
		}
		if events == nil {
			checkPlain(t, c)
			continue
		}
		checkEvents(t, c)
	}
	if !sort.StringsAreSorted(order) {
		t.Errorf("CLIs are not sorted by name: %v", order)
	}
}

// checkEvents feeds every subscribed event of c through its adapter.
func checkEvents(t *testing.T, c agentcli.CLI) {
	t.Helper()
	n := c.Name()
	b, err := os.ReadFile(filepath.Join("testdata", "events", n+".json"))
	if err != nil {
		t.Errorf("%s subscribes to hook events but has no minimal payloads: %v", n, err)
		return
	}
	var payloads map[string]json.RawMessage
	if err := json.Unmarshal(b, &payloads); err != nil {
		t.Fatalf("%s payloads: %v", n, err)
	}
	seen := map[string]bool{}
	for _, ev := range c.Events() {
		if seen[ev] {
			t.Errorf("%s subscribes to %s twice", n, ev)
		}
		seen[ev] = true
		payload, ok := payloads[ev]
		if !ok {
			t.Errorf("%s subscribes to %s, which has no minimal payload in testdata/events/%s.json", n, ev, n)
			continue
		}
		sig, err := Adapt(n, payload)
		switch {
		case err != nil:
			t.Errorf("%s %s: the adapter refused its own event: %v", n, ev, err)
		case sig.Event != ev:
			t.Errorf("%s %s: the adapter read the event as %q", n, ev, sig.Event)
		case sig.Empty():
			t.Errorf("%s %s: the adapter does not map an event its wiring subscribes to", n, ev)
		}
	}
	for ev := range payloads {
		if !seen[ev] {
			t.Errorf("testdata/events/%s.json has a payload for %s, which the wiring does not subscribe to", n, ev)
		}
	}
}

// checkPlain checks that a CLI without hooks wires nothing and adapts nothing.
func checkPlain(t *testing.T, c agentcli.CLI) {
	t.Helper()
	w := agentcli.Wiring{StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Hooks: true, MCP: true}
	argv, env, err := c.Wire(w, []string{"x", "y"}, []string{"A=1"})
	if err != nil || !slices.Equal(argv, []string{"x", "y"}) || !slices.Equal(env, []string{"A=1"}) {
		t.Errorf("%s: a CLI without hooks wired %q %q %v", c.Name(), argv, env, err)
	}
	if _, err := Adapt(c.Name(), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "unknown agent CLI") {
		t.Errorf("%s: Adapt of a CLI without hooks = %v", c.Name(), err)
	}
	if c.Preset().MCP {
		t.Errorf("%s: a CLI without wiring asks for MCP by default", c.Name())
	}
}

// TestModelArgs: each CLI takes a model its own way, as separate argv
// elements, and says who serves it.
func TestModelArgs(t *testing.T) {
	for _, c := range []struct {
		cli, model, provider string
		args                 []string
	}{
		{"claude", "claude-haiku-4-5", "anthropic", []string{"--model", "claude-haiku-4-5"}},
		{"codex", "gpt-5", "openai", []string{"--model", "gpt-5"}},
		{"gemini", "gemini-2.5-pro", "google", []string{"-m", "gemini-2.5-pro"}},
		{"opencode", "anthropic/claude-haiku-4-5", "anthropic", []string{"--model", "anthropic/claude-haiku-4-5"}},
		{"aider", "openrouter/x", "openrouter", []string{"--model", "openrouter/x"}},
		{"shell", "x", "", nil},
	} {
		cli, ok := Lookup(c.cli)
		if !ok {
			t.Fatalf("no CLI %s", c.cli)
		}
		if got := cli.ModelArgs(c.model); !slices.Equal(got, c.args) {
			t.Errorf("%s ModelArgs(%q) = %q, want %q", c.cli, c.model, got, c.args)
		}
		if got := cli.Provider(c.model); got != c.provider {
			t.Errorf("%s Provider(%q) = %q, want %q", c.cli, c.model, got, c.provider)
		}
		if cli.ModelArgs("") != nil {
			t.Errorf("%s passes an empty model", c.cli)
		}
		if cli.Preset().Description == "" {
			t.Errorf("%s has no description", c.cli)
		}
	}
}
