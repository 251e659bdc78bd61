package orchestrator

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// paneText is the text of a snapshot pane's terminal, for the engine's own
// tests (the UI cannot reach the terminal).
func paneText(p PaneReader) string { return p.(readOnly).t.Text() }

// TestSnapshotPanesAreReadOnly: a snapshot hands out each pane's terminal
// only to read: its frame comes through, but nothing outside the engine can
// write to the terminal through it, nor get the terminal back.
func TestSnapshotPanesAreReadOnly(t *testing.T) {
	e := newTestEngine(t, nil, []string{"sh", "-c", "echo main-ready; exec cat"}, nil)
	e.Resize(80, 24)
	in := spawn(t, e, "sh", "-c", "echo agent-ready; exec cat")
	waitAgent(t, e, in.ID, "running", func(a control.AgentInfo) bool { return a.State == agentstate.Running })
	var snap Snapshot
	pollUntil(t, 10*time.Second, "both panes' output", func() bool {
		snap = e.Snapshot()
		return snap.Main != nil && len(snap.Panes) == 1 && snap.Main.Term != nil && snap.Panes[0].Term != nil &&
			strings.Contains(paneText(snap.Main.Term), "main-ready") && strings.Contains(paneText(snap.Panes[0].Term), "agent-ready")
	})
	for _, p := range []PaneView{*snap.Main, snap.Panes[0]} {
		var f vterm.Frame
		p.Term.Frame(&f, 0)
		if cols, rows := p.Term.Size(); f.Seq == 0 || f.Cols != cols || f.Rows != rows || cols != p.Box.W-2 {
			t.Errorf("pane %s: frame %dx%d seq %d, terminal %dx%d, box %+v", p.Agent.ID, f.Cols, f.Rows, f.Seq, cols, rows, p.Box)
		}
		if _, ok := any(p.Term).(io.Writer); ok {
			t.Errorf("pane %s: the snapshot's terminal can be written to (%T)", p.Agent.ID, p.Term)
		}
		if _, ok := any(p.Term).(*vterm.Terminal); ok {
			t.Errorf("pane %s: the snapshot hands out the live *vterm.Terminal", p.Agent.ID)
		}
	}
}

var readerSink PaneReader

// TestReaderCostsNoAllocation: wrapping a pane's terminal for a snapshot
// allocates nothing, so a snapshot costs no more than one that carried the
// terminal itself.
func TestReaderCostsNoAllocation(t *testing.T) {
	term := vterm.New(10, 3)
	if n := testing.AllocsPerRun(100, func() { readerSink = reader(term) }); n != 0 {
		t.Errorf("reader allocates %v times per call, want 0", n)
	}
}
