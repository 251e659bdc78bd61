package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestPaceGCFollowsTheLiveHeap: with the server's pacing, Go's own is off
// (so no collection is forced every two minutes), the limit starts at
// gcFloor or more, and after a collection that kept a large heap it is
// raised to twice that heap or more, so the heap may double before the
// next collection, as with Go's default pacing.
func TestPaceGCFollowsTheLiveHeap(t *testing.T) {
	oldPercent := debug.SetGCPercent(100)
	t.Cleanup(func() {
		gcPaced.Store(false)
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	})
	paceGC()
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Fatalf("Go's pacing is at GOGC=%d, want it off", p)
	}
	if l := debug.SetMemoryLimit(-1); l < gcFloor {
		t.Fatalf("the memory limit is %d, want at least %d", l, gcFloor)
	}
	kept := make([]byte, 3*gcFloor)
	for i := range kept {
		kept[i] = byte(i)
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for debug.SetMemoryLimit(-1) < int64(2*len(kept)) {
		if time.Now().After(deadline) {
			t.Fatalf("the memory limit is %d 10 s after a collection that kept %d bytes, want at least twice that", debug.SetMemoryLimit(-1), len(kept))
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond) // the cleanup runs in its own goroutine
	}
	runtime.KeepAlive(kept)
}
