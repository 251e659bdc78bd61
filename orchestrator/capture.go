package orchestrator

import (
	"fmt"
	"strings"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// Capture returns an agent's screen as text, like `tmux capture-pane -p`:
// one line per row; with escapes the rows keep their colours and attributes
// as SGR sequences; scrollback > 0 prepends up to that many history lines.
func (e *Engine) Capture(id string, escapes bool, scrollback int) (string, error) {
	var term *vterm.Terminal
	var err error
	if derr := e.do(func() {
		var a *agent
		if a, err = e.agentByID(id); err != nil {
			return
		}
		if term = a.term; term == nil {
			err = fmt.Errorf("agent %s has not started yet (%s)", id, a.f.Why)
		}
	}); derr != nil {
		return "", derr
	}
	if err != nil {
		return "", err
	}
	return captureTerm(term, escapes, scrollback), nil
}

// captureTerm renders term; it only uses the terminal's concurrency-safe
// methods, so it runs outside the reconciler.
func captureTerm(t *vterm.Terminal, escapes bool, scrollback int) string {
	var b strings.Builder
	if scrollback > 0 {
		n := t.ScrollbackLen()
		for i := max(0, n-scrollback); i < n; i++ {
			line := t.HistoryLine(i, escapes)
			if !escapes {
				line = strings.TrimRight(line, " ")
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	_, rows := t.Size()
	if escapes {
		for y := range rows {
			b.WriteString(t.RenderRow(y))
			b.WriteByte('\n')
		}
		return b.String()
	}
	lines := strings.Split(t.Text(), "\n")
	for y := range rows {
		if y < len(lines) {
			b.WriteString(lines[y])
		}
		b.WriteByte('\n')
	}
	return b.String()
}
