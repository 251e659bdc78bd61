package panes

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentgrid/agentgrid/internal/timeslice"
)

// TestAgentsStartWithTheDefaultSlice: in a session whose threads asked for
// short time slices, an agent does not inherit one.
func TestAgentsStartWithTheDefaultSlice(t *testing.T) {
	if err := timeslice.Prompt(); err != nil {
		t.Skipf("no time slices here: %v", err)
	}
	if a, err := unix.SchedGetAttr(0, 0); err != nil || a.Runtime != timeslice.Short {
		t.Skip("this kernel keeps no time slice per thread (Linux 6.12 or later does)")
	}
	p, err := Start(PTYSpawner{}, StartSpec{Argv: []string{"sleep", "30"}, Cols: 80, Rows: 24}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Kill(100 * time.Millisecond) })
	a, err := unix.SchedGetAttr(p.Pid(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Runtime == timeslice.Short {
		t.Fatalf("the agent started with the session's short slice (%d ns)", a.Runtime)
	}
}
