package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/ui"
)

// Widths at which list cuts free text so the table stays readable.
const (
	listTitleWidth = 32
	listWhyWidth   = 48
)

// writeAgentTable prints agents as the aligned table of `agentgrid list`.
func writeAgentTable(w io.Writer, agents []control.AgentInfo, now time.Time) (err error) {
	w, done := buffer(w)
	defer done(&err)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\t#\tSTATE\tTIME\tEXIT\tTITLE\tWHY")
	for _, a := range agents {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			clean(a.ID, 16), paneSlot(a), clean(string(a.State), 16), agentTime(a, now), exitText(a),
			clean(a.Title, listTitleWidth), clean(whyText(a), listWhyWidth))
	}
	return tw.Flush()
}

// paneSlot is the # column: the pane number on screen, qN in the queue.
func paneSlot(a control.AgentInfo) string {
	switch {
	case a.Number > 0:
		return strconv.Itoa(a.Number)
	case a.QueuePos > 0:
		return "q" + strconv.Itoa(a.QueuePos)
	}
	return "-"
}

// agentTime is how long the agent has run (until it ended), or for one not
// started yet, how long it has waited.
func agentTime(a control.AgentInfo, now time.Time) string {
	if a.Started != nil && !a.Started.IsZero() {
		end := now
		if a.Ended != nil && !a.Ended.IsZero() {
			end = *a.Ended
		}
		return shortDuration(end.Sub(*a.Started))
	}
	if !a.Created.IsZero() {
		return shortDuration(now.Sub(a.Created))
	}
	return "-"
}

func exitText(a control.AgentInfo) string {
	if a.ExitCode != nil {
		return strconv.Itoa(*a.ExitCode)
	}
	return "-"
}

func whyText(a control.AgentInfo) string {
	why := a.Why
	if a.QueuePos > 0 && a.QueueReason != "" {
		why = a.QueueReason
	}
	if a.Source != "" && why != "" {
		return why + " (" + a.Source + ")"
	}
	return why
}

// shortDuration prints d the way a person reads elapsed time: 45s, 3m12s,
// 1h05m, 2d03h.
func shortDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int64(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s/3600%24)
}

// clean makes untrusted text (titles come from the child's OSC sequences,
// and everything from the socket may come from a server that is not the
// session) safe for one table cell with the one sanitiser: no control,
// bidi or zero-width characters, whitespace collapsed, at most max runes.
func clean(s string, max int) string {
	if s = oneline.Sanitize(s, max); s == "" {
		return "-"
	}
	return s
}

// writeExplanation prints `agentgrid explain`.
func writeExplanation(w io.Writer, ex control.Explanation, now time.Time) (err error) {
	w, done := buffer(w)
	defer done(&err)
	a := ex.Agent
	ew := &errWriter{w: w}
	ew.printf("%s  %s\n", clean(a.ID, 16), clean(a.Title, 80))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	field := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	field("state:", clean(string(a.State), 16))
	if len(ex.Resolution) > 0 {
		steps := make([]string, len(ex.Resolution))
		for i, s := range ex.Resolution {
			steps[i] = clean(s.Text, 300)
		}
		field("resolution:", strings.Join(steps, "; "))
	}
	if a.Model != "" {
		field("model:", clean(a.Model, 200))
	}
	if a.Try > 1 {
		field("try:", strconv.Itoa(a.Try))
	}
	field("source:", orDash(clean(a.Source, 80)))
	field("why:", orDash(clean(a.Why, 200)))
	field("since:", when(a.Since, now))
	field("confirmed:", when(a.Confirmed, now))
	if a.ExitCode != nil {
		field("exit code:", strconv.Itoa(*a.ExitCode))
	}
	if a.Subagents > 0 {
		field("subagents:", strconv.Itoa(a.Subagents))
	}
	if a.Interrupted {
		field("interrupted:", "yes, by the user")
	}
	if l := a.Loop; l != nil {
		field("loop:", fmt.Sprintf("%s, promise %s, started %s: %s", clean(l.Label(), 80), clean(l.Promise, 200), when(l.Started, now), orDash(clean(l.Reason, 200))))
	}
	if a.QueuePos > 0 {
		field("queued:", fmt.Sprintf("position %d: %s", a.QueuePos, orDash(clean(a.QueueReason, 120))))
	}
	if a.LogPath != "" {
		field("log:", clean(a.LogPath, 4096))
	}
	if a.LogError != "" {
		field("log stopped:", clean(a.LogError, 500))
	}
	_ = tw.Flush()

	if len(ex.Evidence) > 0 {
		ew.printf("\nlatest word of each source:\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, e := range ex.Evidence {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", clean(e.Source, 40), when(e.Time, now), clean(e.Says, 120))
		}
		_ = tw.Flush()
	}

	if len(ex.Decisions) > 0 {
		ew.printf("\nanswers to its hooks (oldest first):\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, d := range ex.Decisions {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", d.Time.Local().Format("15:04:05.000"), clean(d.Action+" at "+d.Point, 40),
				orDash(clean(d.Tool, 40)), clean(d.Policy, 60), clean(d.Reason, 120))
		}
		_ = tw.Flush()
	}

	if len(ex.Notices) > 0 || ex.RewakeWaiting {
		ew.printf("\nnotices about the agents it started (oldest first):\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, n := range ex.Notices {
			how := "waiting"
			if !n.Delivered.IsZero() {
				how = "delivered " + n.Delivered.Local().Format("15:04:05.000") + " by " + clean(n.Via, 60)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", n.Time.Local().Format("15:04:05.000"), clean(n.Text, 200), how)
		}
		_ = tw.Flush()
		if ex.RewakeWaiting {
			ew.printf("  a rewake hook waits to wake it once every agent it started has finished\n")
		}
	}

	if len(ex.Resolution) > 1 {
		ew.printf("\nhow its kind resolved (oldest first):\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, s := range ex.Resolution {
			fmt.Fprintf(tw, "  %s\t%s\n", s.Time.Local().Format("15:04:05.000"), clean(s.Text, 300))
		}
		_ = tw.Flush()
	}

	ew.printf("\nhistory (oldest first):\n")
	if len(ex.History) == 0 {
		ew.printf("  (no transitions recorded)\n")
	}
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, h := range ex.History {
		fmt.Fprintf(tw, "  %s\t%s -> %s\t%s\t%s\n", h.Time.Local().Format("15:04:05.000"), clean(string(h.From), 16), clean(string(h.To), 16),
			orDash(clean(h.Source, 40)), clean(h.Why, 120))
	}
	_ = tw.Flush()
	return ew.err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// when prints a moment as its age and clock time: "12s ago (14:03:05)".
func when(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmt.Sprintf("%s ago (%s)", shortDuration(now.Sub(t)), t.Local().Format("15:04:05"))
}

// buffer puts w behind a buffer, for a table: a tabwriter writes each cell
// and each gap on its own, and to a terminal or a pipe each write is a
// system call (agentgrid list of 17 agents made 200 of them). done sends
// what was written in one piece and keeps the first error in *err.
func buffer(w io.Writer) (io.Writer, func(err *error)) {
	bw := bufio.NewWriterSize(w, 32<<10)
	return bw, func(err *error) {
		if ferr := bw.Flush(); *err == nil {
			*err = ferr
		}
	}
}

// errWriter keeps the first write error so printing code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) { fmt.Fprintf(e, format, args...) }

// sanitizeCapture makes the text of agentgrid capture safe to print: each
// line keeps its text (and its SGR colours with -e) and nothing else that
// a terminal would act on.
func sanitizeCapture(text string, escapes bool) string {
	if text == "" {
		return ""
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = ui.SanitizeLine(l, escapes)
	}
	return strings.Join(lines, "\n") + "\n"
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(buf.Bytes()))
	return err
}

// escapeJSONControls writes the runes that encoding/json leaves raw but a
// terminal acts on (DEL, C1 controls such as CSI, bidirectional overrides)
// as \u escapes. They can only occur inside strings, so the JSON means the
// same.
func escapeJSONControls(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			out = fmt.Appendf(out, "\\u%04x", r)
		} else if out != nil {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}
