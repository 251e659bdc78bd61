package config

import (
	"slices"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
)

// The built-in kinds are the registry's presets, one per CLI and no more,
// and each names its own adapter exactly when the CLI has hooks.
// (TestExampleIsDefault keeps the commented example file equal to them.)
func TestDefaultKindsAreTheRegistry(t *testing.T) {
	kinds := DefaultKinds()
	if len(kinds) != len(registry.All()) {
		t.Errorf("%d default kinds for %d registry CLIs", len(kinds), len(registry.All()))
	}
	for _, c := range registry.All() {
		k, ok := kinds[c.Name()]
		if !ok {
			t.Errorf("registry CLI %s has no default kind", c.Name())
			continue
		}
		p := c.Preset()
		wantHooks := ""
		if p.Hooks {
			wantHooks = c.Name()
		}
		if !slices.Equal(k.Command, p.Command) || !slices.Equal(k.PromptArgs, p.PromptArgs) || k.MCP != p.MCP || k.Hooks != wantHooks {
			t.Errorf("kind %s = %+v, registry preset %+v", c.Name(), k, p)
		}
		if _, ok := registry.Adapter(k.Hooks); k.Hooks != "" && !ok {
			t.Errorf("kind %s names hooks %q, which the registry has no adapter for", c.Name(), k.Hooks)
		}
	}
	// Changing a returned kind must not change the registry's preset.
	kinds["claude"].Command[0] = "changed"
	if DefaultKinds()["claude"].Command[0] != "claude" {
		t.Error("DefaultKinds shares its slices with the registry")
	}
	if d := Validate(Default()); len(d) != 0 {
		t.Errorf("the default config does not validate: %v", d)
	}
}
