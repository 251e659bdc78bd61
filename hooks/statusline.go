package hooks

import (
	"sort"
	"strconv"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/charmbracelet/x/ansi"
)

// StatusStyle names the part of the status line a segment belongs to. The
// line carries these names, not colours: the UI maps each to a cell style
// from the theme, so this package draws nothing and depends on no theme,
// and no escape sequence is written only to be parsed again.
type StatusStyle uint8

// The parts of the status line. StyleBase is the line itself: its leading
// blank and the padding after the last part.
const (
	StyleBase       StatusStyle = iota
	StyleCounts                 // a count
	StyleWaiting                // the waiting count, so it stands out
	StyleFailed                 // the failed count
	StyleEntry                  // a fresh status entry
	StyleStale                  // a stale entry (dimmed)
	StyleFocus                  // the focused pane's title
	StyleSep                    // separators between parts
	NumStatusStyles             // how many there are
)

// StatusSegment is text drawn in one part's style.
type StatusSegment struct {
	Text  string
	Style StatusStyle
}

// StatusLine is the status line as segments, left to right.
type StatusLine []StatusSegment

// String is the line's text without its styles.
func (l StatusLine) String() string {
	n := 0
	for _, s := range l {
		n += len(s.Text)
	}
	b := make([]byte, 0, n)
	for _, s := range l {
		b = append(b, s.Text...)
	}
	return string(b)
}

// Width is the line's width in cells.
func (l StatusLine) Width() int {
	w := 0
	for _, s := range l {
		w += ansi.StringWidth(s.Text)
	}
	return w
}

// StatusLineInput is everything the status line shows.
type StatusLineInput struct {
	Counts  agentstate.Counts
	Entries []StatusEntry // drawn ordered by key (notices first) whatever the order given
	// Focus is the focused pane's title ("" for none).
	Focus string
	// MaxEntryWidth caps each entry's display width (config status.max_entry_width); <= 0 means 40.
	MaxEntryWidth int
}

const (
	statusSep  = " │ "
	countSep   = " · "
	entrySep   = "  "
	defaultCap = 40
	ellipsis   = "…"
)

type countPart struct {
	n    int
	name agentstate.State
}

func countList(c agentstate.Counts) []countPart {
	return []countPart{
		{c.Running, agentstate.Running}, {c.Waiting, agentstate.Waiting}, {c.Idle, agentstate.Idle},
		{c.Done, agentstate.Done}, {c.Failed, agentstate.Failed}, {c.Queued, agentstate.Queued},
	}
}

// RenderStatusLine lays out the status line exactly width cells wide: the
// counts segment ("2 running · 1 waiting · 3 done": running always, the
// others when not zero; never truncated, only cut hard when the terminal is
// narrower than it), then the status entries ordered by key (each sanitised
// and capped at MaxEntryWidth with "…"; agent-scoped entries prefixed with
// the agent id, stale ones in the StyleStale style; agentgrid's own notices
// first and uncapped), then the focused pane's title. Whatever does not fit
// is cut by display width (wide CJK and emoji counted as two cells) and ends
// in "…"; the rest is padded with spaces.
func RenderStatusLine(in StatusLineInput, width int) StatusLine {
	if width <= 0 {
		return nil
	}
	left := StatusLine{{Text: " ", Style: StyleBase}}
	for i, p := range countList(in.Counts) {
		if i > 0 && p.n == 0 {
			continue
		}
		if i > 0 {
			left = append(left, StatusSegment{countSep, StyleSep})
		}
		style := StyleCounts
		switch p.name {
		case agentstate.Waiting:
			style = StyleWaiting
		case agentstate.Failed:
			style = StyleFailed
		}
		left = append(left, StatusSegment{strconv.Itoa(p.n) + " " + string(p.name), style})
	}
	leftW := left.Width()
	if leftW >= width {
		return pad(truncate(left, width, ""), width)
	}

	capW := in.MaxEntryWidth
	if capW <= 0 {
		capW = defaultCap
	}
	entries := append([]StatusEntry(nil), in.Entries...)
	sort.SliceStable(entries, func(i, j int) bool {
		if entries[i].Notice != entries[j].Notice {
			return entries[i].Notice
		}
		return entries[i].Key < entries[j].Key
	})

	room := width - leftW
	var rest StatusLine
	used := 0 // display cells in rest so far
	for _, e := range entries {
		if used > room {
			break // the rest cannot show; the cut below adds the "…"
		}
		text := oneline.Sanitize(e.Text, MaxStatusTextLen)
		if text == "" {
			continue
		}
		if e.Agent != "" {
			text = oneline.Sanitize(e.Agent, MaxStatusKeyLen) + ": " + text
		}
		w := ansi.StringWidth(text)
		if w > capW && !e.Notice {
			text, w = ansi.Truncate(text, capW, ellipsis), capW
		}
		sep := entrySep
		if rest == nil {
			sep = statusSep
		}
		style := StyleEntry
		if e.Stale {
			style = StyleStale
		}
		rest = append(rest, StatusSegment{sep, StyleSep}, StatusSegment{text, style})
		used += ansi.StringWidth(sep) + w
	}
	if focus := oneline.Sanitize(in.Focus, MaxStatusTextLen); focus != "" {
		rest = append(rest, StatusSegment{statusSep, StyleSep}, StatusSegment{focus, StyleFocus})
	}
	rest = append(rest, StatusSegment{" ", StyleBase})
	return pad(append(left, truncate(rest, room, ellipsis)...), width)
}

// truncate cuts l to at most w cells when it is wider, ending it with tail
// in the style of the segment it cuts into.
func truncate(l StatusLine, w int, tail string) StatusLine {
	return oneline.Truncate(l, w, tail,
		func(s StatusSegment) string { return s.Text },
		func(s StatusSegment, text string) StatusSegment { return StatusSegment{text, s.Style} })
}

// pad fills l with spaces in the base style to width cells.
func pad(l StatusLine, width int) StatusLine {
	if n := width - l.Width(); n > 0 {
		l = append(l, StatusSegment{spaces(n), StyleBase})
	}
	return l
}

// blanks is a run of spaces that pad slices, so padding allocates nothing.
const blanks = "                                                                                                                                "

func spaces(n int) string {
	if n <= len(blanks) {
		return blanks[:n]
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
