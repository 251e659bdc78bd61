package ui

import (
	"encoding/base64"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// selection is the copy cursor and the stretch of a pane's history and
// screen marked for copying. Lines are numbered over history and screen
// as Search numbers them (0 is the oldest history line), so the marks stay
// on their text while output scrolls the view. It is per view: each
// attached client's model has its own.
type selection struct {
	cursor      bool // the copy cursor is shown
	line, col   int  // the copy cursor
	marking     bool // v was pressed, or a drag started: anchor to cursor is marked
	aLine, aCol int  // the anchor
	byDrag      bool // a mouse drag made it: the release copies
}

// span is the marked stretch in order: from (l0, c0) to (l1, c1), both
// cells included.
func (s *selection) span() (l0, c0, l1, c1 int) {
	l0, c0, l1, c1 = s.aLine, s.aCol, s.line, s.col
	if l1 < l0 || (l1 == l0 && c1 < c0) {
		l0, c0, l1, c1 = l1, c1, l0, c0
	}
	return
}

// selMark is a selection in a pane's content rows for one frame: rows
// relative to the view's top (possibly outside it), columns in cells.
type selMark struct{ r0, c0, r1, c1 int }

// startCursor shows the copy cursor where the pane's own cursor is, on the
// same row of the view; in a box lower than the pane, on the nearest row
// the box shows.
func (m *Model) startCursor(p *orchestrator.PaneView, s *scrollState) {
	if s.sel.cursor {
		return
	}
	var fr vterm.Frame
	p.Term.FrameRows(&fr, s.offset)
	cols, paneRows := p.Term.Size()
	top, rows, skip := scrollWindow(p, s)
	s.sel.cursor = true
	s.sel.line = top + max(0, min(fr.Cursor.Y-skip, rows-1, paneRows-1))
	s.sel.col = max(0, min(fr.Cursor.X, cols-1))
}

// onSelectAction runs a binding of the copy cursor; it reports false for
// an action that is not one, which scrollback mode then handles.
func (m *Model) onSelectAction(id string, act action) (tea.Cmd, bool) {
	s := m.scroll[id]
	p := m.pane(id)
	if s == nil || p == nil || p.Term == nil {
		return nil, false
	}
	cols, paneRows := p.Term.Size()
	last := p.Term.ScrollbackLen() + paneRows - 1
	switch act {
	case actSelectStart:
		m.startCursor(p, s)
		s.sel.marking = true
		s.sel.aLine, s.sel.aCol = s.sel.line, s.sel.col
	case actCopy:
		if !s.sel.marking {
			return nil, true
		}
		return m.copySelection(id, true), true
	case actSelectCancel:
		if !s.sel.marking && !s.sel.cursor {
			return nil, false // esc again leaves scrollback mode
		}
		s.sel = selection{}
	case actCursorLeft, actCursorRight, actCursorUp, actCursorDown, actCursorLineStart, actCursorLineEnd:
		m.startCursor(p, s)
		switch act {
		case actCursorLeft:
			s.sel.col = max(0, s.sel.col-1)
		case actCursorRight:
			s.sel.col = min(cols-1, s.sel.col+1)
		case actCursorUp:
			s.sel.line = max(0, s.sel.line-1)
		case actCursorDown:
			s.sel.line = min(last, s.sel.line+1)
		case actCursorLineStart:
			s.sel.col = 0
		case actCursorLineEnd:
			s.sel.col = max(0, lineEnd(p.Term, s.sel.line)-1)
		}
		m.keepCursorInView(id, p, s)
	case actWordNext, actWordPrev, actWordEnd, actSpaceWordNext, actSpaceWordPrev, actSpaceWordEnd:
		m.startCursor(p, s)
		mv := wordMotion{
			backward: act == actWordPrev || act == actSpaceWordPrev,
			toEnd:    act == actWordEnd || act == actSpaceWordEnd,
			spaces:   act == actSpaceWordNext || act == actSpaceWordPrev || act == actSpaceWordEnd,
		}
		to := newWordWalker(p.Term, mv.spaces).move(wordPos{s.sel.line, s.sel.col}, mv)
		s.sel.line, s.sel.col = to.line, max(0, min(cols-1, to.col))
		m.keepCursorInView(id, p, s)
	default:
		return nil, false
	}
	m.refreshInput()
	// The copy cursor is drawn as the real cursor, which the frame input
	// does not hold: a move that changes nothing else still redraws it.
	m.topDirty = true
	return nil, true
}

// keepCursorInView scrolls the view so that the copy cursor's line shows.
func (m *Model) keepCursorInView(id string, p *orchestrator.PaneView, s *scrollState) {
	top, rows, _ := scrollWindow(p, s)
	switch {
	case s.sel.line < top:
		m.scrollBy(id, top-s.sel.line)
	case s.sel.line >= top+rows:
		m.scrollBy(id, -(s.sel.line - (top + rows - 1)))
	}
	if m.scroll[id] == nil {
		// Scrolled back down to the live screen by the wheel's rule: stay.
		m.scroll[id] = s
	}
}

// copySelection copies pane id's marked text: to the outer terminal's
// clipboard (OSC 52) and to the session's paste buffers. With leave set
// scrollback mode ends, as after a copy in tmux; else only the marks go.
func (m *Model) copySelection(id string, leave bool) tea.Cmd {
	s := m.scroll[id]
	p := m.pane(id)
	if s == nil || p == nil || p.Term == nil || !s.sel.marking {
		return nil
	}
	text := selectedText(p.Term, &s.sel)
	s.sel = selection{}
	if leave {
		m.exitScroll(id)
	}
	m.refreshInput()
	if text == "" {
		return nil
	}
	if m.buffers != nil {
		m.buffers.Add(text)
	}
	return tea.Raw(osc52(text))
}

// osc52 is the sequence that puts text on the terminal's clipboard.
func osc52(text string) string {
	return osc52Base64(base64.StdEncoding.EncodeToString([]byte(text)))
}

// osc52Base64 is the sequence that puts data, already in base64, on the
// terminal's clipboard.
func osc52Base64(data string) string { return "\x1b]52;c;" + data + "\a" }

// selectedText is the text from the selection's start to its end, both
// cells included: lines joined with newlines, trailing blanks dropped.
func selectedText(t orchestrator.PaneReader, sel *selection) string {
	l0, c0, l1, c1 := sel.span()
	lines := lineCells(t, l0, l1)
	var b strings.Builder
	for i, row := range lines {
		from, to := 0, len(row)
		if i == 0 {
			from = min(c0, len(row))
		}
		if i == len(lines)-1 {
			to = min(c1+1, len(row))
		}
		var lb strings.Builder
		for x := from; x < to; x++ {
			if row[x].Width == 0 {
				continue
			}
			lb.WriteString(row[x].Content)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.TrimRight(lb.String(), " "))
	}
	return b.String()
}

// lineCells returns the cells of lines from..to (numbered over history and
// screen), reading the terminal a screenful at a time.
func lineCells(t orchestrator.PaneReader, from, to int) [][]vterm.Cell {
	var out [][]vterm.Cell
	var fr vterm.Frame
	for l := from; l <= to; {
		n := t.ScrollbackLen()
		t.Frame(&fr, max(0, min(n, n-l)))
		top := fr.HistLen - fr.Offset
		if l < top || l >= top+len(fr.Cells) {
			break
		}
		for ; l <= to && l < top+len(fr.Cells); l++ {
			out = append(out, fr.Cells[l-top])
		}
	}
	return out
}

// lineEnd is the width of line l's text, trailing blanks excluded.
func lineEnd(t orchestrator.PaneReader, l int) int {
	rows := lineCells(t, l, l)
	if len(rows) == 0 {
		return 0
	}
	r := rows[0]
	n := len(r)
	for n > 0 && (r[n-1].Content == " " || r[n-1].Content == "") {
		n--
	}
	return n
}

// selMarkOf is pane p's selection in its view's rows, nil for none.
func selMarkOf(s *scrollState, top int) *selMark {
	if s == nil || !s.sel.marking {
		return nil
	}
	l0, c0, l1, c1 := s.sel.span()
	return &selMark{r0: l0 - top, c0: c0, r1: l1 - top, c1: c1}
}

// selCursor is where the copy cursor shows in pane p's content, when it
// does.
func selCursor(s *scrollState, top, rows int) (x, y int, ok bool) {
	if s == nil || !s.sel.cursor {
		return 0, 0, false
	}
	y = s.sel.line - top
	return s.sel.col, y, y >= 0 && y < rows
}

// mouseLine is the line and column under the pointer in pane p, clamped to
// its content: in scrollback mode over the rows the view shows, else over
// the rows of the live screen the box was drawn with.
func (m *Model) mouseLine(p *orchestrator.PaneView, x, y int) (int, int) {
	c := p.Box.Inset(1)
	cx, cy := max(0, min(x-c.X, c.W-1)), max(0, min(y-c.Y, c.H-1))
	if s := m.scroll[p.Agent.ID]; s != nil {
		top, _, _ := scrollWindow(p, s)
		return top + cy, cx
	}
	skip := 0
	for i := range m.in.panes {
		if pf := &m.in.panes[i]; pf.id == p.Agent.ID {
			skip = pf.skip
		}
	}
	return p.Term.ScrollbackLen() + skip + cy, cx
}

// dragStart remembers where a left press landed in a pane that does not
// take the mouse: a drag from there selects text.
type dragStart struct {
	id        string
	line, col int
}

// onDragMotion extends (or starts) the drag's selection to the pointer.
func (m *Model) onDragMotion(x, y int) {
	d := m.drag
	p := m.pane(d.id)
	if p == nil || p.Term == nil {
		m.drag = nil
		return
	}
	line, col := m.mouseLine(p, x, y)
	s := m.scroll[d.id]
	if s == nil {
		if line == d.line && col == d.col {
			return
		}
		s = m.enterScroll(d.id, true)
		if s == nil {
			return
		}
	}
	if !s.sel.marking {
		s.sel = selection{marking: true, byDrag: true, aLine: d.line, aCol: d.col}
	}
	s.sel.cursor, s.sel.line, s.sel.col = true, line, col
	m.refreshInput()
}

// onDragRelease copies what the drag selected; a scrollback mode the drag
// entered ends with it.
func (m *Model) onDragRelease() tea.Cmd {
	d := m.drag
	m.drag = nil
	s := m.scroll[d.id]
	if s == nil || !s.sel.byDrag {
		return nil
	}
	return m.copySelection(d.id, s.byWheel)
}
