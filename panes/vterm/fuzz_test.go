package vterm

import (
	"github.com/charmbracelet/x/ansi"
	"testing"
)

// FuzzTerminal feeds arbitrary bytes in arbitrary chunks with resizes in
// between and checks the invariants: no panic, cursor on screen, every
// row exactly cols wide, bounded memory.
//
// Input layout: byte 0 and 1 pick the initial size; then a sequence of
// records: a control byte c, then min(c&0x3f, rest) bytes of output. When
// c&0xc0 == 0xc0 the next two bytes are a resize instead.
func FuzzTerminal(f *testing.F) {
	seeds := []string{
		"\x50\x18\x3fhello world\r\n\x1b[31mred\x1b[0m",
		"\x0a\x05\x20\x1b[2;4r\x1b[?6h\x1b[5;5H\x1bM\x1bD\x1b[3L\x1b[2M\x1b[S\x1b[T",
		"\x08\x03\x30中文字符\U0001F469\u200d\U0001F4bbe\u0301\xff\xfe\xc0",
		"\x14\x04\x3f\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\x1b]2;title\a\x1b]52;c;eA==\a\xc0\x05\x02",
		"\x14\x04\x3f\x1b[?1049h\x1b[2J\x1b[Halt\x1b[?1049l\xc0\x28\x0a\x10more text here\r\n",
		"\x06\x02\x3f\x1b[38:2::1:2:3;4:3;58;5;9m\x1b[1;2;3;4;5;7;8;9mx\x1b[b\x1b[999999b",
		"\x0a\x0a\x3f\x1bP$q q\x1b\\\x1b[>q\x1b[c\x1b[6n\x1b[?2026$p\x1b[>1u\x1b[?u\x1b[<u",
		"\x03\x03\x3f\x1b(0lqk\x0e\x0fx\x1b#8\x1b[4h\x1b[@ab\x1b[4l\x1b[2P\x1bc",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 16<<10 {
			return
		}
		term := New(int(data[0]%100)-2, int(data[1]%50)-2, WithScrollback(int(data[0])), WithReplyWriter(discard{}), WithClipboard(true))
		data = data[2:]
		for len(data) > 0 {
			c := data[0]
			data = data[1:]
			if c&0xc0 == 0xc0 && len(data) >= 2 {
				term.Resize(int(data[0]%120)-2, int(data[1]%60)-2)
				data = data[2:]
				fuzzCheck(t, term)
				continue
			}
			n := min(int(c&0x3f)+1, len(data))
			term.Write(data[:n])
			data = data[n:]
			checkInvariants(t, term)
		}
		fuzzCheck(t, term)
		// Exercise the read paths.
		_ = term.Text()
		_ = term.RenderView(term.ScrollbackLen()/2, nil)
		for i := 0; i < term.ScrollbackLen(); i++ {
			_ = term.HistoryLine(i, i%2 == 0)
		}
		_, _, _ = term.Search("a", 0, false)
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func fuzzCheck(t *testing.T, term *Terminal) {
	t.Helper()
	checkInvariants(t, term)
	cols, rows := term.Size()
	for y := 0; y < rows; y++ {
		if w := renderedWidth(term.RenderRow(y)); w != cols {
			t.Fatalf("row %d renders %d cells wide, want %d: %q", y, w, cols, term.RenderRow(y))
		}
	}
	term.mu.Lock()
	defer term.mu.Unlock()
	if term.hist.n > term.hist.max {
		t.Fatalf("history %d lines > max %d", term.hist.n, term.hist.max)
	}
	if len(term.p.str) > maxStringLen {
		t.Fatalf("string buffer %d bytes", len(term.p.str))
	}
	if len(term.tables.graphemes) > maxGraphemes || len(term.tables.extras) > maxExtras {
		t.Fatalf("side tables grew past their bounds")
	}
	if len(term.hist.buf) > 64<<20 {
		t.Fatalf("history buffer %d bytes", len(term.hist.buf))
	}
	if len(term.events) > maxPendingEvents {
		t.Fatalf("%d pending events", len(term.events))
	}
}

// renderedWidth measures a rendered row the way the outer renderer does.
func renderedWidth(s string) int { return ansi.StringWidth(s) }
