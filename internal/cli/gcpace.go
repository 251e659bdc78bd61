package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcFloor is the least heap the session server grows to before it
// collects garbage: Go's own least heap goal. (32 MiB instead made the
// server's peak memory under a flood of bells 32 MB instead of 16 MB.)
const gcFloor = 4 << 20

// gcPaced is on while paceGC's pacing is (tests turn it off).
var gcPaced atomic.Bool

// paceGC makes the session server collect garbage when its heap has grown
// to twice what the last collection kept, as Go's default pacing does, but
// without the collection Go forces every two minutes in a process where
// none ran: an idle session allocates nothing, so every two minutes it
// marked its whole heap for nothing (10-13 ms of CPU with 16 panes here,
// three times what tmux uses in a minute). Go's pacing is turned off and a
// memory limit paces instead: after each collection the limit is set to
// what the runtime holds besides the heap plus twice the live heap (and
// plus gcFloor at least).
func paceGC() {
	gcPaced.Store(true)
	debug.SetGCPercent(-1)
	repaceGC()
}

// gcSentinel is garbage from birth: its cleanup runs after the collection
// that finds it.
type gcSentinel struct{ _ [64]byte } // not a tiny allocation, whose cleanup may never run

// repaceGC sets the memory limit from the last collection and arms the
// next call.
func repaceGC() {
	if !gcPaced.Load() {
		return
	}
	debug.SetMemoryLimit(gcLimit())
	runtime.AddCleanup(new(gcSentinel), func(struct{}) { repaceGC() }, struct{}{})
}

var gcMetrics = []string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
}

// gcLimit is the memory limit after a collection: the runtime's memory
// outside the heap, plus twice the heap the collection kept.
func gcLimit() int64 {
	s := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	v := func(i int) uint64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return s[i].Value.Uint64()
	}
	live, total := v(0), v(1)
	heap := v(2) + v(3) + v(4) + v(5)
	var other uint64
	if total > heap {
		other = total - heap
	}
	limit := other + max(2*live, gcFloor)
	if limit > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(limit)
}
