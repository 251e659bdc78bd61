package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// The engine calls that act on the grid wait for its reconciler; Update
// must not wait with them. With the engine held busy, each key's Update
// returns at once, and the result arrives as a message once it is free.
func TestEngineCallsDoNotBlockUpdate(t *testing.T) {
	cases := []struct {
		name  string
		setup func(snap *orchestrator.Snapshot)
		keys  []string
		paste string // pasted after the keys, then enter
		call  string // the engine call that waits
		check func(t *testing.T, m *Model)
	}{
		{name: "zoom", keys: []string{"ctrl+b", "z"}, call: "zoom"},
		{name: "resize", call: "resize 100x29"},
		{name: "layout", keys: []string{"ctrl+b", "space"}, call: "layout"},
		{
			name:  "close a finished agent",
			setup: func(s *orchestrator.Snapshot) { s.Panes[1].Agent.State = agentstate.Done; s.Focus = "a2" },
			keys:  []string{"ctrl+b", "x"}, call: "close a2",
		},
		{
			name: "spawn", keys: []string{"ctrl+b", "c"}, paste: "htop", call: `spawn ["htop"]`,
			check: func(t *testing.T, m *Model) {
				if m.overlay != nil {
					t.Errorf("the prompt stays open after the spawn succeeded: %T", m.overlay)
				}
			},
		},
		{
			name: "show",
			setup: func(s *orchestrator.Snapshot) {
				q := s.Agents[0]
				q.ID, q.Visible, q.Number, q.QueuePos, q.State = "a3", false, 0, 1, "pending"
				s.Agents = append(s.Agents, q)
			},
			keys: []string{"ctrl+b", "w", "down", "down", "enter"}, call: "show a3",
			check: func(t *testing.T, m *Model) {
				if m.overlay != nil || m.snap.Focus != "a3" {
					t.Errorf("after show: overlay %T, focus %q", m.overlay, m.snap.Focus)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := testSnapshot()
			if tc.setup != nil {
				tc.setup(&snap)
			}
			m, eng := newTestModel(t, snap)
			slow := make(chan struct{})
			released := false
			release := func() {
				if !released {
					released = true
					close(slow)
				}
			}
			t.Cleanup(release)
			eng.mu.Lock()
			eng.slow = slow
			eng.mu.Unlock()
			var msgs []tea.Msg
			for _, k := range tc.keys {
				msgs = append(msgs, keyOf(t, k))
			}
			if tc.keys == nil {
				msgs = append(msgs, teaWindowSize(100, 30))
			}
			if tc.paste != "" {
				msgs = append(msgs, tea.PasteMsg{Content: tc.paste}, keyOf(t, "enter"))
			}
			updated := make(chan []tea.Cmd, 1)
			go func() {
				var cmds []tea.Cmd
				for _, msg := range msgs {
					_, cmd := m.Update(msg)
					cmds = append(cmds, cmd)
				}
				updated <- cmds
			}()
			var cmds []tea.Cmd
			select {
			case cmds = <-updated:
			case <-time.After(10 * time.Second):
				t.Fatal("Update waited for a busy engine")
			}
			if got := eng.lastCall(); got == tc.call {
				t.Fatalf("%s ran although the engine is busy", got)
			}
			release()
			for _, cmd := range cmds {
				settle(m, cmd)
			}
			if got := eng.lastCall(); got != tc.call {
				t.Fatalf("engine call = %q, want %q", got, tc.call)
			}
			if tc.check != nil {
				tc.check(t, m)
			}
		})
	}
}

// A failed spawn keeps the prompt open with the engine's reason; a failed
// close shows in the status line.
func TestEngineCallErrorsAreShown(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	eng.spawnErr = errFake("queue is full (3 agents waiting)")
	press(t, m, "ctrl+b", "c")
	m.Update(tea.PasteMsg{Content: "htop"})
	press(t, m, "enter")
	p, ok := m.overlay.(*promptOverlay)
	if !ok || p.err != "queue is full (3 agents waiting)" || p.pending {
		t.Fatalf("after a failed spawn: overlay %T %+v", m.overlay, p)
	}
	afterEngine(m, errFake("no agent \"a7\" in this session"))
	found := false
	for _, e := range eng.status.Entries() {
		found = found || e.Text == "no agent \"a7\" in this session"
	}
	if !found {
		t.Fatalf("status entries = %+v", eng.status.Entries())
	}
}

type errFake string

func (e errFake) Error() string { return string(e) }

// Resizes in a storm run concurrently and may reach the engine out of
// order; the engine still ends at the terminal's last size.
func TestResizeCommandsEndAtTheLastSize(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	_, first := m.Update(teaWindowSize(100, 30))
	_, last := m.Update(teaWindowSize(60, 20))
	// The later command reaches the engine first, then the earlier one.
	settle(m, last)
	settle(m, first)
	if got := eng.lastCall(); got != "resize 60x19" {
		t.Fatalf("the engine ended at %q, want resize 60x19 (calls %q)", got, eng.calls)
	}
}
