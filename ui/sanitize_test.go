package ui

import (
	"strings"
	"testing"
)

func TestSanitizeLine(t *testing.T) {
	tests := []struct {
		name, in, sgr, plain string
	}{
		{"plain", "hello world", "hello world", "hello world"},
		{"sgr kept", "\x1b[1;38;2;1:2:3mbold\x1b[m", "\x1b[1;38;2;1:2:3mbold\x1b[m", "bold"},
		{"osc 52 clipboard", "a\x1b]52;c;ZWNobyBwd25lZA==\x07b", "ab", "ab"},
		{"osc title with st", "a\x1b]0;pwned\x1b\\b", "ab", "ab"},
		{"osc 8 link", "\x1b]8;;https://x.invalid\x1b\\link\x1b]8;;\x1b\\", "link", "link"},
		{"dcs tmux passthrough", "a\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\b", "ab", "ab"},
		{"apc pm sos", "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\x", "x", "x"},
		{"unterminated osc", "a\x1b]0;title to the end", "a", "a"},
		{"cursor moves and erase", "\x1b[2J\x1b[1;1H\x1b[5Aa\x1b[K", "a", "a"},
		{"modes and reports", "\x1b[?1049h\x1b[?1000h\x1b[6n\x1b[>c\x1b[=5ma", "a", "a"},
		{"private sgr", "\x1b[?5mx", "x", "x"},
		{"esc alone", "\x1bc\x1b7\x1b(Bx\x1b", "x", "x"},
		{"c0 and del", "a\x07\x08\r\n\x00\x7fb\tc", "ab c", "ab c"},
		{"c1 as utf-8", "a\u009b2Jb\u009d0;t\u009cc", "a2Jb0;tc", "a2Jb0;tc"},
		{"raw 8-bit c1", "a\x9b2Jb", "a\uFFFD2Jb", "a\uFFFD2Jb"},
		{"bidi override", "a\u202eevil\u2066b", "aevilb", "aevilb"},
		{"wide and combining kept", "日本e\u0301", "日本e\u0301", "日本e\u0301"},
		{"control inside csi", "\x1b[3\x0b1mx", "1mx", "1mx"},
		{"long sgr dropped", "\x1b[" + strings.Repeat("1;", 100) + "mx", "x", "x"},
	}
	for _, tt := range tests {
		if got := SanitizeLine(tt.in, true); got != tt.sgr {
			t.Errorf("%s: SanitizeLine(%q, true) = %q, want %q", tt.name, tt.in, got, tt.sgr)
		}
		if got := SanitizeLine(tt.in, false); got != tt.plain {
			t.Errorf("%s: SanitizeLine(%q, false) = %q, want %q", tt.name, tt.in, got, tt.plain)
		}
	}
}
