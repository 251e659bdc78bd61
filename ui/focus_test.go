package ui

import (
	"slices"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/control"
)

// Keys that arrive in the same input batch as a focus change, before the
// frame pump delivers a new snapshot, must reach the newly focused pane.
func TestKeysRightAfterFocusChangeReachNewPane(t *testing.T) {
	cases := []struct {
		name  string
		focus []string // keys that move focus from main
		to    string   // "" = whichever agent the engine was asked to focus
	}{
		{"prefix number", []string{"ctrl+b", "1"}, "a1"},
		{"prefix arrow", []string{"ctrl+b", "right"}, ""},
		{"prefix vi key", []string{"ctrl+b", "l"}, ""},
		{"alt arrow", []string{"alt+right"}, ""},
		{"number then number", []string{"ctrl+b", "1", "ctrl+b", "2"}, "a2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, eng := newTestModelConfig(t, testSnapshot(), altArrowsConfig())
			for _, k := range tc.focus {
				m.Update(keyOf(t, k))
			}
			to := tc.to
			if to == "" {
				to = eng.Snapshot().Focus
			}
			if to == control.MainID {
				t.Fatalf("%q did not move focus away from main", tc.focus)
			}
			m.Update(keyOf(t, "x"))
			m.Update(keyOf(t, "y"))
			want := []string{to + ":x", to + ":y"}
			if got := eng.takeInputs(); !slices.Equal(got, want) {
				t.Errorf("keys after %q went to %q, want %q", tc.focus, got, want)
			}
			// The frame drawn next shows the new focus too.
			if p := m.focusedPane(); p == nil || p.Agent.ID != to {
				t.Errorf("focused pane after %q is not %s", tc.focus, to)
			}
		})
	}
}

func TestKeysRightAfterClickReachClickedPane(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	m.Update(tea.MouseClickMsg{X: 50, Y: 15, Button: tea.MouseLeft}) // inside a2
	m.Update(keyOf(t, "z"))
	if got := eng.takeInputs(); !slices.Equal(got, []string{"a2:z"}) {
		t.Errorf("key after clicking a2 went to %q, want a2", got)
	}
}

func TestKeysRightAfterFocusBackToMain(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	for _, k := range []string{"ctrl+b", "2", "q", "ctrl+b", "0", "w"} {
		m.Update(keyOf(t, k))
	}
	if got, want := eng.takeInputs(), []string{"a2:q", "main:w"}; !slices.Equal(got, want) {
		t.Errorf("inputs = %q, want %q", got, want)
	}
}
