package ui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
)

// onKey routes a key press: an open overlay takes it first, then the
// prefix state, scrollback mode, the direct bindings, and finally the
// focused pane.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	if m.overlay != nil {
		return m.overlayKey(k)
	}
	if m.prefixArmed {
		m.setPrefix(false)
		b := lookup(modePrefix, k, m.prefix, m.keyOpts)
		if b == nil {
			return nil // like tmux: an unbound key after the prefix is dropped
		}
		return m.runAction(b.action, k)
	}
	if isKey(k, m.prefix) {
		m.setPrefix(true)
		return nil
	}
	if p := m.focusedPane(); p != nil && m.scroll[p.Agent.ID] != nil {
		id := p.Agent.ID
		if sel := m.scroll[id].sel; sel.cursor || sel.marking {
			if b := lookup(modeSelect, k, m.prefix, m.keyOpts); b != nil {
				if cmd, ok := m.onSelectAction(id, b.action); ok {
					return cmd
				}
			}
		}
		if b := lookup(modeScroll, k, m.prefix, m.keyOpts); b != nil {
			if cmd, ok := m.onSelectAction(id, b.action); ok {
				return cmd
			}
			return m.onScrollAction(id, b.action)
		}
		return nil // scrollback mode swallows other keys instead of typing blind
	}
	if b := lookup(modeDirect, k, m.prefix, m.keyOpts); b != nil {
		return m.runAction(b.action, k)
	}
	if !m.readOnly {
		m.sendKey(k)
	}
	return nil
}

// isKey reports whether k is the key named name ("ctrl+b").
func isKey(k keyPress, name string) bool {
	return k.String() == name || k.Keystroke() == name
}

// setPrefix arms or disarms the prefix; the status line shows it.
func (m *Model) setPrefix(on bool) {
	if m.prefixArmed == on {
		return
	}
	m.prefixArmed = on
	m.refreshInput()
}

// sendKey encodes a key for the focused pane's modes and sends it.
func (m *Model) sendKey(k tea.KeyPressMsg) {
	p := m.focusedPane()
	if p == nil || p.Term == nil {
		return
	}
	if b := p.Term.EncodeKey(uv.Key(k)); len(b) > 0 {
		_ = m.eng.Input(p.Agent.ID, b)
	}
}

// onPaste sends pasted text to the prompt when one is open, else to the
// focused pane (bracketed when its program asked for it).
func (m *Model) onPaste(msg tea.PasteMsg) tea.Cmd {
	if m.overlay != nil {
		return m.overlayMsg(msg)
	}
	p := m.focusedPane()
	if p == nil || p.Term == nil || m.scroll[p.Agent.ID] != nil || m.readOnly {
		return nil
	}
	if b := p.Term.EncodePaste(msg.Content); len(b) > 0 {
		_ = m.eng.Input(p.Agent.ID, b)
	}
	return nil
}

// runAction performs a prefix or direct binding.
func (m *Model) runAction(act action, k tea.KeyPressMsg) tea.Cmd {
	if m.readOnly && !readOnlyAction(act) {
		return m.flash("read-only: this terminal can look, not change the session")
	}
	focused := m.focusedPane()
	switch act {
	case actSendPrefix:
		m.sendKey(k)
	case actNewAgent:
		return m.openPrompt(newAgentPrompt(m.width, m.height, m.ui))
	case actFocusLeft, actFocusRight, actFocusUp, actFocusDown:
		fresh := m.refresh()
		unzoom := m.unzoomForFocus("")
		m.focusDir(focusDirs[act])
		return tea.Batch(fresh, unzoom, m.syncSnapshot())
	case actFocusNumber:
		fresh := m.refresh()
		return tea.Batch(fresh, m.goToAgent(k.String()))
	case actGoTo:
		return m.openPrompt(newGoToPrompt(m.width, m.height, m.ui))
	case actZoom:
		return engineCmd(func() error { m.eng.ToggleZoom(); return nil }, nil)
	case actClose:
		if focused == nil {
			return nil
		}
		if focused.Agent.ID == control.MainID {
			return m.askCloseMain(focused.Agent)
		}
		return m.askClose(focused.Agent)
	case actLayoutCycle:
		return m.cycleLayout()
	case actScrollMode:
		if focused != nil && m.enterScroll(focused.Agent.ID, false) != nil {
			if k.String() == "pgup" || k.Keystroke() == "pgup" {
				m.scrollBy(focused.Agent.ID, m.pageOf(focused.Agent.ID))
			}
			m.refreshInput()
		}
	case actAgents:
		a := newAgentsOverlay(m.width, m.height, m.ui)
		a.setAgents(m.snap, m.now())
		m.setOverlay(a)
		return m.scheduleLabelTick(m.now())
	case actHelp:
		m.setOverlay(newHelpOverlay(m.prefix, m.keyOpts, m.width, m.height, m.ui))
	case actTheme:
		return m.cycleTheme()
	case actCommand:
		return m.openPrompt(newCommandPrompt(m.width, m.height, m.ui))
	case actRecord:
		return m.toggleRecording()
	case actRedraw:
		// Compose the frame from scratch and send every row again: the
		// outer terminal may show something else than agentgrid believes.
		m.comp.reset()
		m.baseDirty = true
		return tea.ClearScreen
	case actDetach:
		if m.attached {
			m.detached = true
			return tea.Quit
		}
		return m.askQuit()
	case actQuit:
		return m.askQuit()
	case actLoopStop:
		return m.stopLoop(focused)
	}
	return nil
}

// readOnlyAction reports whether a read-only client may run act: what
// changes only its own view, never the session.
func readOnlyAction(act action) bool {
	switch act {
	case actFocusLeft, actFocusRight, actFocusUp, actFocusDown, actFocusNumber, actGoTo, actZoom, actTheme, actCommand,
		actScrollMode, actAgents, actHelp, actRedraw, actDetach:
		return true
	}
	return false
}

// focusDirs is the direction each focus key moves in.
var focusDirs = map[action]layout.Direction{
	actFocusLeft: layout.Left, actFocusRight: layout.Right, actFocusUp: layout.Up, actFocusDown: layout.Down,
}

// focusDir moves focus to the neighbouring pane in direction dir. Among
// equally near neighbours the pane focused just before wins, so moving
// left then right returns where the user came from, as in tmux.
func (m *Model) focusDir(dir layout.Direction) {
	ps := m.panes()
	rects := make([]layout.Rect, len(ps))
	from, back := -1, -1
	for i, p := range ps {
		rects[i] = p.Box
		switch p.Agent.ID {
		case m.snap.Focus:
			from = i
		case m.lastFocus:
			back = i
		}
	}
	if from < 0 {
		return
	}
	to := layout.Neighbour(rects, from, dir)
	if to < 0 {
		return
	}
	if back >= 0 && back != to && adjacent(rects[from], rects[back], dir) &&
		gap(rects[from], rects[back], dir) == gap(rects[from], rects[to], dir) {
		to = back
	}
	m.eng.Focus(ps[to].Agent.ID)
}

// adjacent reports whether b lies beyond a's edge in direction dir and
// overlaps it along the other axis.
func adjacent(a, b layout.Rect, dir layout.Direction) bool {
	switch dir {
	case layout.Left, layout.Right:
		if b.Y >= a.Y+a.H || a.Y >= b.Y+b.H {
			return false
		}
	default:
		if b.X >= a.X+a.W || a.X >= b.X+b.W {
			return false
		}
	}
	return gap(a, b, dir) >= 0
}

// gap is the distance from a's edge in direction dir to b's near edge.
func gap(a, b layout.Rect, dir layout.Direction) int {
	switch dir {
	case layout.Left:
		return a.X - (b.X + b.W)
	case layout.Right:
		return b.X - (a.X + a.W)
	case layout.Up:
		return a.Y - (b.Y + b.H)
	}
	return b.Y - (a.Y + a.H)
}

// askClose closes an agent, asking first while its process still runs.
func (m *Model) askClose(a control.AgentInfo) tea.Cmd {
	id := a.ID
	closeCmd := engineCmd(func() error { return m.eng.Close(id) }, nil)
	if a.State.Finished() {
		return closeCmd
	}
	q := fmt.Sprintf("Close %s (%s)? It is still %s.", id, sanitizeLabel(a.Title), a.State)
	m.setOverlay(newConfirm(q, m.width, m.height, m.ui, func() tea.Cmd { return closeCmd }))
	return nil
}

// askCloseMain closes the main view (prefix x there), which ends the
// session: it asks as prefix q does while agents are live, and also while
// the main view's own program runs, since x reads as closing one pane, not
// quitting.
func (m *Model) askCloseMain(a control.AgentInfo) tea.Cmd {
	if quitQuestion(m.snap.Agents) != "" || a.State.Finished() {
		return m.askQuit()
	}
	q := fmt.Sprintf("Close the main view (%s)? It is still %s, and closing it quits agentgrid.", sanitizeLabel(a.Title), a.State)
	m.setOverlay(newConfirm(q, m.width, m.height, m.ui, func() tea.Cmd {
		m.quitting = true
		return tea.Quit
	}))
	return nil
}

// askQuit quits, asking first while agents are live. The question names
// the running agents and counts the others (waiting, idle, queued) apart,
// since only the running ones are working on something right now.
func (m *Model) askQuit() tea.Cmd {
	q := quitQuestion(m.snap.Agents)
	if q == "" {
		m.quitting = true
		return tea.Quit
	}
	m.setOverlay(newConfirm(q, m.width, m.height, m.ui, func() tea.Cmd {
		m.quitting = true
		return tea.Quit
	}))
	return nil
}

// quitNames is how many running agents the quit question names before it
// says how many more there are.
const quitNames = 8

// quitQuestion is the question asked before quitting with live agents, or
// "" when none is live.
func quitQuestion(agents []control.AgentInfo) string {
	var running []string
	others := map[agentstate.State]int{}
	var order []agentstate.State
	for _, a := range agents {
		switch {
		case a.State.Finished():
		case a.State == agentstate.Running:
			running = append(running, a.ID)
		default:
			if others[a.State] == 0 {
				order = append(order, a.State)
			}
			others[a.State]++
		}
	}
	total := len(running)
	for _, n := range others {
		total += n
	}
	if total == 0 {
		return ""
	}
	q := "Quit agentgrid? No agent is running"
	if n := len(running); n > 0 {
		names, more := running, ""
		if n > quitNames {
			names, more = running[:quitNames-1], fmt.Sprintf(" and %d more", n-quitNames+1)
		}
		q = fmt.Sprintf("Quit agentgrid? %d %s running (%s%s)", n, plural(n, "agent is", "agents are"), strings.Join(names, ", "), more)
	}
	if len(order) > 0 {
		var rest []string
		for _, st := range order {
			rest = append(rest, fmt.Sprintf("%d %s", others[st], st))
		}
		q += "; " + joinAnd(rest)
		if len(running) > 0 {
			q += " too"
		}
	}
	return q + ". " + plural(total, "It", "They") + " will be stopped."
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// joinAnd joins "a", "b", "c" as "a, b and c".
func joinAnd(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// submitNewAgent spawns the command line typed in prompt p. A parse error
// is returned at once; the spawn runs as a command, and p stays open
// (taking no second submit) until it succeeded, or shows why it failed.
func (m *Model) submitNewAgent(p *promptOverlay, line string) (tea.Cmd, error) {
	argv, err := splitShellWords(line)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("type a command to run, e.g. htop or sh -c 'make test'")
	}
	p.pending = true
	spawn := func() error {
		_, err := m.eng.Spawn(control.SpawnRequest{Argv: argv})
		return err
	}
	return engineCmd(spawn, func(m *Model, err error) tea.Cmd {
		p.pending = false
		switch {
		case m.overlay != p:
			// The prompt was closed meanwhile: the error has no other place.
			return afterEngine(m, err)
		case err != nil:
			p.setError(err.Error())
			m.topDirty = true
			return nil
		}
		m.setOverlay(nil)
		return m.syncSnapshot()
	}), nil
}
