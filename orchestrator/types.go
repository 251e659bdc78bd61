package orchestrator

import (
	"log/slog"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
	uv "github.com/charmbracelet/ultraviolet"
)

// Options configure an Engine.
type Options struct {
	// Session is the session's name.
	Session string
	// Spawner starts processes; nil means panes.PTYSpawner{}.
	Spawner panes.Spawner
	// StateDir is the session's directory for agent logs
	// ($XDG_STATE_HOME/agentgrid/<session>); empty disables output logs.
	StateDir string
	// SocketPath is where the control socket listens; empty runs no socket.
	SocketPath string
	// Clock is the engine's time (rules, timers, execution deadlines); nil
	// means the wall clock.
	Clock Clock
	// Env is the base environment of children; nil means os.Environ().
	Env []string
	// Logger receives the engine's logs; nil means slog.Default().
	Logger *slog.Logger
	// Version is reported by the socket's session.info.
	Version string
	// Buffers are the session's paste buffers, served on the socket.
	Buffers *control.Buffers
	// Attach serves the socket's session.attach: the session's terminals.
	Attach control.Attacher
	// Watchdog learns every agent's process group so that it can end them
	// if the session dies without shutting down (internal/watchdog); nil
	// for none.
	Watchdog GroupWatcher
	// TermColors are the colours every pane reports to a program that
	// asks for the terminal's foreground and background (OSC 10/11): the
	// outer terminal's once it answered, the theme's until then, so that
	// vim picks a light scheme on a light terminal. Nil means white on
	// black.
	TermColors *vterm.DefaultColors
	// TmuxShim is the agentgrid executable. When set (with StateDir and
	// SocketPath), a "tmux" link to it in <StateDir>/bin goes first on every
	// child's PATH, with TMUX naming this session and TMUX_PANE each pane's
	// %N, so tmux commands the agents run create agentgrid panes (tmux.go).
	TmuxShim string
}

// GroupWatcher is told about every process group the engine starts and
// every group whose leader has exited; the session's watchdog process
// (internal/watchdog) implements it.
type GroupWatcher interface {
	Watch(pgid int)
	Exited(pgid int)
}

// PaneView is one pane for the UI to draw.
type PaneView struct {
	Agent control.AgentInfo
	Box   layout.Rect // outer box, border included
	// Term reads the pane's terminal; nil for a pane without one. Input
	// for the pane goes through the engine (Engine.Input), never here.
	Term PaneReader
	// Number is what the border shows: N of the agent's id aN, kept for
	// the agent's life whatever other panes open or close.
	Number int
}

// PaneReader is what a snapshot's reader may do with a pane's terminal:
// copy its frame (rows, cursor and modes under one acquisition of its lock,
// a synchronized update held back), read its size, modes and history, and
// encode input for the program's current modes. Nothing can write to the
// terminal through it; the engine's panes feed it from their PTYs.
// *vterm.Terminal implements it (UI tests build snapshots with one).
type PaneReader interface {
	Frame(dst *vterm.Frame, offset int)
	FrameRows(dst *vterm.Frame, offset int)
	FrameRowsFrom(dst *vterm.Frame, offset int, pushed uint64)
	Size() (cols, rows int)
	// Seq is the terminal's content version: it changes with every write
	// and resize, so a copy taken at the same Seq is still current.
	Seq() uint64
	Modes() vterm.Modes
	ScrollbackLen() int
	Search(query string, fromLine int, backward bool) (line, col int, ok bool)
	Wrapped(line int) bool
	EncodeKey(k uv.Key) []byte
	EncodeMouse(ev vterm.MouseEvent) []byte
	EncodePaste(s string) []byte
	EncodeFocus(focused bool) []byte
}

// readOnly hands a pane's terminal to the UI as a PaneReader: a struct of
// one pointer, so storing it in the interface allocates nothing, and the UI
// cannot assert its way back to the *vterm.Terminal.
type readOnly struct{ t *vterm.Terminal }

// reader is t as a PaneReader, nil for no terminal.
func reader(t *vterm.Terminal) PaneReader {
	if t == nil {
		return nil
	}
	return readOnly{t}
}

func (r readOnly) Frame(dst *vterm.Frame, offset int)     { r.t.Frame(dst, offset) }
func (r readOnly) FrameRows(dst *vterm.Frame, offset int) { r.t.FrameRows(dst, offset) }
func (r readOnly) Size() (cols, rows int)                 { return r.t.Size() }
func (r readOnly) Seq() uint64                            { return r.t.Seq() }
func (r readOnly) Modes() vterm.Modes                     { return r.t.Modes() }
func (r readOnly) ScrollbackLen() int                     { return r.t.ScrollbackLen() }
func (r readOnly) Search(query string, fromLine int, backward bool) (line, col int, ok bool) {
	return r.t.Search(query, fromLine, backward)
}
func (r readOnly) Wrapped(line int) bool                  { return r.t.Wrapped(line) }
func (r readOnly) EncodeKey(k uv.Key) []byte              { return r.t.EncodeKey(k) }
func (r readOnly) EncodeMouse(ev vterm.MouseEvent) []byte { return r.t.EncodeMouse(ev) }
func (r readOnly) EncodePaste(s string) []byte            { return r.t.EncodePaste(s) }
func (r readOnly) EncodeFocus(focused bool) []byte        { return r.t.EncodeFocus(focused) }

func (r readOnly) FrameRowsFrom(dst *vterm.Frame, offset int, pushed uint64) {
	r.t.FrameRowsFrom(dst, offset, pushed)
}

// Snapshot is a consistent, immutable view of the engine for the UI: plain
// data, and each visible pane's terminal behind a PaneReader.
type Snapshot struct {
	Cols, Rows int
	Layout     string
	Zoomed     bool
	// Focus is the pane that has the keyboard: "main" or a visible agent.
	// It is the one record of focus: the UI's borders, keys, cursor and
	// status line and the engine's fast poke for the focused pane's output
	// all read it.
	Focus    string
	TooSmall bool
	Main     *PaneView  // nil if there is no main view
	Panes    []PaneView // visible agents, slot order
	// Hidden are the agents that hold a slot but are hidden by a zoom
	// (empty Box), slot order: a client that lays the panes out at its own
	// size and zoom shows them.
	Hidden []PaneView
	// Slots are the ids of the agents in the grid's slots, in slot order
	// (Panes and Hidden together).
	Slots  []string
	Agents []control.AgentInfo // all agents (main excluded), in creation order
	Counts agentstate.Counts
	// Capacity is how many agent panes fit at the current size.
	Capacity int
	// WaitSeq counts transitions of any agent (main included) into waiting;
	// the UI rings the bell when it grows, even if the wait was brief.
	WaitSeq uint64
	// LastWaiting is the agent that most recently started waiting.
	LastWaiting string
}
