package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// hintHelp renders the one-line key hints in the bottom border of a
// widget: Bubbles' short help, as plain text (the border draws it in the
// theme's hint look) with " · " between the keys.
var hintHelp = func() help.Model {
	h := help.New()
	h.Styles = help.Styles{}
	h.ShortSeparator = " · "
	return h
}()

// hint is a key and what it does, for a widget's hints.
func hint(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}

// hints renders bindings as a widget's hint line, at most width cells
// wide (0: no limit), ending in "…" when some do not fit.
func hints(width int, bindings ...key.Binding) string {
	h := hintHelp
	h.SetWidth(width)
	return h.ShortHelpView(bindings)
}

// hintRoom is the room for hints in the bottom border of a box w cells
// wide: all but its corners, the first dash and the spaces around the text.
func hintRoom(w int) int { return max(w-5, 1) }
