package orchestrator

import (
	"strconv"
	"strings"
	"testing"
)

// select-layout and resize-pane from a pane keep the user's layout unless
// [tmux] follow_layout is on; then they change agentgrid's layout and the
// main view's share, as seen through the shim's own list-panes geometry.
func TestTmuxFollowLayout(t *testing.T) {
	s := startShimSession(t, nil, nil)
	layoutNow := func() (name string, mainSize int) {
		if err := s.e.do(func() { name, mainSize = s.e.st.layoutName, s.e.st.mainSize }); err != nil {
			t.Fatal(err)
		}
		return
	}
	mainWidth := func() int {
		w, err := strconv.Atoi(strings.TrimSpace(s.ok("main", "display-message", "-p", "-t", "%0", "#{pane_width}")))
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	spawn(t, s.e, "sleep", "600") // a second pane, so that the main view has a share
	before := mainWidth()
	s.ok("main", "select-layout", "tiled")
	s.ok("main", "resize-pane", "-t", "%0", "-x", "30%")
	if name, size := layoutNow(); name != "main-vertical" || size != 0 || mainWidth() != before {
		t.Fatalf("with follow_layout off the layout changed: %s %d, main width %d -> %d", name, size, before, mainWidth())
	}
	// Unknown targets fail as in tmux, whatever the setting.
	if _, errOut, code := s.tmux("main", "select-layout", "-t", "%77", "tiled"); code != 1 || !strings.Contains(errOut, "can't find pane") {
		t.Errorf("select-layout on a missing pane: exit %d %q", code, errOut)
	}

	if err := s.e.do(func() { s.e.cfg.Tmux.FollowLayout = true }); err != nil {
		t.Fatal(err)
	}
	s.ok("main", "resize-pane", "-t", "%0", "-x", "30%")
	if _, size := layoutNow(); size != 30 {
		t.Fatalf("resize-pane -x 30%% of the main view: main size %d", size)
	}
	if w := mainWidth(); w >= before || w < 200*30/100-4 || w > 200*30/100+4 {
		t.Errorf("main width after -x 30%%: %d (was %d, window 200)", w, before)
	}
	s.ok("main", "resize-pane", "-t", "%0", "-x", "120") // cells: 60%
	if _, size := layoutNow(); size != 60 {
		t.Errorf("resize-pane -x 120 of 200 columns: main size %d, want 60", size)
	}
	s.ok("main", "select-layout", "main-horizontal-mirrored")
	if name, _ := layoutNow(); name != "main-horizontal" {
		t.Errorf("select-layout main-horizontal-mirrored: %s", name)
	}
	s.ok("main", "select-layout", "-n")
	if name, _ := layoutNow(); name != "tiled" {
		t.Errorf("select-layout -n after main-horizontal: %s", name)
	}
	s.ok("main", "select-layout", "-p")
	if name, _ := layoutNow(); name != "main-horizontal" {
		t.Errorf("select-layout -p: %s", name)
	}
	// OMO's sequence: the main pane's share as a window option, then the layout.
	s.ok("main", "set-window-option", "main-pane-width", "40%")
	s.ok("main", "select-layout", "main-vertical")
	if name, size := layoutNow(); name != "main-vertical" || size != 40 {
		t.Errorf("main-pane-width 40%% then select-layout main-vertical: %s %d", name, size)
	}
	s.ok("main", "select-layout", "main-horizontal")
	// A layout string tmux would parse stays a hint.
	s.ok("main", "select-layout", "bb62,200x50,0,0{100x50,0,0,0,99x50,101,0,1}")
	if name, _ := layoutNow(); name != "main-horizontal" {
		t.Errorf("a layout string changed the layout to %s", name)
	}
}
