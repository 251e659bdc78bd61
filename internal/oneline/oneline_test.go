package oneline

import (
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
