package oneline

import (
	"fmt"
	"testing"
)

type part struct{ text, style string }

func truncateParts(ps []part, w int, tail string) []part {
	return Truncate(ps, w, tail,
		func(p part) string { return p.text },
		func(p part, text string) part { return part{text, p.style} })
}

func TestTruncate(t *testing.T) {
	line := []part{{"abc", "a"}, {"日本", "b"}, {"xyz", "c"}} // 3+4+3 = 10 cells
	cases := []struct {
		w    int
		tail string
		want []part
	}{
		{10, "…", line}, // fits: unchanged
		{20, "…", line},
		{9, "…", []part{{"abc", "a"}, {"日本", "b"}, {"x", "c"}, {"…", "c"}}},
		// The cut falls at a part's start: no empty part, the tail in its style.
		{8, "…", []part{{"abc", "a"}, {"日本", "b"}, {"…", "c"}}},
		{7, "…", []part{{"abc", "a"}, {"日", "b"}, {"…", "b"}}},
		// The cut falls in the middle of a wide character: it is left out.
		{5, "…", []part{{"abc", "a"}, {"…", "b"}}},
		{6, "…", []part{{"abc", "a"}, {"日", "b"}, {"…", "b"}}},
		{4, "", []part{{"abc", "a"}}},
		{2, "", []part{{"ab", "a"}}},
		// No room even for the tail: the tail alone.
		{0, "…", []part{{"…", "a"}}},
	}
	for _, c := range cases {
		got := truncateParts(line, c.w, c.tail)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Truncate(w=%d, tail=%q) = %v, want %v", c.w, c.tail, got, c.want)
		}
	}
}
