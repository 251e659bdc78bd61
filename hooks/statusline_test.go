package hooks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/charmbracelet/x/ansi"
)

func TestRenderStatusLinePlain(t *testing.T) {
	in := StatusLineInput{
		Counts: agentstate.Counts{Running: 2, Waiting: 1, Done: 3, Queued: 4},
		Entries: []StatusEntry{
			{Key: "zz", Text: "last"},
			{Key: "build", Text: "✓ green"},
			{Key: "tool", Text: "Bash: go test ./...", Agent: "a1"},
		},
		Focus: "a2 tests",
	}
	cases := []struct {
		width int
		want  string
	}{
		{120, " 2 running · 1 waiting · 3 done · 4 queued │ ✓ green  a1: Bash: go test ./...  last │ a2 tests "},
		{70, " 2 running · 1 waiting · 3 done · 4 queued │ ✓ green  a1: Bash: go te…"},
		// Narrower than the counts: they are cut hard, never replaced by "…".
		{12, " 2 running ·"},
		{42, " 2 running · 1 waiting · 3 done · 4 queued"},
		{43, " 2 running · 1 waiting · 3 done · 4 queued…"},
		{45, " 2 running · 1 waiting · 3 done · 4 queued │…"},
	}
	for _, tc := range cases {
		got := RenderStatusLine(in, tc.width).String()
		if w := ansi.StringWidth(got); w != tc.width {
			t.Errorf("width %d: line is %d cells: %q", tc.width, w, got)
		}
		if strings.TrimRight(got, " ") != strings.TrimRight(tc.want, " ") {
			t.Errorf("width %d:\n got %q\nwant %q", tc.width, got, tc.want)
		}
	}
	if got := RenderStatusLine(in, 0); len(got) != 0 {
		t.Errorf("width 0 gave %q", got)
	}
}

func TestRenderStatusLineCountsAlwaysShowRunning(t *testing.T) {
	got := RenderStatusLine(StatusLineInput{}, 20).String()
	if strings.TrimSpace(got) != "0 running" {
		t.Errorf("empty line = %q", got)
	}
	got = RenderStatusLine(StatusLineInput{Counts: agentstate.Counts{Failed: 1, Idle: 2}}, 40).String()
	if strings.TrimSpace(got) != "0 running · 2 idle · 1 failed" {
		t.Errorf("counts = %q", got)
	}
}

func TestRenderStatusLineWideText(t *testing.T) {
	in := StatusLineInput{
		Counts:        agentstate.Counts{Running: 1},
		Entries:       []StatusEntry{{Key: "a", Text: "日本語のテキストです"}, {Key: "b", Text: "🚀 deploy 👩‍💻"}},
		MaxEntryWidth: 9,
	}
	got := RenderStatusLine(in, 80).String()
	if w := ansi.StringWidth(got); w != 80 {
		t.Fatalf("line is %d cells: %q", w, got)
	}
	// 9 cells: four wide characters (8) and the ellipsis (1).
	if !strings.Contains(got, "日本語の…") {
		t.Errorf("CJK entry not capped by display width: %q", got)
	}
	if !strings.Contains(got, "🚀 deplo…") {
		t.Errorf("emoji entry not capped by display width: %q", got)
	}
	// Cutting the whole line in the middle of a wide character keeps the width exact.
	for w := 12; w < 40; w++ {
		if got := RenderStatusLine(in, w).String(); ansi.StringWidth(got) != w {
			t.Errorf("width %d: got %d cells: %q", w, ansi.StringWidth(got), got)
		}
	}
}

func TestRenderStatusLineSanitizesAndStyles(t *testing.T) {
	in := StatusLineInput{
		Counts:  agentstate.Counts{Running: 1, Waiting: 2},
		Entries: []StatusEntry{{Key: "evil", Text: "a\x1b[2Jb\nc"}, {Key: "old", Text: "stale one", Stale: true}},
		Focus:   "main",
	}
	line := RenderStatusLine(in, 60)
	got := line.String()
	if line.Width() != 60 || ansi.StringWidth(got) != 60 {
		t.Errorf("styled line is %d cells", line.Width())
	}
	if strings.Contains(got, "\x1b") || strings.Contains(got, "\n") {
		t.Errorf("control sequences leaked: %q", got)
	}
	has := func(text string, st StatusStyle) bool {
		for _, s := range line {
			if s.Text == text && s.Style == st {
				return true
			}
		}
		return false
	}
	if !has("2 waiting", StyleWaiting) || !has("1 running", StyleCounts) || !has("stale one", StyleStale) ||
		!has("main", StyleFocus) || !has("ab c", StyleEntry) {
		t.Errorf("styles missing: %+v", line)
	}
	if !strings.Contains(got, "ab c") {
		t.Errorf("plain text = %q", got)
	}
}

func TestRenderStatusLineManyEntries(t *testing.T) {
	s := NewStatusStore(nil)
	for i := range 50 {
		s.Set(fmt.Sprintf("k%02d", i), fmt.Sprintf("entry number %d with some text", i), "", "", time.Minute)
	}
	in := StatusLineInput{Counts: agentstate.Counts{Running: 3}, Entries: s.Entries(), Focus: "focus"}
	line := RenderStatusLine(in, 200)
	got := line.String()
	if ansi.StringWidth(got) != 200 || !strings.HasSuffix(strings.TrimRight(got, " "), "…") {
		t.Errorf("50 entries at width 200: %q", got)
	}
	// The ellipsis ends the line, in the style of the part it cuts (entry 6).
	if i := len(line) - 1; line[i].Text != "…" || line[i].Style != StyleEntry {
		t.Errorf("50 entries at width 200: %q", got)
	}
	if !strings.Contains(got, "entry number 0 ") {
		t.Errorf("entries not in key order: %q", got)
	}
}

func BenchmarkRenderStatusLine50(b *testing.B) {
	entries := make([]StatusEntry, 50)
	for i := range entries {
		entries[i] = StatusEntry{Key: fmt.Sprintf("k%02d", i), Text: fmt.Sprintf("entry %d ✓ 日本", i)}
	}
	in := StatusLineInput{Counts: agentstate.Counts{Running: 5, Waiting: 1, Done: 9}, Entries: entries, Focus: "a3 tests"}
	b.ReportAllocs()
	for b.Loop() {
		RenderStatusLine(in, 240)
	}
}

// A notice of agentgrid's own (an ignored config file) is drawn first and
// whole, while a client's entry of the same length is capped.
func TestRenderStatusLineNoticeFirstAndWhole(t *testing.T) {
	store := NewStatusStore(nil)
	long := "ignored .agentgrid.toml (not trusted); to apply it: agentgrid trust"
	store.Set("a-build", "a client's entry that is longer than the cap", "", "socket", 0)
	store.SetNotice("config", long, time.Minute)
	got := RenderStatusLine(StatusLineInput{Entries: store.Entries(), MaxEntryWidth: 20}, 160).String()
	want := " 0 running │ " + long + "  a client's entry th…"
	if strings.TrimRight(got, " ") != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
	// A client setting the same key replaces the notice with a plain entry.
	store.Set("config", long, "", "agentgrid", 0)
	for _, e := range store.Entries() {
		if e.Key == "config" && e.Notice {
			t.Error("a socket client's Set kept the notice flag")
		}
	}
}
