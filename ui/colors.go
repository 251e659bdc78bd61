package ui

import (
	"image/color"

	tea "charm.land/bubbletea/v2"
)

// seqQueryColors asks the terminal for its default foreground and
// background (OSC 10 and 11). Terminals that do not know them stay silent,
// and nothing waits for the answer: it arrives as input, whenever it does.
const seqQueryColors = "\x1b]10;?\x1b\\\x1b]11;?\x1b\\"

// WithOuterColors asks the terminal for its foreground and background once
// it is set up and hands each answer to set, with the other colour nil, so
// that panes can report the real colours to programs that ask (vim picks
// its light or dark scheme from them). set is called from the event loop
// and must not block.
func WithOuterColors(set func(fg, bg color.Color)) Option {
	return func(o *runOptions) { o.outerColors = set }
}

// onOuterColors passes the terminal's answer on; a background colour also
// settles theme = "auto".
func (m *Model) onOuterColors(fg, bg color.Color) tea.Cmd {
	if bg != nil {
		m.followOuterScheme(bg, nil)
	}
	if m.outerColors != nil && (fg != nil || bg != nil) {
		m.outerColors(fg, bg)
	}
	return nil
}
