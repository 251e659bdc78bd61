package ui

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// testClient is an attached client over an in-memory connection: what the
// session sends it goes through a terminal emulator of its size, as a
// real terminal would show it.
type testClient struct {
	s      *control.AttachStream
	mu     sync.Mutex
	screen *vterm.Terminal
	raw    []byte // every output byte, as the client's terminal got them
	exit   string
	done   chan struct{} // the session's side returned
	closed chan struct{} // the exit frame or the end of the stream arrived
}

// attachTest attaches a client of cols x rows to h; read says whether the
// client reads what the session sends (a client that does not is stuck).
func attachTest(t *testing.T, h *Hub, cols, rows int, readOnly, read bool) *testClient {
	t.Helper()
	srv, cli := net.Pipe()
	c := &testClient{s: control.NewAttachStream(cli, nil), screen: vterm.New(cols, rows), done: make(chan struct{}), closed: make(chan struct{})}
	go func() {
		defer close(c.done)
		h.Attach(context.Background(), control.NewAttachStream(srv, nil), control.AttachParams{Cols: cols, Rows: rows, ReadOnly: readOnly, Env: []string{"TERM=xterm-256color"}})
	}()
	t.Cleanup(func() { _ = cli.Close(); _ = srv.Close() })
	if read {
		go func() {
			defer close(c.closed)
			var buf []byte
			for {
				typ, p, err := c.s.ReadFrame(buf)
				if err != nil {
					return
				}
				buf = p[:0]
				c.mu.Lock()
				switch typ {
				case control.FrameOutput:
					_, _ = c.screen.Write(p)
					c.raw = append(c.raw, p...)
				case control.FrameExit:
					c.exit = string(p)
				}
				c.mu.Unlock()
				if typ == control.FrameExit {
					return
				}
			}
		}()
	}
	return c
}

func (c *testClient) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.screen.Text()
}

func (c *testClient) exitReason() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

func (c *testClient) typeIn(t *testing.T, s string) {
	t.Helper()
	if err := c.s.WriteFrame(control.FrameInput, []byte(s)); err != nil {
		t.Fatal(err)
	}
}

// startHubEngine runs the real engine with cat in the main view and one
// agent that prints marker, served by a hub.
func startHubEngine(t testing.TB, marker string) (*Hub, *orchestrator.Engine, control.AgentInfo) {
	t.Helper()
	cfg := config.Default()
	h := NewHub(cfg, testStyles())
	eng, err := orchestrator.New(cfg, orchestrator.Options{Session: "hub", StateDir: t.TempDir(), Attach: h})
	if err != nil {
		t.Fatal(err)
	}
	h.Bind(eng)
	if err := eng.Start(context.Background(), []string{"/bin/cat"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = eng.Shutdown(ctx)
		h.Release()
	})
	eng.Resize(120, 39)
	a, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/sh", "-c", "echo " + marker + "; exec cat"}})
	if err != nil {
		t.Fatal(err)
	}
	return h, eng, a
}

// boxLines reports whether screen shows the top and bottom border of a
// pane whose label starts with "┌─ "+number, both whole: a corner at each
// end, on rows within the screen.
func boxWhole(screen string, number string) bool {
	lines := strings.Split(screen, "\n")
	for y, l := range lines {
		i := strings.Index(l, "┌─ "+number+" ")
		if i < 0 {
			continue
		}
		x := len([]rune(l[:i]))
		top := []rune(l)
		end := x
		for end < len(top) && top[end] != '┐' {
			end++
		}
		if end == len(top) {
			return false
		}
		for _, b := range lines[y+1:] {
			r := []rune(b)
			if len(r) > end && r[x] == '└' && r[end] == '┘' {
				return true
			}
		}
	}
	return false
}

// TestHubClientsEachAtTheirSize attaches a client at 120x40 and a
// read-only one at 70x20: each shows both panes whole at its own size
// (laid out again, not a crop of the other's frame), and the engine's
// size stays the read-write client's.
func TestHubClientsEachAtTheirSize(t *testing.T) {
	h, eng, a := startHubEngine(t, "hub-marker-1")
	big := attachTest(t, h, 120, 40, false, true)
	small := attachTest(t, h, 70, 20, true, true)
	for _, c := range []*testClient{big, small} {
		waitFor(t, "both panes whole with the agent's marker", func() bool {
			s := c.text()
			return strings.Contains(s, "hub-marker-1") && boxWhole(s, "0") && boxWhole(s, "1")
		})
	}
	if s := eng.Snapshot(); s.Cols != 120 || s.Rows != 39 {
		t.Errorf("the engine's area is %dx%d, want the read-write client's 120x39", s.Cols, s.Rows)
	}
	for _, l := range strings.Split(small.text(), "\n") {
		if n := len([]rune(l)); n > 70 {
			t.Fatalf("a row of the 70-column client is %d cells: %q", n, l)
		}
	}
	if got := h.Clients(); got != 2 {
		t.Errorf("Clients() = %d, want 2", got)
	}
	_ = a
}

// TestHubReadOnlyReachesNoPane: what a read-only client types, pastes or
// asks for (a new agent, closing one, quitting) never reaches the session,
// while the same keys from a read-write client do.
func TestHubReadOnlyReachesNoPane(t *testing.T) {
	h, eng, a := startHubEngine(t, "hub-marker-2")
	rw := attachTest(t, h, 120, 40, false, true)
	ro := attachTest(t, h, 100, 30, true, true)
	waitFor(t, "the read-only client's first frame", func() bool { return strings.Contains(ro.text(), "hub-marker-2") })
	// Typed text, a paste, close (ctrl+b x), a new agent (ctrl+b c), quit
	// (ctrl+b q), then the help overlay: once it shows, every key before
	// it was handled.
	ro.typeIn(t, "ro-typed\r")
	ro.typeIn(t, "\x1b[200~ro-pasted\x1b[201~")
	ro.typeIn(t, "\x02x\x02c\x02q\x02?")
	waitFor(t, "the read-only client's help overlay", func() bool { return strings.Contains(ro.text(), "detach") })
	rw.typeIn(t, "rw-typed\r")
	waitFor(t, "the read-write client's keys in the main view", func() bool {
		out, _ := eng.Capture(control.MainID, false, 0)
		return strings.Contains(out, "rw-typed")
	})
	for _, id := range []string{control.MainID, a.ID} {
		out, err := eng.Capture(id, false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "ro-") {
			t.Errorf("the read-only client's input reached %s:\n%s", id, out)
		}
	}
	if n := len(eng.List()); n != 1 {
		t.Errorf("%d agents after the read-only client's ctrl+b c and x, want 1", n)
	}
	select {
	case <-h.Quit():
		t.Fatal("a read-only client quit the session")
	default:
	}
}

// TestHubSlowClientSkipsFrames: a client that reads nothing holds no one
// up: the engine and another client go on while 4000 lines are printed,
// and the stuck client is still attached.
func TestHubSlowClientSkipsFrames(t *testing.T) {
	h, eng, _ := startHubEngine(t, "hub-marker-3")
	stuck := attachTest(t, h, 120, 40, false, false)
	fine := attachTest(t, h, 120, 40, false, true)
	waitFor(t, "the reading client's first frame", func() bool { return strings.Contains(fine.text(), "hub-marker-3") })
	if _, err := eng.Spawn(control.SpawnRequest{Argv: []string{"/bin/sh", "-c", "i=0; while [ $i -lt 4000 ]; do echo flood-$i; i=$((i+1)); done; echo flood-done"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the flood's last line in the reading client", func() bool { return strings.Contains(fine.text(), "flood-done") })
	select {
	case <-stuck.done:
		t.Fatal("the stuck client was dropped")
	default:
	}
}

// TestHubDetachAndQuit: a detach ends only that client (its terminal's
// modes undone, then the exit reason); quitting from a client ends every
// client with the reason "quit".
func TestHubDetachAndQuit(t *testing.T) {
	h, eng, a := startHubEngine(t, "hub-marker-4")
	one := attachTest(t, h, 120, 40, false, true)
	two := attachTest(t, h, 80, 24, false, true)
	waitFor(t, "both clients' first frames", func() bool {
		return strings.Contains(one.text(), "hub-marker-4") && strings.Contains(two.text(), "hub-marker-4")
	})
	one.typeIn(t, "\x02d")
	select {
	case <-one.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the detached client got no exit frame")
	}
	if r := one.exitReason(); r != ExitDetached {
		t.Fatalf("exit reason %q, want %q", r, ExitDetached)
	}
	if in, ok := eng.Agent(a.ID); !ok || in.State.Finished() {
		t.Fatalf("the agent after a detach: %+v", in)
	}
	waitFor(t, "one client left", func() bool { return h.Clients() == 1 })
	// The agent runs: quitting asks first.
	two.typeIn(t, "\x02q")
	waitFor(t, "the quit question", func() bool { return strings.Contains(two.text(), "Quit agentgrid?") })
	two.typeIn(t, "y")
	select {
	case <-h.Quit():
	case <-time.After(10 * time.Second):
		t.Fatal("quitting from a client did not quit the session")
	}
	// The session server's way out: the programs, the engine, then the
	// clients' exit messages.
	h.Close()
	_ = eng.Shutdown(context.Background())
	select {
	case <-two.closed:
		t.Fatal("the client was let go before the session was gone")
	default:
	}
	h.Release()
	<-two.closed
	if r := two.exitReason(); r != ExitQuit {
		t.Fatalf("exit reason %q, want %q", r, ExitQuit)
	}
}

// TestLocalizeLaysOutEveryPane: a snapshot laid out again at another size
// keeps the panes and their order, puts every box inside the area without
// overlaps, and a zoom shows one pane over the whole area.
func TestLocalizeLaysOutEveryPane(t *testing.T) {
	area := layout.Rect{W: 200, H: 50}
	lo := layout.Options{Name: layout.MainVertical, HasMain: true, Zoom: -1}
	plan := layout.Compute(area, 3, lo)
	s := orchestrator.Snapshot{Cols: 200, Rows: 50, Layout: layout.MainVertical, Focus: "a2",
		Main: &orchestrator.PaneView{Agent: control.AgentInfo{ID: control.MainID}, Box: plan.Main}}
	for i, id := range []string{"a1", "a2", "a3"} {
		s.Panes = append(s.Panes, orchestrator.PaneView{Agent: control.AgentInfo{ID: id}, Box: plan.Slots[i], Number: i + 1})
	}
	got := localize(s, 100, 40, "a2", false, 0, 10, 3)
	if len(got.Panes) != 3 || got.Main.Box.Empty() {
		t.Fatalf("localized: %d panes, main %+v", len(got.Panes), got.Main.Box)
	}
	boxes := []layout.Rect{got.Main.Box}
	for i, p := range got.Panes {
		if p.Agent.ID != s.Panes[i].Agent.ID {
			t.Fatalf("pane %d is %s, want %s", i, p.Agent.ID, s.Panes[i].Agent.ID)
		}
		boxes = append(boxes, p.Box)
	}
	for i, b := range boxes {
		if b.X < 0 || b.Y < 0 || b.X+b.W > 100 || b.Y+b.H > 40 {
			t.Errorf("box %d %+v leaves the 100x40 area", i, b)
		}
		for j := i + 1; j < len(boxes); j++ {
			c := boxes[j]
			if b.X < c.X+c.W && c.X < b.X+b.W && b.Y < c.Y+c.H && c.Y < b.Y+b.H {
				t.Errorf("boxes %d %+v and %d %+v overlap", i, b, j, c)
			}
		}
	}
	if s.Main.Box != plan.Main {
		t.Error("localize changed the engine's snapshot")
	}
	z := localize(s, 100, 40, "a2", true, 0, 10, 3)
	if len(z.Panes) != 1 || z.Panes[0].Agent.ID != "a2" || z.Panes[0].Box != (layout.Rect{W: 100, H: 40}) || !z.Main.Box.Empty() || len(z.Hidden) != 2 {
		t.Fatalf("zoomed on a2: panes %+v main %+v hidden %d", z.Panes, z.Main.Box, len(z.Hidden))
	}
}

// TestHubThemePerClient: each attached terminal has its own theme: prefix
// T in one client switches that client only, and a read-only client may
// switch its own.
func TestHubThemePerClient(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	h, _, _ := startHubEngine(t, "hub-marker-theme")
	rw := attachTest(t, h, 120, 40, false, true)
	ro := attachTest(t, h, 100, 30, true, true)
	waitFor(t, "both clients' first frames", func() bool {
		return strings.Contains(rw.text(), "hub-marker-theme") && strings.Contains(ro.text(), "hub-marker-theme")
	})
	rw.typeIn(t, "\x02T")
	waitFor(t, "the theme's name in the client that switched", func() bool { return strings.Contains(rw.text(), "theme: light") })
	ro.typeIn(t, "\x02?")
	waitFor(t, "the read-only client's help", func() bool { return strings.Contains(ro.text(), "next colour theme") })
	if strings.Contains(ro.text(), "theme: light") {
		t.Error("one client's theme switch shows in another")
	}
	ro.typeIn(t, "q")
	waitFor(t, "the read-only client's help closed", func() bool { return !strings.Contains(ro.text(), "next colour theme") })
	ro.typeIn(t, "\x02T\x02T")
	waitFor(t, "the read-only client's own switch", func() bool { return strings.Contains(ro.text(), "theme: solarized") })
}

// TestHubSmallClientShowsTheCursorRows: in a client smaller than the one
// the panes follow, a pane's screen is taller than its box; the box shows
// the rows at the cursor (a shell's last lines), not the top of the screen.
func TestHubSmallClientShowsTheCursorRows(t *testing.T) {
	h, _, _ := startHubEngine(t, "hub-marker-5")
	big := attachTest(t, h, 120, 40, false, true)
	waitFor(t, "the big client's first frame", func() bool { return strings.Contains(big.text(), "hub-marker-5") })
	big.typeIn(t, "\x02c")
	waitFor(t, "the new-agent prompt", func() bool { return strings.Contains(big.text(), "command") })
	big.typeIn(t, "sh -c 'i=1; while [ $i -le 30 ]; do echo row-$i; i=$((i+1)); done; printf last-row; exec cat'\r")
	waitFor(t, "the agent's last row in the big client", func() bool { return strings.Contains(big.text(), "last-row") })
	small := attachTest(t, h, 100, 24, true, true)
	waitFor(t, "the agent's last row in the small client", func() bool {
		s := small.text()
		return strings.Contains(s, "last-row") && strings.Contains(s, "row-30") && !strings.Contains(s, "row-1 ")
	})
}

// TestHubClientResize: a client's resize frame lays its screen out again
// at the new size; the engine's size follows the read-write client that
// typed last, and a read-only client's size never moves it.
func TestHubClientResize(t *testing.T) {
	h, eng, _ := startHubEngine(t, "hub-marker-6")
	rw := attachTest(t, h, 120, 40, false, true)
	ro := attachTest(t, h, 70, 20, true, true)
	waitFor(t, "the read-only client's first frame", func() bool { return boxWhole(ro.text(), "0") && boxWhole(ro.text(), "1") })
	ro.mu.Lock()
	ro.screen.Resize(100, 30)
	ro.mu.Unlock()
	if err := ro.s.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the read-only client at 100x30", func() bool {
		lines := strings.Split(ro.text(), "\n")
		return len(lines) >= 30 && strings.HasSuffix(strings.TrimRight(lines[0], " "), "┐") && len([]rune(strings.TrimRight(lines[0], " "))) == 100 &&
			boxWhole(ro.text(), "0") && boxWhole(ro.text(), "1")
	})
	if s := eng.Snapshot(); s.Cols != 120 || s.Rows != 39 {
		t.Fatalf("a read-only client's resize moved the engine to %dx%d", s.Cols, s.Rows)
	}
	// A second read-write client types: the engine takes its size.
	rw2 := attachTest(t, h, 90, 25, false, true)
	waitFor(t, "the second client's first frame", func() bool { return strings.Contains(rw2.text(), "hub-marker-6") })
	rw2.typeIn(t, "x")
	waitFor(t, "the engine at the typing client's size", func() bool { s := eng.Snapshot(); return s.Cols == 90 && s.Rows == 24 })
	rw.typeIn(t, "y")
	waitFor(t, "the engine back at the first client's size", func() bool { s := eng.Snapshot(); return s.Cols == 120 && s.Rows == 39 })
}

// statusFocus is the focused pane's title at the end of a client's status
// line.
func statusFocus(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if i := strings.LastIndex(last, "│"); i >= 0 {
		return strings.TrimSpace(last[i+len("│"):])
	}
	return ""
}

// TestHubFocusPerClient: two read-write clients each keep their own focus
// and zoom; the engine's are those of the one that typed last.
func TestHubFocusPerClient(t *testing.T) {
	h, eng, a := startHubEngine(t, "hub-marker-7")
	one := attachTest(t, h, 120, 40, false, true)
	two := attachTest(t, h, 120, 40, false, true)
	waitFor(t, "both clients on the main view", func() bool {
		return statusFocus(one.text()) == "cat" && statusFocus(two.text()) == "cat" && strings.Contains(two.text(), "hub-marker-7")
	})
	one.typeIn(t, "\x02"+strings.TrimPrefix(a.ID, "a"))
	waitFor(t, "the first client on the agent", func() bool { return statusFocus(one.text()) == "sh" && eng.Snapshot().Focus == a.ID })
	two.typeIn(t, "\x02z")
	waitFor(t, "the second client zoomed on the main view", func() bool {
		s := eng.Snapshot()
		return s.Focus == control.MainID && s.Zoomed && statusFocus(two.text()) == "cat" && !boxWhole(two.text(), "1")
	})
	if statusFocus(one.text()) != "sh" || !boxWhole(one.text(), "1") || !boxWhole(one.text(), "0") {
		t.Fatalf("the first client's view changed with the second's keys:\n%s", one.text())
	}
	one.typeIn(t, "\x02")
	waitFor(t, "the engine back on the first client's view", func() bool {
		s := eng.Snapshot()
		return s.Focus == a.ID && !s.Zoomed
	})
}

// TestHubClientGetsColoursItsTerminalHas: an attached client's frames are
// written for its own terminal, told by the environment it attached with:
// a 256-colour xterm gets 256-colour codes, a truecolor one 24-bit codes.
// (The session's side writes to a socket, which is no terminal: before,
// every client got 24-bit colour whatever its terminal was.)
func TestHubClientGetsColoursItsTerminalHas(t *testing.T) {
	h, _, _ := startHubEngine(t, "hub-colour-1")
	c := attachTest(t, h, 100, 30, false, true)
	waitFor(t, "the first frame with the agent's marker", func() bool { return strings.Contains(c.text(), "hub-colour-1") })
	c.mu.Lock()
	raw := string(c.raw)
	c.mu.Unlock()
	if strings.Contains(raw, "38;2;") || strings.Contains(raw, "48;2;") || !strings.Contains(raw, "38;5;") {
		t.Fatalf("a TERM=xterm-256color client got 24-bit colour codes or no 256-colour ones:\n%q", raw)
	}
}
