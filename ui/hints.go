package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
)

// hint is a key and what it does, for a widget's hints.
func hint(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}

// hints renders the enabled bindings as a widget's one-line key hints, as
// plain text (the border draws it in the theme's hint look) with " · "
// between the keys, at most width cells wide (0: no limit): the keys that
// do not fit are left out whole and the line ends in " …".
func hints(width int, bindings ...key.Binding) string {
	const sep, more = " · ", " …"
	var b strings.Builder
	total := 0
	for _, kb := range bindings {
		if !kb.Enabled() {
			continue
		}
		item := kb.Help().Key + " " + kb.Help().Desc
		if total > 0 {
			item = sep + item
		}
		w := ansi.StringWidth(item)
		if width > 0 && total+w > width {
			if total+ansi.StringWidth(more) < width {
				b.WriteString(more)
			}
			break
		}
		total += w
		b.WriteString(item)
	}
	return b.String()
}

// hintRoom is the room for hints in the bottom border of a box w cells
// wide: all but its corners, the first dash and the spaces around the text.
func hintRoom(w int) int { return max(w-5, 1) }
