package vterm

import (
	"runtime"
	"testing"
)

const benchChunk = 4 << 10

// benchIngest feeds input in 4 KiB writes to a 120x40 terminal with
// 10,000 lines of scrollback.
func benchIngest(b *testing.B, kind string) {
	input := BenchInput(kind, 8<<20)
	t := New(120, 40, WithScrollback(10000))
	// Warm up: fill history so the steady state is measured.
	feed(t, input[:2<<20])
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		feed(t, input)
	}
}

func feed(t *Terminal, input []byte) {
	for len(input) > 0 {
		n := min(benchChunk, len(input))
		t.Write(input[:n])
		input = input[n:]
	}
}

func BenchmarkIngestColorLog(b *testing.B) { benchIngest(b, "color-log") }
func BenchmarkIngestPlainLog(b *testing.B) { benchIngest(b, "plain-log") }
func BenchmarkIngestTUI(b *testing.B)      { benchIngest(b, "tui") }
func BenchmarkIngestUnicode(b *testing.B)  { benchIngest(b, "unicode") }

// BenchmarkIngestShortLines is a flood of `yes` and `seq` output: every
// line scrolls, so per-line costs dominate.
func BenchmarkIngestShortLines(b *testing.B) { benchIngest(b, "short-lines") }

// BenchmarkWritePlain reports allocations per 4 KiB Write of plain text in
// steady state (the target is zero).
func BenchmarkWritePlain(b *testing.B) {
	input := BenchInput("plain-log", 4<<20)
	t := New(120, 40, WithScrollback(10000))
	feed(t, input)
	chunks := len(input) / benchChunk
	b.ReportAllocs()
	b.SetBytes(benchChunk)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % chunks
		t.Write(input[k*benchChunk : (k+1)*benchChunk])
	}
}

// BenchmarkMemoryColorLog80 reports the heap held by one pane after 10,000
// lines of 80-column coloured log at 120 columns.
func BenchmarkMemoryColorLog80(b *testing.B) {
	input := BenchColorLog80(10000)
	var t *Terminal
	var used uint64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		t = New(120, 40, WithScrollback(10000))
		feed(t, input)
		runtime.GC()
		runtime.ReadMemStats(&after)
		used = after.HeapAlloc - before.HeapAlloc
	}
	b.ReportMetric(float64(used), "bytes/pane")
	b.ReportMetric(float64(t.ScrollbackLen()), "history-lines")
	runtime.KeepAlive(t)
}

// BenchmarkRenderFrame200x50 renders every row after every row changed.
func BenchmarkRenderFrame200x50(b *testing.B) {
	t := New(200, 50, WithScrollback(1000))
	frame := appendTUIFrame(nil, new(benchRand), 0, 200, 50)
	frame2 := appendTUIFrame(nil, new(benchRand), 1, 200, 50)
	_ = frame2
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if i%2 == 0 {
			t.Write(frame)
		} else {
			t.Write(frame2)
		}
		b.StartTimer()
		for y := 0; y < 50; y++ {
			_ = t.RenderRow(y)
		}
	}
}

// BenchmarkResizeReflow measures a width change with a full history:
// every history line is re-wrapped.
func BenchmarkResizeReflow(b *testing.B) {
	t := New(120, 40, WithScrollback(10000))
	feed(t, BenchColorLog80(12000))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			t.Resize(70, 40)
		} else {
			t.Resize(120, 40)
		}
	}
}
