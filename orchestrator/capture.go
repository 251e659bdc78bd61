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
	if t, ok := e.terms.Load(id); ok {
		return captureTerm(t.(*vterm.Terminal), escapes, scrollback), nil
	}
	var term *vterm.Terminal
	err := e.doAgent(id, func(a *agent) error {
		if term = a.term; term == nil {
			return fmt.Errorf("agent %s has not started yet (%s)", id, a.f.Why)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return captureTerm(term, escapes, scrollback), nil
}

// captureTerm renders term from one consistent copy (vterm's Capture), so
// a capture never shows a write or a synchronized update half done; it
// runs outside the reconciler.
func captureTerm(t *vterm.Terminal, escapes bool, scrollback int) string {
	var b strings.Builder
	for _, line := range t.Capture(scrollback, escapes) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
