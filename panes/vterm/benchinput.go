package vterm

import (
	"fmt"
	"strconv"
)

// Benchmark inputs are generated here, outside the tests, so the benchmark
// tool can feed exactly the same bytes to tmux.

// BenchKinds lists the kinds BenchInput knows.
var BenchKinds = []string{"color-log", "plain-log", "tui", "unicode", "short-lines"}

// benchRand is a small deterministic generator (xorshift) so inputs are
// identical in every run and process.
type benchRand uint64

func (r *benchRand) next() uint64 {
	x := uint64(*r)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*r = benchRand(x)
	return x
}

func (r *benchRand) intn(n int) int { return int(r.next() % uint64(n)) }

var (
	benchLevels   = []string{"INFO", "WARN", "DEBUG", "ERROR", "TRACE"}
	benchLevelSGR = []string{"32", "33", "36", "1;31", "2"}
	benchServices = []string{"api.gateway", "auth.session", "db.pool", "cache.lru", "queue.worker", "http.router"}
	benchWords    = []string{"request", "completed", "user", "token", "refresh", "connection", "opened", "closed",
		"retry", "backoff", "payload", "bytes", "latency", "status", "handler", "path", "/v1/items", "ok"}
)

// BenchInput returns about size bytes of deterministic terminal output of
// the given kind: "color-log" (coloured log lines), "plain-log" (the same
// without colours), "tui" (full-screen 120x40 repaints) or "unicode" (CJK,
// emoji and combining marks) or "short-lines" (a flood of one- to
// six-character lines as `yes` and `seq` print them). Unknown kinds return
// nil.
func BenchInput(kind string, size int) []byte {
	r := benchRand(0x9e3779b97f4a7c15)
	out := make([]byte, 0, size+512)
	switch kind {
	case "color-log", "plain-log":
		color := kind == "color-log"
		for n := 0; len(out) < size; n++ {
			out = appendLogLine(out, &r, n, color, 0)
		}
	case "tui":
		for f := 0; len(out) < size; f++ {
			out = appendTUIFrame(out, &r, f, 120, 40)
		}
	case "unicode":
		for n := 0; len(out) < size; n++ {
			out = appendUnicodeLine(out, &r, n)
		}
	case "short-lines":
		out = appendShortLines(out, size)
	default:
		return nil
	}
	return out
}

// BenchColorLog80 returns lines coloured log lines, each exactly 80 columns
// wide, used to measure memory per pane.
func BenchColorLog80(lines int) []byte {
	r := benchRand(0x2545f4914f6cdd1d)
	out := make([]byte, 0, lines*120)
	for n := 0; n < lines; n++ {
		out = appendLogLine(out, &r, n, true, 80)
	}
	return out
}

// appendLogLine appends one log line; width > 0 pads or cuts the visible
// text to exactly width columns.
func appendLogLine(out []byte, r *benchRand, n int, color bool, width int) []byte {
	lvl := r.intn(len(benchLevels))
	svc := benchServices[r.intn(len(benchServices))]
	ts := fmt.Sprintf("2026-11-30T13:%02d:%02d.%03dZ", n/3600%60, n/60%60, n%1000)
	var text []byte
	text = append(text, ' ')
	nw := 4 + r.intn(10)
	for i := 0; i < nw; i++ {
		text = append(text, benchWords[r.intn(len(benchWords))]...)
		if r.intn(4) == 0 {
			text = append(text, '=')
			text = strconv.AppendInt(text, int64(r.intn(100000)), 10)
		}
		text = append(text, ' ')
	}
	visible := len(ts) + 1 + len(benchLevels[lvl]) + 1 + len(svc)
	if width > 0 {
		rest := width - visible
		for len(text) < rest {
			text = append(text, '.')
		}
		text = text[:max(rest, 0)]
	}
	if color {
		out = append(out, "\x1b[2m"...)
		out = append(out, ts...)
		out = append(out, "\x1b[0m \x1b["...)
		out = append(out, benchLevelSGR[lvl]...)
		out = append(out, 'm')
		out = append(out, benchLevels[lvl]...)
		out = append(out, "\x1b[0m \x1b[38;5;"...)
		out = strconv.AppendInt(out, int64(33+r.intn(180)), 10)
		out = append(out, 'm')
		out = append(out, svc...)
		out = append(out, "\x1b[0m"...)
	} else {
		out = append(out, ts...)
		out = append(out, ' ')
		out = append(out, benchLevels[lvl]...)
		out = append(out, ' ')
		out = append(out, svc...)
	}
	out = append(out, text...)
	return append(out, '\r', '\n')
}

// appendTUIFrame appends one full-screen repaint as a full-screen program
// would send it: synchronized update, home, every row positioned, styled
// and erased to the end, a status line, the cursor placed.
func appendTUIFrame(out []byte, r *benchRand, f, cols, rows int) []byte {
	out = append(out, "\x1b[?2026h\x1b[H"...)
	for y := 1; y < rows; y++ {
		out = append(out, "\x1b["...)
		out = strconv.AppendInt(out, int64(y), 10)
		out = append(out, ";1H"...)
		if y%2 == 0 {
			out = append(out, "\x1b[48;2;30;30;46m"...)
		}
		out = append(out, "\x1b[38;5;"...)
		out = strconv.AppendInt(out, int64(16+(y+f)%216), 10)
		out = append(out, "m"...)
		w := 0
		for w < cols-8 {
			word := benchWords[r.intn(len(benchWords))]
			if w+len(word)+1 > cols-8 {
				break
			}
			out = append(out, word...)
			out = append(out, ' ')
			w += len(word) + 1
		}
		out = append(out, "\x1b[1;33m"...)
		out = strconv.AppendInt(out, int64(r.intn(1000)), 10)
		out = append(out, "\x1b[0m\x1b[K"...)
	}
	out = append(out, "\x1b["...)
	out = strconv.AppendInt(out, int64(rows), 10)
	out = append(out, ";1H\x1b[7m frame "...)
	out = strconv.AppendInt(out, int64(f), 10)
	out = append(out, " | agentgrid bench \x1b[K\x1b[0m\x1b[5;10H\x1b[?2026l"...)
	return out
}

var (
	benchCJK   = []rune("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研")
	benchEmoji = []string{"😀", "🚀", "👍🏽", "🇯🇵", "👩‍💻", "❤️", "✅", "🔥"}
	benchComb  = []string{"e\u0301", "n\u0303", "u\u0308", "a\u030a", "c\u0327", "o\u030b"}
)

// appendUnicodeLine appends a line of mostly CJK text with some emoji,
// combining sequences and ASCII.
func appendUnicodeLine(out []byte, r *benchRand, n int) []byte {
	words := 6 + r.intn(20)
	for i := 0; i < words; i++ {
		switch k := r.intn(10); {
		case k < 6:
			for j := 0; j < 2+r.intn(6); j++ {
				out = appendRune(out, benchCJK[r.intn(len(benchCJK))])
			}
		case k < 7:
			out = append(out, benchEmoji[r.intn(len(benchEmoji))]...)
		case k < 8:
			out = append(out, benchComb[r.intn(len(benchComb))]...)
		default:
			out = append(out, benchWords[r.intn(len(benchWords))]...)
		}
		out = append(out, ' ')
	}
	if n%7 == 0 {
		out = append(out, "\x1b[35m"...)
		out = appendRune(out, benchCJK[r.intn(len(benchCJK))])
		out = append(out, "\x1b[0m"...)
	}
	return append(out, '\r', '\n')
}

// appendShortLines appends about size bytes alternating between blocks of
// `yes` output and blocks of `seq` output. Lines end in CR LF, as a PTY
// delivers them, so the bytes mean the same whether or not they pass
// through one.
func appendShortLines(out []byte, size int) []byte {
	const block = 1000
	n := 1
	for len(out) < size {
		for i := 0; i < block && len(out) < size; i++ {
			out = append(out, "y\r\n"...)
		}
		for i := 0; i < block && len(out) < size; i++ {
			out = strconv.AppendInt(out, int64(n), 10)
			out = append(out, '\r', '\n')
			n++
		}
	}
	return out
}
