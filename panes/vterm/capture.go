package vterm

// Capture returns what the terminal shows as lines, as tmux's capture-pane
// does: up to scrollback lines of history, then every row of the screen.
// Styled lines keep colours and attributes as SGR sequences (a screen row
// is as wide as the screen and ends with a reset, as RenderRow's); plain
// lines are text with trailing blanks trimmed.
//
// All of it is taken under one acquisition of the lock, so a capture never
// shows part of a write, nor history and screen from different moments.
// Inside a synchronized update the screen is the copy taken before the
// update began, as Frame shows it, and the lines the update pushed into
// history are left out with the rest of it.
func (t *Terminal) Capture(scrollback int, styled bool) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	hist := t.histLen()
	var held [][]cell
	if t.holding() {
		held = t.held.raw
		// Two's complement, as in frame: lines taken back count negative.
		newer := int(int64(t.hist.pushed - t.held.Pushed))
		hist = min(max(hist-newer, 0), hist)
	}
	out := make([]string, 0, min(scrollback, hist)+t.rows)
	for i := max(0, hist-scrollback); i < hist; i++ {
		out = append(out, t.historyLine(i, styled))
	}
	for y := range t.rows {
		switch {
		case held == nil && styled:
			out = append(out, t.renderLine(t.scr.row(y)))
		case held == nil:
			out = append(out, string(t.appendPlain(nil, t.scr.row(y).cells)))
		default:
			// A copy's row ends after its last written cell.
			row := make([]cell, t.cols)
			if y < len(held) {
				copy(row, held[y])
			}
			if styled {
				out = append(out, string(t.appendStyled(nil, row, true)))
			} else {
				out = append(out, string(t.appendPlain(nil, row)))
			}
		}
	}
	return out
}
