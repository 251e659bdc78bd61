package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/panes/vterm"
)

func init() {
	register(benchSection{
		Name:  "vterm",
		About: "terminal emulator vs tmux (120x40 pane, 10,000 lines of history; tmux cost = server CPU, agentgrid = CPU of 4 KiB Writes)",
		Run:   runVtermBench,
	})
}

const (
	vtCols, vtRows = 120, 40
	vtHistory      = 10000
	vtChunk        = 4 << 10
)

var vtKinds = []struct{ kind, label string }{
	{"color-log", "(a) coloured log"},
	{"plain-log", "(b) plain log"},
	{"tui", "(c) full-screen TUI repaints"},
	{"unicode", "(d) Unicode/CJK"},
	{"short-lines", "(e) short lines (yes/seq)"},
}

func runVtermBench(o benchOptions) ([]benchRow, error) {
	var rows []benchRow
	tm, tmuxErr := startBenchTmux("vterm", [2]string{"history-limit", strconv.Itoa(vtHistory)})
	if tmuxErr == nil {
		defer tm.close()
	}
	for _, k := range vtKinds {
		input := vterm.BenchInput(k.kind, o.MB<<20)
		if input == nil {
			return rows, fmt.Errorf("vterm.BenchInput has no input kind %q", k.kind)
		}
		var ag, tx []float64
		for i := 0; i < o.Runs; i++ {
			ag = append(ag, agentgridIngest(input))
			if tmuxErr == nil {
				mbs, err := tmuxIngest(tm, input)
				if err != nil {
					return rows, fmt.Errorf("tmux ingest of %s: %w", k.kind, err)
				}
				tx = append(tx, mbs)
			}
		}
		r := benchRow{Metric: "ingest " + k.label + ", MB per CPU-second", Agentgrid: fmt.Sprintf("%.1f", median(ag))}
		if tmuxErr == nil {
			r.Tmux = fmt.Sprintf("%.1f", median(tx))
			r.Ratio = ratio(median(ag), median(tx))
		}
		rows = append(rows, r)
	}

	agMem, lines := agentgridMemory(o.Runs)
	r := benchRow{Metric: fmt.Sprintf("memory per pane, 10,000 lines of 80-col coloured log (agentgrid keeps %d)", lines), Agentgrid: mib(agMem)}
	if tmuxErr == nil {
		txMem, txLines, err := tmuxMemory(o.Runs)
		if err != nil {
			return rows, err
		}
		r.Metric = fmt.Sprintf("memory per pane, 10,000 lines of 80-col coloured log (history kept: agentgrid %d, tmux %s)", lines, txLines)
		r.Tmux = mib(txMem)
		r.Ratio = ratio(agMem, txMem) + " (lower is better)"
	}
	rows = append(rows, r)

	allocs, bytesPer := allocsPerWrite()
	rows = append(rows, benchRow{Metric: "allocations per 4 KiB Write, plain text (steady state)", Agentgrid: fmt.Sprintf("%.2f (%.0f B)", allocs, bytesPer)})
	rows = append(rows, benchRow{Metric: "full 200x50 frame render (every row dirty)", Agentgrid: fmt.Sprintf("%.1f µs", renderFrame(o.Runs).Seconds()*1e6)})
	return rows, tmuxErr
}

func mib(b float64) string { return fmt.Sprintf("%.2f MiB", b/(1<<20)) }

func feedChunks(t *vterm.Terminal, input []byte) {
	for len(input) > 0 {
		n := min(vtChunk, len(input))
		_, _ = t.Write(input[:n])
		input = input[n:]
	}
}

// agentgridIngest returns MB (10^6 bytes) per CPU-second for feeding input
// to a fresh pane in 4 KiB writes.
func agentgridIngest(input []byte) float64 {
	t := vterm.New(vtCols, vtRows, vterm.WithScrollback(vtHistory))
	runtime.GC()
	start := selfCPU()
	feedChunks(t, input)
	cpu := selfCPU() - start
	runtime.KeepAlive(t)
	return float64(len(input)) / 1e6 / cpu.Seconds()
}

// tmuxIngest returns MB per CPU-second of the tmux server for the same bytes
// cat into a fresh pane of the same size.
func tmuxIngest(tm *benchTmux, input []byte) (float64, error) {
	file := filepath.Join(tm.dir, "input.bin")
	if err := os.WriteFile(file, input, 0o600); err != nil {
		return 0, fmt.Errorf("write the input file: %w", err)
	}
	p, err := tm.newFeedPane(vtCols, vtRows, file)
	if err != nil {
		return 0, err
	}
	defer p.kill()
	fifo, err := p.waitReady(10 * time.Second)
	if err != nil {
		return 0, err
	}
	before, err := procCPU(tm.pid)
	if err != nil {
		return 0, err
	}
	_ = fifo.Close() // releases the pane's cat
	if err := p.waitDone(2 * time.Minute); err != nil {
		return 0, err
	}
	after, err := procCPU(tm.pid)
	if err != nil {
		return 0, err
	}
	cpu := after - before
	if cpu <= 0 {
		return 0, fmt.Errorf("tmux used no measurable CPU; use a larger -mb")
	}
	return float64(len(input)) / 1e6 / cpu.Seconds(), nil
}

// agentgridMemory returns the median heap held by one pane after 10,000
// lines of 80-column coloured log, and the history it kept.
func agentgridMemory(runs int) (float64, int) {
	input := vterm.BenchColorLog80(vtHistory)
	var xs []float64
	lines := 0
	for i := 0; i < runs; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		t := vterm.New(vtCols, vtRows, vterm.WithScrollback(vtHistory))
		feedChunks(t, input)
		runtime.GC()
		runtime.ReadMemStats(&after)
		xs = append(xs, float64(after.HeapAlloc)-float64(before.HeapAlloc))
		lines = t.ScrollbackLen()
		runtime.KeepAlive(t)
	}
	return median(xs), lines
}

// tmuxMemory returns the median growth of a fresh tmux server's RSS from an
// empty 120x40 pane to the same pane holding the log, and tmux's history
// size. A fresh server per run keeps memory freed by earlier panes from
// hiding the growth.
func tmuxMemory(runs int) (float64, string, error) {
	input := vterm.BenchColorLog80(vtHistory)
	var xs []float64
	lines := ""
	for i := 0; i < runs; i++ {
		tm, err := startBenchTmux(fmt.Sprintf("mem%d", i), [2]string{"history-limit", strconv.Itoa(vtHistory)})
		if err != nil {
			return 0, "", err
		}
		growth, hist, err := tmuxMemoryOnce(tm, input)
		tm.close()
		if err != nil {
			return 0, "", err
		}
		xs = append(xs, growth)
		lines = hist
	}
	return median(xs), lines, nil
}

func tmuxMemoryOnce(tm *benchTmux, input []byte) (float64, string, error) {
	file := filepath.Join(tm.dir, "log.bin")
	if err := os.WriteFile(file, input, 0o600); err != nil {
		return 0, "", fmt.Errorf("write the input file: %w", err)
	}
	p, err := tm.newFeedPane(vtCols, vtRows, file)
	if err != nil {
		return 0, "", err
	}
	fifo, err := p.waitReady(10 * time.Second)
	if err != nil {
		return 0, "", err
	}
	before, err := procRSS(tm.pid)
	if err != nil {
		return 0, "", err
	}
	_ = fifo.Close()
	if err := p.waitDone(time.Minute); err != nil {
		return 0, "", err
	}
	after, err := procRSS(tm.pid)
	if err != nil {
		return 0, "", err
	}
	return float64(after - before), p.format("#{history_size}"), nil
}

// allocsPerWrite returns heap allocations and bytes per 4 KiB Write of plain
// log text once the history is full (steady state).
func allocsPerWrite() (allocs, bytesPer float64) {
	input := vterm.BenchInput("plain-log", 8<<20)
	t := vterm.New(vtCols, vtRows, vterm.WithScrollback(vtHistory))
	feedChunks(t, input[:4<<20]) // fill the history first
	rest := input[4<<20:]
	writes := len(rest) / vtChunk
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < writes; i++ {
		_, _ = t.Write(rest[i*vtChunk : (i+1)*vtChunk])
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(t)
	return float64(after.Mallocs-before.Mallocs) / float64(writes), float64(after.TotalAlloc-before.TotalAlloc) / float64(writes)
}

// renderFrame returns the median time to render all 50 rows of a 200x50
// pane after a full-screen repaint changed every row.
func renderFrame(runs int) time.Duration {
	const cols, rows = 200, 50
	t := vterm.New(cols, rows, vterm.WithScrollback(1000))
	frames := [2][]byte{fullFrame(cols, rows, 0), fullFrame(cols, rows, 1)}
	iters := 200 * runs
	xs := make([]float64, 0, iters)
	for i := 0; i < iters; i++ {
		_, _ = t.Write(frames[i%2])
		start := time.Now()
		for y := 0; y < rows; y++ {
			_ = t.RenderRow(y)
		}
		xs = append(xs, float64(time.Since(start)))
	}
	return time.Duration(median(xs))
}

// fullFrame repaints every cell with coloured, styled text so no cached row
// survives between frames.
func fullFrame(cols, rows, variant int) []byte {
	var b strings.Builder
	b.WriteString("\x1b[H")
	words := []string{"build", "agent", "pane", "render", "frame", "status", "queue", "ok"}
	for y := 0; y < rows; y++ {
		fmt.Fprintf(&b, "\x1b[%d;1H", y+1)
		n := 0
		for i := 0; n < cols; i++ {
			w := words[(y*7+i*3+variant)%len(words)]
			if n+len(w)+1 > cols {
				w = strings.Repeat("·", cols-n)
				b.WriteString(w)
				break
			}
			fmt.Fprintf(&b, "\x1b[%d;%dm%s \x1b[m", 31+(i+variant)%7, 40+(y+i)%8, w)
			n += len(w) + 1
		}
	}
	return []byte(b.String())
}
