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
	secs  []helpSection
	lines []line // secs laid out for the box's width
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
	o := &helpOverlay{st: st, secs: helpSections(prefix, opts, false)}
	o.SetSize(w, h)
	return o
}

// helpLines lays the keymap sections out as overlay lines width cells
// wide; a description too long for its column wraps under itself.
func helpLines(secs []helpSection, width int, st uiStyles) []line {
	var lines []line
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
		indent := strings.Repeat(" ", 2+w+2)
		room := max(width-len(indent), 10)
		for _, r := range sec.rows {
			pad := strings.Repeat(" ", w-ansi.StringWidth(r[0]))
			desc := strings.Split(ansi.Wrap(r[1], room, ""), "\n")
			lines = append(lines, line{{text: "  "}, {text: r[0], st: st.key}, {text: pad + "  " + desc[0]}})
			for _, more := range desc[1:] {
				lines = append(lines, line{{text: indent + more}})
			}
		}
	}
	return lines
}

// SetSize implements overlay.
func (o *helpOverlay) SetSize(w, h int) {
	o.w, o.h = w, h
	o.boxW = min(80, w)
	o.lines = helpLines(o.secs, o.boxW-3, o.st) // borders and the leading space
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
