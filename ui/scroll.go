package ui

import (
	"bytes"
	"fmt"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// scrollState is a pane in scrollback mode: it shows its history instead of
// following the live screen, like tmux's copy mode.
type scrollState struct {
	// offset is how many lines the view is scrolled back; 0 is the live
	// screen (the pane stays in scrollback mode until the user leaves).
	offset int
	// pushed is the count of lines pushed into history (vterm's
	// Frame.Pushed) that offset refers to: the frame copy moves the view
	// back by the lines pushed since, under the terminal's lock, so new
	// output never shifts what a scrolled-back view shows (buildInput).
	pushed uint64
	// above is how many of the rows a box lower than the pane leaves out
	// (a client smaller than the one the panes' sizes follow) are shown
	// above the history's top: the view is the pane's bottom rows, as the
	// larger client's, until scrolling goes past the oldest line; then it
	// moves on over the rows left out, so every line can be reached.
	above int
	// byWheel is set when the mouse wheel entered the mode; scrolling back
	// down to the live screen then leaves it, as in tmux.
	byWheel bool

	query    string
	backward bool
	match    int // line of the last match over history+screen, -1 for none
	matchCol int // its cell column
	notFound bool

	sel selection // the copy cursor and the marked text
}

// indicator is the scrollback position shown in the pane's border: the
// lines scrolled back and how far back the view goes (the history, and
// the rows a lower box leaves out).
func (s *scrollState) indicator(histLen, hidden int) string {
	pos := fmt.Sprintf("[%d/%d]", s.offset+s.above, histLen+hidden)
	switch {
	case s.notFound:
		return "no match: " + s.query + " " + pos
	case s.query != "" && s.match >= 0:
		dir := "/"
		if s.backward {
			dir = "?"
		}
		return dir + s.query + " " + pos
	}
	return pos
}

// enterScroll puts pane id in scrollback mode.
func (m *Model) enterScroll(id string, byWheel bool) *scrollState {
	if s := m.scroll[id]; s != nil {
		return s
	}
	p := m.pane(id)
	if p == nil || p.Term == nil {
		return nil
	}
	s := &scrollState{byWheel: byWheel, match: -1, pushed: m.shownPushed(id)}
	m.scroll[id] = s
	return s
}

// shownPushed is the Pushed of the copy of pane id drawn last: what the
// user sees, so what a first scroll back counts from.
func (m *Model) shownPushed(id string) uint64 {
	for i := range m.in.panes {
		if pf := &m.in.panes[i]; pf.id == id && pf.view != nil {
			return pf.view.Pushed
		}
	}
	return 0
}

// exitScroll returns pane id to its live screen.
func (m *Model) exitScroll(id string) {
	delete(m.scroll, id)
}

// syncScroll forgets the scrolled views of panes no longer on screen. (A
// view stays anchored to its lines in the frame copy: see buildInput.)
func (m *Model) syncScroll() {
	for id := range m.scroll {
		if p := m.pane(id); p == nil || p.Term == nil {
			delete(m.scroll, id)
		}
	}
}

// hiddenRows is how many of pane p's rows its box leaves out: the box of
// a client smaller than the one the panes' sizes follow is lower than
// the pane; 0 when the whole pane shows.
func hiddenRows(paneRows int, p *orchestrator.PaneView) int {
	return max(0, paneRows-max(p.Box.H-2, 1))
}

// scrollWindow is what pane p shows in scrollback mode: the first line
// (numbered over history and screen) and how many rows. A box lower than
// the pane shows the pane's bottom rows (skip rows of the frame above it),
// so a smaller client sees the same newest lines as the larger one at the
// same offset; s.above moves it up over the rows left out.
func scrollWindow(p *orchestrator.PaneView, s *scrollState) (top, rows, skip int) {
	_, paneRows := p.Term.Size()
	hidden := hiddenRows(paneRows, p)
	skip = hidden - min(s.above, hidden)
	return p.Term.ScrollbackLen() - s.offset + skip, paneRows - hidden, skip
}

// scrollBy moves pane id's view by delta lines (positive = back in time):
// over the history, then, in a box lower than the pane, over the rows
// above the box.
func (m *Model) scrollBy(id string, delta int) {
	s := m.scroll[id]
	p := m.pane(id)
	if s == nil || p == nil || p.Term == nil {
		return
	}
	n := p.Term.ScrollbackLen()
	_, paneRows := p.Term.Size()
	pos := max(0, min(n+hiddenRows(paneRows, p), s.offset+s.above+delta))
	s.moveTo(pos, n)
	if pos == 0 && s.byWheel && delta < 0 {
		m.exitScroll(id)
	}
	m.refreshInput()
}

// scrollToTop scrolls pane p's view so that its first row is line top.
func scrollToTop(p *orchestrator.PaneView, s *scrollState, top int) {
	n := p.Term.ScrollbackLen()
	_, paneRows := p.Term.Size()
	hidden := hiddenRows(paneRows, p)
	s.moveTo(max(0, min(n+hidden, n+hidden-top)), n)
}

// moveTo sets the view pos lines back, counted over the history (histLen
// lines) first, then over the rows a lower box leaves out.
func (s *scrollState) moveTo(pos, histLen int) {
	s.offset = min(pos, histLen)
	s.above = pos - s.offset
}

// pageOf is a pane's content height, the unit of page moves.
func (m *Model) pageOf(id string) int {
	if p := m.pane(id); p != nil {
		return max(p.Box.H-2, 1)
	}
	return 1
}

// onScrollAction runs a scrollback-mode binding for the focused pane.
func (m *Model) onScrollAction(id string, act action) tea.Cmd {
	page := m.pageOf(id)
	switch act {
	case actScrollUp:
		m.scrollBy(id, 1)
	case actScrollDown:
		m.scrollBy(id, -1)
	case actScrollPageUp:
		m.scrollBy(id, page)
	case actScrollPageDown:
		m.scrollBy(id, -page)
	case actScrollHalfUp:
		m.scrollBy(id, max(page/2, 1))
	case actScrollHalfDown:
		m.scrollBy(id, -max(page/2, 1))
	case actScrollTop:
		m.scrollBy(id, 1<<30)
	case actScrollBottom:
		m.scrollBy(id, -(1 << 30))
	case actSearchForward, actSearchBackward:
		return m.openPrompt(newSearchPrompt(id, act == actSearchBackward, m.width, m.height, m.ui))
	case actSearchNext, actSearchPrev:
		if s := m.scroll[id]; s != nil && s.query != "" {
			m.search(id, s.query, s.backward != (act == actSearchPrev))
		}
	case actScrollExit:
		m.exitScroll(id)
		m.refreshInput()
	}
	return nil
}

// search finds query in pane id's history and screen from the current
// match (or the view's edge) in the given direction and scrolls the match
// into view.
func (m *Model) search(id, query string, backward bool) {
	s := m.scroll[id]
	p := m.pane(id)
	if s == nil || p == nil || p.Term == nil || query == "" {
		return
	}
	t := p.Term
	n := t.ScrollbackLen()
	_, paneRows := t.Size()
	top, rows, _ := scrollWindow(p, s) // the first line shown, numbered over history+screen
	from := top
	if backward {
		from = top + rows - 1
	}
	if s.query == query && s.match >= 0 {
		from = s.match + 1
		if backward {
			from = s.match - 1
		}
	}
	s.query, s.backward = query, backward
	line, col, ok := t.Search(query, from, backward)
	if !ok {
		// Wrap around like tmux: continue from the other end.
		wrapFrom := 0
		if backward {
			wrapFrom = n + paneRows - 1
		}
		line, col, ok = t.Search(query, wrapFrom, backward)
	}
	if !ok {
		s.notFound = true
		m.refreshInput()
		return
	}
	s.notFound = false
	s.match, s.matchCol = line, col
	if line < top || line >= top+rows {
		// Put the match a third of the way down the view.
		scrollToTop(p, s, line-rows/3)
	}
	m.refreshInput()
}

// wheelScroll scrolls the pane under the pointer by the wheel's step.
func (m *Model) wheelScroll(id string, up bool) {
	const step = 3
	p := m.pane(id)
	if p == nil || p.Term == nil {
		return
	}
	if m.scroll[id] == nil {
		if p.Term.Modes().AltScreen {
			// Full-screen programs (less, vim, man) have no history here:
			// the wheel becomes arrow keys, like a terminal's alternate
			// scroll mode.
			code := uv.KeyDown
			if up {
				code = uv.KeyUp
			}
			if b := p.Term.EncodeKey(uv.Key{Code: code}); len(b) > 0 {
				_ = m.eng.Input(id, bytes.Repeat(b, step))
			}
			return
		}
		if _, rows := p.Term.Size(); !up || p.Term.ScrollbackLen() == 0 && hiddenRows(rows, p) == 0 {
			return
		}
		m.enterScroll(id, true)
	}
	if up {
		m.scrollBy(id, step)
	} else {
		m.scrollBy(id, -step)
	}
}

// paneHasMouse reports whether the program in a pane asked for mouse reports.
func paneHasMouse(t orchestrator.PaneReader) bool {
	return t != nil && t.Modes().Mouse != vterm.MouseNone
}

// refreshInput rebuilds the frame input after a UI-local change (scroll
// position, prefix indicator) without waiting for the engine.
func (m *Model) refreshInput() {
	if !m.haveSnap {
		return
	}
	m.setInput(m.buildInput(m.now()))
}
