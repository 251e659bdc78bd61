package hooks

import (
	"sort"
	"strconv"
	"strings"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/charmbracelet/x/ansi"
)

// StatusLineStyle holds raw SGR prefixes (such as "\x1b[1;33m") for each part
// of the line, so this package draws styled text without depending on the
// theme package. Base is applied first and re-applied after every part, so
// the line's background stays continuous. Empty strings mean unstyled; when
// every field is empty the line is plain text.
type StatusLineStyle struct {
	Base    string // the whole line (background, default foreground)
	Counts  string // the counts segment
	Waiting string // the waiting count, so it stands out
	Failed  string // the failed count
	Entry   string // a fresh status entry
	Stale   string // a stale entry (dimmed)
	Focus   string // the focused pane's title
	Sep     string // separators between parts
}

func (s StatusLineStyle) any() bool {
	return s.Base != "" || s.Counts != "" || s.Waiting != "" || s.Failed != "" || s.Entry != "" ||
		s.Stale != "" || s.Focus != "" || s.Sep != ""
}

// StatusLineInput is everything the status line shows.
type StatusLineInput struct {
	Counts  agentstate.Counts
	Entries []StatusEntry // drawn ordered by key (notices first) whatever the order given
	// Focus is the focused pane's title ("" for none).
	Focus string
	// MaxEntryWidth caps each entry's display width (config status.max_entry_width); <= 0 means 40.
	MaxEntryWidth int
	Style         StatusLineStyle
}

const (
	statusSep  = " │ "
	entrySep   = "  "
	defaultCap = 40
	sgrReset   = "\x1b[0m"
	ellipsis   = "…"
)

type countPart struct {
	n    int
	name agentstate.State
}

// statusSepWidth is statusSep's display width ("│" is one cell, three bytes).
var statusSepWidth = ansi.StringWidth(statusSep)

func countList(c agentstate.Counts) []countPart {
	return []countPart{
		{c.Running, agentstate.Running}, {c.Waiting, agentstate.Waiting}, {c.Idle, agentstate.Idle},
		{c.Done, agentstate.Done}, {c.Failed, agentstate.Failed}, {c.Queued, agentstate.Queued},
	}
}

// RenderStatusLine draws the status line exactly width cells wide: the
// counts segment ("2 running · 1 waiting · 3 done": running always, the
// others when not zero; never truncated, only cut hard when the terminal is
// narrower than it), then the status entries ordered by key (each sanitised
// and capped at MaxEntryWidth with "…"; agent-scoped entries prefixed with
// the agent id, stale ones in the Stale style; agentgrid's own notices
// first and uncapped), then the focused pane's title. Whatever does not fit is cut by display width (wide CJK and emoji
// counted as two cells) and ends in "…"; the rest is padded with spaces.
func RenderStatusLine(in StatusLineInput, width int) string {
	if width <= 0 {
		return ""
	}
	st := in.Style
	styled := st.any()
	var left strings.Builder
	left.WriteString(st.Base)
	left.WriteByte(' ')
	for i, p := range countList(in.Counts) {
		if i > 0 && p.n == 0 {
			continue
		}
		if i > 0 {
			left.WriteString(st.Sep + " · " + st.Base)
		}
		style := st.Counts
		switch {
		case p.name == agentstate.Waiting && st.Waiting != "":
			style = st.Waiting
		case p.name == agentstate.Failed && st.Failed != "":
			style = st.Failed
		}
		left.WriteString(style + strconv.Itoa(p.n) + " " + string(p.name) + st.Base)
	}
	leftStr := left.String()
	leftW := ansi.StringWidth(leftStr)
	if leftW >= width {
		return finish(ansi.Truncate(leftStr, width, ""), width, st.Base, styled)
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
	var rest strings.Builder
	first := true
	used := 0 // display cells written to rest so far
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
		if first {
			rest.WriteString(st.Sep + statusSep + st.Base)
			used += statusSepWidth
			first = false
		} else {
			rest.WriteString(st.Sep + entrySep + st.Base)
			used += len(entrySep)
		}
		used += w
		style := st.Entry
		if e.Stale {
			style = st.Stale
		}
		rest.WriteString(style + text + st.Base)
	}
	if focus := oneline.Sanitize(in.Focus, MaxStatusTextLen); focus != "" {
		rest.WriteString(st.Sep + statusSep + st.Base + st.Focus + focus + st.Base)
	}
	rest.WriteByte(' ')
	restStr := rest.String()
	if ansi.StringWidth(restStr) > room {
		restStr = ansi.Truncate(restStr, room, ellipsis)
	}
	return finish(leftStr+restStr, width, st.Base, styled)
}

// finish pads s to width cells in the base style and resets attributes.
func finish(s string, width int, base string, styled bool) string {
	if pad := width - ansi.StringWidth(s); pad > 0 {
		s += base + strings.Repeat(" ", pad)
	}
	if styled {
		s += sgrReset
	}
	return s
}
