package ui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// fakeEngine records what the UI asks of the engine.
type fakeEngine struct {
	mu       sync.Mutex
	snap     orchestrator.Snapshot
	changed  chan struct{}
	status   *hooks.StatusStore
	calls    []string
	inputs   []string // "id:bytes" for Input
	sends    []string // "id:bytes" for Send
	spawnErr error
	showErr  error
	// slow, when set, holds the calls that act on the grid (spawn, close,
	// show, zoom, layout, resize) until it is closed, like an engine that
	// is busy.
	slow chan struct{}
	// panicOnSnapshot makes Snapshot panic, to test crash recovery.
	panicOnSnapshot bool
	// reqs are the panes' requests PaneRequests hands out.
	reqs []orchestrator.PaneRequest
}

func newFakeEngine(snap orchestrator.Snapshot, now func() time.Time) *fakeEngine {
	return &fakeEngine{snap: snap, changed: make(chan struct{}, 1), status: hooks.NewStatusStore(now)}
}

func (f *fakeEngine) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// busy waits while the engine is held (slow).
func (f *fakeEngine) busy() {
	f.mu.Lock()
	slow := f.slow
	f.mu.Unlock()
	if slow != nil {
		<-slow
	}
}

func (f *fakeEngine) Snapshot() orchestrator.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.panicOnSnapshot {
		panic("snapshot exploded")
	}
	return f.snap
}
func (f *fakeEngine) Changed() <-chan struct{}       { return f.changed }
func (f *fakeEngine) FocusOutput() <-chan struct{}   { return nil }
func (f *fakeEngine) AwaitedOutput() <-chan struct{} { return nil }
func (f *fakeEngine) StateChanged() <-chan struct{}  { return nil }
func (f *fakeEngine) Input(id string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, id+":"+string(data))
	return nil
}
func (f *fakeEngine) Send(id string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends = append(f.sends, id+":"+string(data))
	return nil
}
func (f *fakeEngine) Focus(id string) {
	f.record("focus %s", id)
	f.mu.Lock()
	f.snap.Focus = id
	f.mu.Unlock()
}
func (f *fakeEngine) ToggleZoom()  { f.busy(); f.record("zoom") }
func (f *fakeEngine) CycleLayout() { f.busy(); f.record("layout") }
func (f *fakeEngine) Show(id string) error {
	f.busy()
	f.record("show %s", id)
	if f.showErr != nil {
		return f.showErr
	}
	// Like the engine's: a shown agent is focused.
	f.mu.Lock()
	f.snap.Focus = id
	f.mu.Unlock()
	return nil
}
func (f *fakeEngine) Close(id string) error      { f.busy(); f.record("close %s", id); return nil }
func (f *fakeEngine) Resize(cols, rows int)      { f.busy(); f.record("resize %dx%d", cols, rows) }
func (f *fakeEngine) Status() *hooks.StatusStore { return f.status }
func (f *fakeEngine) PaneRequests(after uint64) ([]orchestrator.PaneRequest, uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []orchestrator.PaneRequest
	seq := after
	for _, q := range f.reqs {
		if q.Seq > after {
			out = append(out, q)
		}
		seq = max(seq, q.Seq)
	}
	return out, seq
}
func (f *fakeEngine) Spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	f.busy()
	f.record("spawn %q", req.Argv)
	return control.AgentInfo{ID: "a9"}, f.spawnErr
}

func (f *fakeEngine) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

func (f *fakeEngine) takeInputs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	in := f.inputs
	f.inputs = nil
	return in
}

// testClock is a fixed clock.
var testNow = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func testClock() time.Time { return testNow }

// paneAt builds a pane view with a real terminal sized to the box content.
func testPane(id string, number int, state agentstate.State, box layout.Rect, text string) orchestrator.PaneView {
	c := box.Inset(1)
	t := vterm.New(c.W, c.H, vterm.WithScrollback(100))
	_, _ = t.Write([]byte(strings.ReplaceAll(text, "\n", "\r\n")))
	since := testNow.Add(-12 * time.Second)
	started := testNow.Add(-time.Minute)
	return orchestrator.PaneView{
		Agent: control.AgentInfo{ID: id, Title: id + "-title", State: state, Since: since,
			Created: started, Started: &started, Visible: true, Number: number},
		Box: box, Term: t, Number: number,
	}
}

// testSnapshot is an 80x24 session: main on the left, a1 and a2 stacked on
// the right; main has focus.
func testSnapshot() orchestrator.Snapshot {
	main := testPane(control.MainID, 0, agentstate.Running, layout.Rect{X: 0, Y: 0, W: 40, H: 23}, "$ ")
	a1 := testPane("a1", 1, agentstate.Running, layout.Rect{X: 40, Y: 0, W: 40, H: 11}, "building\n")
	a2 := testPane("a2", 2, agentstate.Idle, layout.Rect{X: 40, Y: 11, W: 40, H: 12}, "done?\n")
	return orchestrator.Snapshot{
		Cols: 80, Rows: 23, Layout: layout.MainVertical, Focus: control.MainID,
		Main: &main, Panes: []orchestrator.PaneView{a1, a2},
		Agents: []control.AgentInfo{a1.Agent, a2.Agent},
		Counts: agentstate.Counts{Running: 1, Idle: 1},
	}
}

// newTestModel is a model over a fake engine, sized 80x24 and with one
// frame taken.
func newTestModel(t *testing.T, snap orchestrator.Snapshot) (*Model, *fakeEngine) {
	t.Helper()
	return newTestModelConfig(t, snap, testConfig())
}

// newTestModelConfig is newTestModel with a config of the test's own.
func newTestModelConfig(t *testing.T, snap orchestrator.Snapshot, cfg config.Config) (*Model, *fakeEngine) {
	t.Helper()
	eng := newFakeEngine(snap, testClock)
	m := newModel(eng, cfg, testStyles(), testClock)
	m.tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd { return nil }
	// prefix R records here, not in the package's folder.
	m.recordTo = filepath.Join(t.TempDir(), "test.cast")
	m.Update(teaWindowSize(80, 24))
	m.View()
	eng.mu.Lock()
	eng.calls = nil
	eng.mu.Unlock()
	return m, eng
}

var (
	testStylesOnce sync.Once
	testStylesVal  themes.Styles
)

// testStyles is the built-in dark theme, resolved once.
func testStyles() themes.Styles {
	testStylesOnce.Do(func() {
		p, ok := themes.Builtin("dark")
		if !ok {
			panic("no dark theme")
		}
		testStylesVal = p.Styles()
	})
	return testStylesVal
}

// testConfig is the default config.
func testConfig() config.Config { return config.Default() }

// altArrowsConfig is the default config with alt+arrow focus moves on.
func altArrowsConfig() config.Config {
	cfg := config.Default()
	cfg.Keys.AltArrowsFocus = true
	return cfg
}

// viewText brings the model's frame up to date and returns it as styled
// text, rows joined by "\n".
func viewText(m *Model) string {
	m.View()
	return m.final.String()
}

// hasStyled reports whether text appears on a row of cv in style st.
func hasStyled(cv *termrt.Canvas, text string, st termrt.Style) bool {
	want := termrt.AppendText(nil, text, st)
	for y := 0; y < cv.H; y++ {
		r := cv.Row(y)
		for x := 0; x+len(want) <= len(r); x++ {
			if slices.Equal(r[x:x+len(want)], want) {
				return true
			}
		}
	}
	return false
}
