// Package ui is agentgrid's terminal front end: a Bubble Tea model per
// attached client that routes the client's input to the engine and the
// panes and composes each frame from the panes' cached rows, their borders,
// the status line and the overlays; the Hub that runs one such model for
// each client of the session server; and the attaching terminal's side
// (AttachTerminal).
//
// Panes are not Bubble Tea models. Their reader goroutines feed the
// terminals and poke the engine; a frame pump turns those pokes into at most
// ui.fps frame messages a second, and nothing runs while nothing changes.
//
// The hub drives each model with agentgrid's own event loop rather than a
// tea.Program: it sets the terminal up itself, decodes input into the same
// tea messages, and writes each new view at once as the rows that changed,
// so there is no render ticker waking an idle session or delaying a frame.
package ui

import (
	"image/color"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/agentgrid/agentgrid/themes"
	"github.com/agentgrid/agentgrid/ui/termrt"
)

// engine is what the UI asks of the orchestrator; *orchestrator.Engine
// satisfies it and tests substitute a fake that records the calls. Focus,
// ToggleZoom, CycleLayout and Show return after the engine published their
// effect, so a Snapshot taken right after shows it.
type engine interface {
	Snapshot() orchestrator.Snapshot
	Changed() <-chan struct{}
	FocusOutput() <-chan struct{}
	AwaitedOutput() <-chan struct{}
	StateChanged() <-chan struct{}
	Input(id string, data []byte) error
	Send(id string, data []byte) error
	Focus(id string)
	ToggleZoom()
	CycleLayout()
	Show(id string) error
	Close(id string) error
	Spawn(req control.SpawnRequest) (control.AgentInfo, error)
	Resize(cols, rows int)
	Status() *hooks.StatusStore
	// PaneRequests are the notifications and clipboard writes of panes'
	// programs after seq after, and the seq to ask after next.
	PaneRequests(after uint64) ([]orchestrator.PaneRequest, uint64)
}

// Model is the root Bubble Tea model of an agentgrid session.
type Model struct {
	eng engine
	// area is the size the engine should have (cols<<32 | rows), read by
	// the resize commands (see resizeEngine).
	area   atomic.Uint64
	cfg    config.Config
	ui     uiStyles // the theme's styles as cell styles
	now    func() time.Time
	prefix string // the prefix key as Bubble Tea names it, e.g. "ctrl+b"
	// keyOpts are the optional bindings the config turned on.
	keyOpts keyOptions
	// outerColors receives the terminal's colours (WithOuterColors).
	outerColors func(fg, bg color.Color)

	width, height int
	snap          orchestrator.Snapshot
	haveSnap      bool

	comp      composer
	in        frameInput     // the input of the cached base frame
	spare     []paneFrame    // a dropped input's panes, reused by buildInput
	freeViews []*vterm.Frame // copy buffers no input holds (putFreeView)
	echoFrame bool           // the frame being built is an echo frame (frameMsg)
	status    statusCache    // the status line and what it was drawn from
	base      *termrt.Canvas // the composed frame without overlays (the composer's)
	top       termrt.Canvas  // base with the overlay drawn on top, when one is open
	final     *termrt.Canvas // what the screen shows: base or &top
	gen       uint64         // counts changes of final, so the loop sees a new frame
	baseDirty bool           // in changed: recompose base
	topDirty  bool           // overlay or status changed: redo final
	cursor    *tea.Cursor
	mouseMode tea.MouseMode

	prefixArmed  bool
	scroll       map[string]*scrollState
	overlay      overlay
	mouseDown    string           // pane id a mouse button went down in (drags go there)
	drag         *dragStart       // a left press in a pane that does not take the mouse
	buffers      *control.Buffers // the session's paste buffers; nil keeps none
	outerFocused bool
	prevStates   map[string]agentstate.State // agent id -> state at the last frame
	waitSeq      uint64                      // the engine's WaitSeq at the last frame
	reqSeq       uint64                      // the last pane request forwarded
	spareStates  map[string]agentstate.State // the map before that, reused
	prevFocus    string                      // the focus at the last frame
	lastFocus    string                      // the pane focused before the current one
	// showing is the agent a go-to is bringing into view; the keys and
	// pastes that come meanwhile wait in held for it (goto.go).
	showing string
	held    []tea.Msg

	labelTimer time.Time // when the pending label/status refresh fires; zero = none
	labelGen   int
	labelLast  time.Time // when the last label refresh ran
	holdTimer  time.Time // when the pending held-update timeout fires; zero = none
	holdGen    int
	// tick arms a one-shot timer (tea.Tick; tests record instead).
	tick     func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	quitting bool

	flashText string // a short message on the status line (feedback.go)
	flashGen  int
	theme     themeState // which palette, and whether it follows the terminal
	// rec is this view's recording (record.go); recordTo is the --record
	// file, started at the first size when recordPending is set.
	rec           *recorder
	recordTo      string
	recordUsed    bool
	recordPending bool
	// attached is set for a client of a session server: ctrl+b d
	// detaches it (detached) instead of asking to quit.
	attached, detached bool
	// readOnly is a client that may look, focus, zoom, scroll and search,
	// nothing else (agentgrid attach --read-only).
	readOnly bool
}

// newModel builds the UI model of one client over the engine (the hub's
// view of it for that client) with an injectable clock.
func newModel(eng engine, cfg config.Config, styles themes.Styles, now func() time.Time) *Model {
	prefix := cfg.Keys.Prefix
	if prefix == "" {
		prefix = "ctrl+b"
	}
	m := &Model{
		eng:          eng,
		cfg:          cfg,
		ui:           newUIStyles(styles),
		now:          now,
		prefix:       prefix,
		keyOpts:      keyOptions{altArrows: cfg.Keys.AltArrowsFocus},
		scroll:       map[string]*scrollState{},
		prevStates:   map[string]agentstate.State{},
		outerFocused: true,
		baseDirty:    true,
		tick:         tea.Tick,
		theme:        newThemeState(cfg),
		rec:          &recorder{now: now},
	}
	m.comp.looks = m.ui.frame
	return m
}

// frameMsg asks the model to take a fresh snapshot and redraw what changed.
// An echo frame (output the user waits for: Engine.AwaitedOutput) leaves
// out the panes that keep printing; the frame pump sends an ordinary frame
// after it.
type frameMsg struct{ echo bool }

// labelTickMsg refreshes time-dependent labels (elapsed times, status
// entries expiring); gen drops ticks that a later schedule superseded.
type labelTickMsg struct{ gen int }

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements tea.Model: it only routes messages to their handlers.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case frameMsg:
		return m, m.onFrame(msg)
	case labelTickMsg:
		return m, m.onLabelTick(msg)
	case holdTickMsg:
		return m, m.onHoldTick(msg)
	case flashTickMsg:
		return m, m.onFlashTick(msg)
	case tea.WindowSizeMsg:
		return m, m.onResize(msg)
	case tea.KeyPressMsg:
		if m.hold(msg) {
			return m, nil
		}
		return m, m.onKey(msg)
	case tea.PasteMsg:
		if m.hold(msg) {
			return m, nil
		}
		return m, m.onPaste(msg)
	case tea.MouseMsg:
		return m, m.onMouse(msg)
	case tea.FocusMsg:
		return m, m.onOuterFocus(true)
	case tea.BlurMsg:
		return m, m.onOuterFocus(false)
	case tea.ForegroundColorMsg:
		return m, m.onOuterColors(msg.Color, nil)
	case tea.BackgroundColorMsg:
		return m, m.onOuterColors(nil, msg.Color)
	case termrt.ColorSchemeMsg:
		return m, m.onColorScheme(msg)
	case engineDoneMsg:
		return m, msg.then(m, msg.err)
	}
	return m, nil
}

// View implements tea.Model. It brings the frame's canvas up to date (its
// cells are what the runtime draws; Content stays empty) and returns the view's
// other fields: the cursor, the mouse mode and the terminal modes.
func (m *Model) View() tea.View {
	m.render()
	v := tea.NewView("")
	v.AltScreen = true
	v.ReportFocus = true
	v.MouseMode = m.mouseMode
	// Ask for the kitty keyboard protocol's alternate keys so shifted and
	// layout-independent codes reach panes whose programs want them.
	v.KeyboardEnhancements.ReportAlternateKeys = true
	v.Cursor = m.cursor
	v.WindowTitle = "agentgrid"
	return v
}
