package oneline

import "github.com/charmbracelet/x/ansi"

// Truncate cuts a line made of styled parts to at most w cells when it is
// wider, ending it with tail: the parts that fit whole are kept, the part
// the cut falls in keeps what of its text fits (a wide character that does
// not fit whole is left out), and tail follows in that part's style. text
// is a part's text, and with makes a part like p with other text. The
// status line and the UI's overlay lines are cut by it.
func Truncate[P any](parts []P, w int, tail string, text func(P) string, with func(p P, text string) P) []P {
	total := 0
	for _, p := range parts {
		total += ansi.StringWidth(text(p))
	}
	if total <= w {
		return parts
	}
	room := max(w-ansi.StringWidth(tail), 0)
	out := make([]P, 0, len(parts)+1)
	used := 0
	for _, p := range parts {
		s := text(p)
		sw := ansi.StringWidth(s)
		if used+sw <= room {
			out = append(out, p)
			used += sw
			continue
		}
		if cut := ansi.Truncate(s, room-used, ""); cut != "" {
			out = append(out, with(p, cut))
		}
		if tail != "" {
			out = append(out, with(p, tail))
		}
		break
	}
	return out
}
