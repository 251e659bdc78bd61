package ui

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// The smallest terminal the UI draws in: the main view's minimum box plus
// the status line.
const (
	minWidth  = layout.MinMainWidth
	minHeight = layout.MinMainHeight + 1
)

// onFrame handles a poke from the frame pump.
func (m *Model) onFrame(msg frameMsg) tea.Cmd {
	m.echoFrame = msg.echo
	defer func() { m.echoFrame = false }()
	return m.refresh()
}

// onResize records the terminal size and gives the engine the pane area
// (everything but the status line).
func (m *Model) onResize(msg tea.WindowSizeMsg) tea.Cmd {
	m.width, m.height = max(msg.Width, 0), max(msg.Height, 0)
	m.area.Store(uint64(m.width)<<32 | uint64(max(m.height-1, 0)))
	if m.overlay != nil {
		m.overlay.SetSize(m.width, m.height)
	}
	m.topDirty = true
	m.rec.resized(m.width, m.height)
	var record tea.Cmd
	if m.recordPending {
		// --record: the recording starts once the size is known.
		m.recordPending = false
		record = m.startRecording()
	}
	// No tea.ClearScreen: the runtime repaints every cell with the frame
	// of a new size already (the outer terminal may have moved the cursor
	// or scrolled while reflowing); a second repaint sent a second full
	// frame on every attach and resize.
	return tea.Batch(m.resizeEngine(), m.refresh(), record)
}

// onLabelTick refreshes labels whose text depends on the clock.
func (m *Model) onLabelTick(msg labelTickMsg) tea.Cmd {
	if msg.gen != m.labelGen {
		return nil
	}
	m.labelTimer = time.Time{}
	m.labelLast = m.now()
	return m.refresh()
}

// syncSnapshot takes the snapshot right after the UI asked the engine to
// change focus, zoom or layout. Those engine calls return once the engine
// has published the change, so reading it now makes keys that arrive in
// the same input batch go to the pane the user just focused, instead of to
// the old one until the next frame message brings the new snapshot.
func (m *Model) syncSnapshot() tea.Cmd { return m.refresh() }

// refresh takes a new snapshot and marks for redrawing whatever changed.
func (m *Model) refresh() tea.Cmd {
	first := !m.haveSnap
	m.snap = m.eng.Snapshot()
	m.haveSnap = true
	now := m.now()

	var cmds []tea.Cmd
	m.recordMarkers()
	if bell := m.waitingTransitions(first) + m.paneRequests(first); bell != "" {
		cmds = append(cmds, tea.Raw(bell))
	}
	m.forwardPaneFocus()
	m.syncScroll()

	in := m.buildInput(now)
	// Scheduled from the new copies: a held pane's copy has the Seq of
	// the one already drawn, so the input kept may be the older one.
	if cmd := m.scheduleHoldTick(&in, now); cmd != nil {
		cmds = append(cmds, cmd)
	}
	m.setInput(in)
	m.mouseMode = m.wantMouseMode()
	if a, ok := m.overlay.(*agentsOverlay); ok {
		a.setAgents(m.snap, now)
		m.topDirty = true
	}
	if cmd := m.scheduleLabelTick(now); cmd != nil {
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
}

// panes lists the visible panes of the snapshot, the main view first.
func (m *Model) panes() []*orchestrator.PaneView {
	out := make([]*orchestrator.PaneView, 0, len(m.snap.Panes)+1)
	if m.snap.Main != nil && !m.snap.Main.Box.Empty() {
		out = append(out, m.snap.Main)
	}
	for i := range m.snap.Panes {
		if !m.snap.Panes[i].Box.Empty() {
			out = append(out, &m.snap.Panes[i])
		}
	}
	return out
}

// pane returns the visible pane of agent id, or nil.
func (m *Model) pane(id string) *orchestrator.PaneView {
	for _, p := range m.panes() {
		if p.Agent.ID == id {
			return p
		}
	}
	return nil
}

// focusedPane returns the pane that receives keys, or nil. The engine's
// Snapshot.Focus is the one record of focus: the border, the cursor, the
// status line's title and the keys all follow it.
func (m *Model) focusedPane() *orchestrator.PaneView { return m.pane(m.snap.Focus) }

// tooSmallNotice is the one-line notice shown instead of a broken drawing.
// The size needed comes first after the head: a tiny terminal (10x3) that
// shows the notice wrapped still shows what to do.
func (m *Model) tooSmallNotice() string {
	if m.width >= minWidth && m.height >= minHeight && !m.snap.TooSmall {
		return ""
	}
	return fmt.Sprintf("terminal too small: need %dx%d, have %dx%d", minWidth, minHeight, m.width, m.height)
}

// buildInput turns the snapshot into the pure input of composition.
func (m *Model) buildInput(now time.Time) frameInput {
	in := frameInput{width: m.width, height: m.height}
	if in.notice = m.tooSmallNotice(); in.notice != "" {
		return in
	}
	var store *hooks.StatusStore
	if m.eng != nil {
		store = m.eng.Status()
	}
	var entries []hooks.StatusEntry
	if store != nil {
		entries = store.Entries()
	}
	focusTitle := ""
	ps := m.panes()
	// The pane slice of the input this one replaced (or that equalled the
	// current one) is reused: refreshes allocate no new one.
	in.panes = m.spare[:0]
	m.spare = nil
	if cap(in.panes) < len(ps) {
		in.panes = make([]paneFrame, 0, len(ps))
	}
	for i, p := range ps {
		a := &p.Agent
		// The copy buffers of the dropped input's pane at this index are
		// reused: the input that stays current never shares them.
		var view *vterm.Frame
		if i < cap(in.panes) {
			view = in.panes[:i+1][i].view
			if m.in.holdsView(view) {
				// An echo frame kept it for a pane it did not copy.
				view = nil
			}
		}
		old := m.in.prevPane(i, a.ID)
		pf := paneFrame{
			id:      a.ID,
			box:     p.Box,
			focused: a.ID == m.snap.Focus,
			waiting: a.State == agentstate.Waiting,
			accent:  accentColor(a.Accent),
		}
		s := m.scroll[a.ID]
		if keep, busy := m.keepsCopy(old, p, pf.focused, s); keep {
			pf.term, pf.view, pf.seq, pf.skip, pf.busy = old.term, old.view, old.seq, old.skip, busy
			m.putFreeView(view)
		} else if p.Term != nil {
			if view == nil {
				view = m.takeFreeView()
			}
			// One lock per pane per frame: rows, cursor and modes all come
			// from this copy.
			if s != nil {
				// Anchored in the copy itself: lines pushed since the last
				// frame move the view back with them.
				p.Term.FrameRowsFrom(view, s.offset, s.pushed)
				s.offset, s.pushed = view.Offset, view.Pushed
				pf.offset = view.Offset
				// A box lower than the pane shows its bottom rows, as the
				// larger client's view ends (scrollWindow).
				hidden := hiddenRows(view.Rows, p)
				s.above = min(s.above, hidden)
				pf.skip = hidden - s.above
			} else {
				p.Term.FrameRows(view, 0)
				pf.skip = anchorSkip(view, p.Box.H-2)
			}
			pf.term, pf.view, pf.seq = p.Term, view, view.Seq
			pf.busy = old != nil && old.seq != pf.seq
		}
		// The engine names the pane (its title, else the title its program
		// set, else its command): tmux's pane_title, agentgrid list and
		// the border all show that one name.
		title := a.Title
		if pf.focused {
			focusTitle = title
		}
		number := strconv.Itoa(p.Number)
		if a.ID == control.MainID {
			number = "0"
		}
		pf.label = paneLabel{
			number:   number,
			title:    title,
			category: a.Category,
			model:    a.Model,
			badge:    stateBadge(badgeOf(a), now),
			badgeSt:  m.ui.badge(string(a.State)),
		}
		var prev []string
		if old != nil {
			prev = old.label.entries
		}
		pf.label.entries = agentEntries(entries, a.ID, prev)
		if a.Worktree != "" {
			// The agent works on a branch of its own: the border says which.
			pf.label.branch = "⎇ " + a.Branch
		}
		if m.snap.Zoomed {
			pf.label.right = "zoomed"
		}
		if s != nil && pf.view != nil {
			n := pf.view.HistLen
			pf.label.right = s.indicator(n, hiddenRows(pf.view.Rows, p))
			if m.snap.Zoomed {
				pf.label.right += " · zoomed"
			}
			if s.match >= 0 && !s.notFound {
				pf.mark = &matchMark{row: s.match - (n - pf.view.Offset + pf.skip), col: s.matchCol, width: ansi.StringWidth(s.query)}
			}
			pf.sel = selMarkOf(s, n-pf.view.Offset+pf.skip)
		}
		in.panes = append(in.panes, pf)
	}
	in.status = m.statusLine(entries, focusTitle)
	return in
}

// keepsCopy reports whether pane p keeps old, its input in the last frame,
// instead of being copied again, and whether it then counts as busy. Only
// a pane shown live, in the same box and from the same terminal keeps it:
//   - an echo frame leaves out the panes that printed in the frame before
//     too (floods), busy still: their copy, its lock and their rows wait
//     for the next frame, at most an interval later, and the echo goes out
//     alone;
//   - a pane nothing was written to since its copy keeps that copy, which
//     is still what it shows: a quiet pane is not copied again (its lock
//     taken, its rows read and written) for a frame that changes something
//     else, a badge, the status line or a flooding pane beside it.
func (m *Model) keepsCopy(old *paneFrame, p *orchestrator.PaneView, focused bool, s *scrollState) (keep, busy bool) {
	if s != nil || old == nil || old.view == nil || p.Term == nil || old.term != p.Term || old.box != p.Box {
		return false, false
	}
	if m.echoFrame && old.busy && !focused {
		return true, true
	}
	return old.view.Offset == 0 && !old.view.Held && p.Term.Seq() == old.seq, false
}

// setInput makes in the input of the next frame when it differs from the
// current one, and keeps the pane slice of whichever is dropped for the
// next buildInput.
func (m *Model) setInput(in frameInput) {
	if sameInput(&in, &m.in) {
		m.spare = in.panes
		return
	}
	m.spare = m.in.panes
	m.in = in
	m.baseDirty = true
}

// statusLine lays out the bottom row, with the prefix indicator, a short
// message and the zoom mark in front (statusLead). The line it returns is never changed
// afterwards: frame inputs and the composer keep it.
func (m *Model) statusLine(entries []hooks.StatusEntry, focusTitle string) line {
	w := m.width
	leadSpans := m.statusLead()
	lead := ""
	for _, sp := range leadSpans {
		lead += sp.text
	}
	w -= ansi.StringWidth(lead)
	if w <= 0 {
		return line(leadSpans)
	}
	k := statusKey{
		counts:  m.snap.Counts,
		entries: entries,
		focus:   focusTitle,
		lead:    lead,
		width:   w,
		maxW:    m.cfg.Status.MaxEntryWidth,
	}
	// The style comes from the theme, fixed for the model's life.
	return m.status.get(k, func() line {
		l := m.ui.statusLine(hooks.RenderStatusLine(hooks.StatusLineInput{
			Counts:        k.counts,
			Entries:       entries,
			Focus:         focusTitle,
			MaxEntryWidth: k.maxW,
		}, w))
		if len(leadSpans) > 0 {
			l = append(append(line{}, leadSpans...), l...)
		}
		return l
	})
}

// badgeOf extracts the badge inputs of an agent.
func badgeOf(a *control.AgentInfo) badgeInput {
	return badgeInput{state: a.State, since: a.Since, started: a.Started, ended: a.Ended, exitCode: a.ExitCode}
}

// sameInput reports whether two frame inputs draw the same frame.
func sameInput(a, b *frameInput) bool {
	if a.width != b.width || a.height != b.height || a.notice != b.notice ||
		!slices.Equal(a.status, b.status) || len(a.panes) != len(b.panes) {
		return false
	}
	for i := range a.panes {
		p, q := &a.panes[i], &b.panes[i]
		if p.id != q.id || p.box != q.box || p.term != q.term || p.seq != q.seq ||
			p.offset != q.offset || p.skip != q.skip || p.focused != q.focused || p.waiting != q.waiting ||
			!p.label.same(&q.label) ||
			(p.mark == nil) != (q.mark == nil) || (p.mark != nil && *p.mark != *q.mark) ||
			(p.sel == nil) != (q.sel == nil) || (p.sel != nil && *p.sel != *q.sel) {
			return false
		}
	}
	return true
}

// forwardPaneFocus tells panes that asked for focus events (mode 1004) when
// keyboard focus moves between them, as tmux does.
func (m *Model) forwardPaneFocus() {
	focus := m.snap.Focus
	if focus == m.prevFocus {
		return
	}
	old := m.prevFocus
	m.prevFocus = focus
	if old != "" {
		m.lastFocus = old
	}
	if !m.outerFocused {
		return
	}
	if p := m.pane(old); p != nil && p.Term != nil {
		if b := p.Term.EncodeFocus(false); b != nil {
			_ = m.eng.Send(old, b)
		}
	}
	if p := m.pane(focus); p != nil && p.Term != nil {
		if b := p.Term.EncodeFocus(true); b != nil {
			_ = m.eng.Send(focus, b)
		}
	}
}

// onOuterFocus forwards the outer terminal's focus changes to the focused
// pane when it asked for them.
func (m *Model) onOuterFocus(focused bool) tea.Cmd {
	m.outerFocused = focused
	if p := m.focusedPane(); p != nil && p.Term != nil {
		if b := p.Term.EncodeFocus(focused); b != nil {
			_ = m.eng.Send(p.Agent.ID, b)
		}
	}
	return nil
}

// wantMouseMode is the outer terminal's mouse mode: cell motion when the
// mouse is enabled, all motion while a visible pane asked for it (mode 1003).
func (m *Model) wantMouseMode() tea.MouseMode {
	if !m.cfg.UI.Mouse {
		return tea.MouseModeNone
	}
	for i := range m.in.panes {
		if v := m.in.panes[i].view; v != nil && v.Modes.Mouse == vterm.MouseAny {
			return tea.MouseModeAllMotion
		}
	}
	return tea.MouseModeCellMotion
}

// labelMinInterval is the shortest time between two label refreshes.
const labelMinInterval = time.Second

// labelQuantum is the grid of the wall clock that minute-step labels change
// on: panes whose minutes tick over within the same ten seconds share one
// refresh, and a label is at most that late.
const labelQuantum = 10 * time.Second

// alignUp returns the first multiple of q (counted from the zero time, so
// on whole ten seconds of the wall clock for q = 10 s) at or after t.
func alignUp(t time.Time, q time.Duration) time.Time {
	a := t.Truncate(q)
	if a.Before(t) {
		a = a.Add(q)
	}
	return a
}

// scheduleLabelTick arms one timer for the next moment a label on screen
// changes by itself: an elapsed time ticking over or a status entry expiring
// or turning stale. Nothing is armed when no such label is shown.
func (m *Model) scheduleLabelTick(now time.Time) tea.Cmd {
	var next time.Time
	consider := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, p := range m.panes() {
		a := &p.Agent
		st := a.State
		if st.Finished() || a.Since.IsZero() {
			continue
		}
		d := now.Sub(a.Since)
		t := now.Add(nextBadgeChange(st, d))
		if st.Resting() || d >= time.Minute {
			// A minute-step label: shared refreshes on the quantum grid.
			t = alignUp(t, labelQuantum)
		}
		consider(t)
	}
	if _, ok := m.overlay.(*agentsOverlay); ok {
		for i := range m.snap.Agents {
			if t := m.snap.Agents[i].Created; !t.IsZero() {
				consider(now.Add(nextLabelChange(now.Sub(t))))
			}
		}
	}
	if m.eng != nil {
		if st := m.eng.Status(); st != nil {
			if t, ok := st.NextDeadline(); ok {
				consider(t)
			}
		}
	}
	if next.IsZero() {
		return nil
	}
	// Panes enter their states at different moments, so their elapsed
	// times tick over at different phases of the second: following each
	// would redraw the whole screen once per pane per second. One label
	// refresh a second at most updates them all together; a label is then
	// at most a second late, never wrong for longer.
	if earliest := m.labelLast.Add(labelMinInterval); next.Before(earliest) {
		next = earliest
	}
	if next.Equal(m.labelTimer) {
		return nil
	}
	m.labelTimer = next
	m.labelGen++
	gen := m.labelGen
	return m.tick(max(next.Sub(now), time.Millisecond), func(time.Time) tea.Msg { return labelTickMsg{gen: gen} })
}

// render brings the cached frame up to date; View calls it.
func (m *Model) render() {
	if m.baseDirty {
		m.base = m.comp.compose(&m.in)
		m.baseDirty = false
		m.topDirty = true
	}
	if m.topDirty {
		m.final = m.drawOverlay(m.base)
		m.gen++
		m.cursor = m.paneCursor()
		if m.overlay != nil {
			m.cursor = m.overlay.Cursor()
		}
		m.topDirty = false
	}
}

// paneCursor places the real cursor at the focused pane's cursor, when that
// pane shows its live screen and its program shows the cursor.
func (m *Model) paneCursor() *tea.Cursor {
	if m.in.notice != "" {
		return nil
	}
	p := m.focusedPane()
	if p == nil {
		return nil
	}
	// The cursor comes from the same copy as the pane's drawn rows.
	var pf *paneFrame
	for i := range m.in.panes {
		if m.in.panes[i].id == p.Agent.ID {
			pf = &m.in.panes[i]
		}
	}
	if pf == nil || pf.view == nil {
		return nil
	}
	content := pf.box.Inset(1)
	s := m.scroll[p.Agent.ID]
	if s != nil && s.sel.cursor {
		// The copy cursor, as a block, where it shows.
		x, y, ok := selCursor(s, pf.view.HistLen-pf.view.Offset+pf.skip, content.H)
		if !ok || x >= content.W {
			return nil
		}
		return tea.NewCursor(content.X+x, content.Y+y)
	}
	if pf.view.Offset > 0 || (s != nil && s.offset > 0) {
		return nil
	}
	c := pf.view.Cursor
	c.Y -= pf.skip
	if !c.Visible || c.X < 0 || c.Y < 0 || c.X >= content.W || c.Y >= content.H {
		return nil
	}
	cur := tea.NewCursor(content.X+c.X, content.Y+c.Y)
	switch c.Style {
	case vterm.CursorBlinkingUnderline, vterm.CursorSteadyUnderline:
		cur.Shape = tea.CursorUnderline
	case vterm.CursorBlinkingBar, vterm.CursorSteadyBar:
		cur.Shape = tea.CursorBar
	}
	cur.Blink = c.Style == vterm.CursorDefault || c.Style == vterm.CursorBlinkingBlock ||
		c.Style == vterm.CursorBlinkingUnderline || c.Style == vterm.CursorBlinkingBar
	return cur
}

// anchorSkip is how many rows of a pane's screen stay above a box h rows
// high that is smaller than the screen (a client smaller than the one the
// panes' sizes follow): the rows around the cursor show, the bottom ones
// when the cursor is there, as a shell's prompt is.
func anchorSkip(view *vterm.Frame, h int) int {
	if h <= 0 || view.Rows <= h {
		return 0
	}
	return min(max(view.Cursor.Y+1-h, 0), view.Rows-h)
}
