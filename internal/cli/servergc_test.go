package cli

import (
	"runtime/debug"
	"testing"
)

// TestServerGCPercent: the session server collects with half Go's default
// headroom, unless GOGC in its environment says otherwise.
func TestServerGCPercent(t *testing.T) {
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	t.Setenv("GOGC", "100")
	tuneServerGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("with GOGC set by the user the server set GOGC to %d", got)
	}
	t.Setenv("GOGC", "")
	tuneServerGC()
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Fatalf("the server's GOGC is %d, want %d", got, serverGCPercent)
	}
}
