package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

// helpOverlay shows the keymap, generated from the same table that routes
// keys.
type helpOverlay struct {
	lines []line
	top   int
	st    uiStyles
	w, h  int
	boxW  int
	boxH  int
	x, y  int
}

// newHelpOverlay builds the help for the given prefix key and the optional
// bindings that are on.
func newHelpOverlay(prefix string, opts keyOptions, w, h int, st uiStyles) *helpOverlay {
	o := &helpOverlay{st: st, lines: helpLines(prefix, opts, st)}
	o.SetSize(w, h)
	return o
}

// helpLines renders the keymap sections as overlay lines.
func helpLines(prefix string, opts keyOptions, st uiStyles) []line {
	var lines []line
	secs := helpSections(prefix, opts, false)
	keyW, cmdW := 0, 0
	for _, sec := range secs {
		for _, r := range sec.rows {
			if sec.commands {
				cmdW = max(cmdW, ansi.StringWidth(r[0]))
			} else {
				keyW = max(keyW, ansi.StringWidth(r[0]))
			}
		}
	}
	for i, sec := range secs {
		if i > 0 {
			lines = append(lines, nil)
		}
		lines = append(lines, line{{text: sec.title, st: st.title}})
		w := keyW
		if sec.commands {
			w = cmdW
		}
		for _, r := range sec.rows {
			pad := strings.Repeat(" ", w-ansi.StringWidth(r[0]))
			lines = append(lines, line{{text: "  "}, {text: r[0], st: st.key}, {text: pad + "  " + r[1]}})
		}
	}
	return lines
}

// SetSize implements overlay.
func (o *helpOverlay) SetSize(w, h int) {
	o.w, o.h = w, h
	o.boxW = min(80, w)
	o.boxH = min(len(o.lines)+2, max(h-1, 3))
	o.x, o.y = centre(o.boxW, o.boxH, w, h)
	o.top = max(0, min(o.top, len(o.lines)-(o.boxH-2)))
}

// Update implements overlay.
func (o *helpOverlay) Update(msg tea.Msg) (overlayResult, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return overlayResult{}, nil
	}
	b := lookup(modeHelp, k, "", keyOptions{})
	if b == nil {
		return overlayResult{}, nil
	}
	switch b.action {
	case actListUp:
		o.top = max(o.top-1, 0)
	case actListDown:
		o.top = max(0, min(o.top+1, len(o.lines)-(o.boxH-2)))
	case actOverlayExit:
		return overlayResult{close: true}, nil
	}
	return overlayResult{}, nil
}

// View implements overlay.
func (o *helpOverlay) View() ([][]vterm.Cell, int, int) {
	n := o.boxH - 2
	end := min(o.top+n, len(o.lines))
	return drawBox("keys", o.lines[o.top:end], o.HelpKeys(), o.boxW, o.st.box), o.x, o.y
}

// Cursor implements overlay.
func (o *helpOverlay) Cursor() *tea.Cursor { return nil }

// HelpKeys implements overlay.
func (o *helpOverlay) HelpKeys() string {
	return hints(hintRoom(o.boxW), hint("↑↓", "scroll"), hint("esc", "close"))
}
