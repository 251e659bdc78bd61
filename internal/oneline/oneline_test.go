package oneline

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 0, "plain"},
		{"  line one\nline two\r\n\tthree  ", 0, "line one line two three"},
		{"\x1b[31mred\x1b[0m text", 0, "red text"},
		{"title \x1b]0;evil\x07ok", 0, "title ok"},
		{"bell\x07 and \x00nul and \x7fdel", 0, "bell and nul and del"},
		{"bidi \u202eoverride\u202c end", 0, "bidi override end"},
		{"abcdefghij", 5, "abcd…"},
		{"abcde", 5, "abcde"},
		{"日本語のテキスト", 4, "日本語…"},
		{"👩‍💻 coder", 0, "👩‍💻 coder"},
		{"bad \xff utf8", 0, "bad \uFFFD utf8"},
		// Bidi controls, isolates and marks, zero-width characters.
		{"a\u202ab\u202bc\u202cd\u202de\u202ef", 0, "abcdef"},
		{"iso\u2066la\u2067te\u2068d\u2069 \u200emark\u200f \u061calm", 0, "isolated mark alm"},
		{"zero\u200bwidth\u200c join\u200der\u2060 word\ufeff", 0, "zerowidth joiner word"},
		{"\u202e\u200b\u2066", 0, ""},
		{"tag\U000e0041s", 0, "tags"},
		{"👩‍💻 and a\u200d💻 and 👍🏽‍💻", 0, "👩‍💻 and a💻 and 👍🏽‍💻"},
		{"cap \u202e" + strings.Repeat("x", 300), 10, "cap xxxxx…"},
		{"\n\n", 0, ""},
	}
	for _, tc := range cases {
		if got := Sanitize(tc.in, tc.max); got != tc.want {
			t.Errorf("Sanitize(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// TestCleanTextIsReturnedAsItIs checks the shortcut: whatever clean accepts,
// the full sanitiser leaves unchanged, and the labels a session redraws as
// they tick take the shortcut.
func TestCleanTextIsReturnedAsItIs(t *testing.T) {
	pieces := []string{"a", "Z", "0", " ", "  ", "ě", "ű", "●", "○", "·", "…", "⎇", "✓", "日本", "👩\u200d💻", "\u00a0", "\t", "\n", "\x1b[31m", "\x1b]0;t\x07",
		"\u009b", "\u0085", "\u00ad", "\u200b", "\u202e", "\u2028", "\ufeff", "\ufffd", "\xff", "\xc4", "\x7f", "~", "e\u0301", "[", "]"}
	rng := rand.New(rand.NewPCG(1, 2))
	checked, shortcut := 0, 0
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(7) + 1 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		for _, max := range []int{0, 3, 8} {
			checked++
			if !clean(s, max) {
				continue
			}
			shortcut++
			if got := sanitize(s, max); got != s {
				t.Fatalf("clean(%q, %d) but the sanitiser makes it %q", s, max, got)
			}
		}
	}
	if shortcut == 0 || shortcut == checked {
		t.Fatalf("the shortcut took %d of %d strings; want some and not all", shortcut, checked)
	}
	for _, s := range []string{"● running 12s", "○ idle <1m", "idle-16", "build-api", "tests 42/50", "⎇ agentgrid/fix-login", "✓ green", "Bash: go test ./..."} {
		if !clean(s, 0) {
			t.Errorf("clean(%q, 0) = false, want the shortcut for a label as drawn", s)
		}
		if n := testing.AllocsPerRun(100, func() { Sanitize(s, 0) }); n != 0 {
			t.Errorf("Sanitize(%q) allocates %v times, want 0", s, n)
		}
	}
}
