package cli

import (
	"os"
	"runtime/debug"
)

// serverGCPercent is the session server's GOGC. Its live heap is small
// (the panes' screens and scrollback, each client's frame: a few MiB) and
// a flood allocates little, so Go's default (the heap may grow to twice
// what is live, at least 4 MiB) mostly held memory that was already
// garbage: with half that headroom the server's peak RSS under a pane's
// flood of titles and notifications is 1-2 MiB lower, for a collection
// every few hundred ms more at most.
const serverGCPercent = 50

// tuneServerGC sets the session server's GOGC, unless the user set one
// in the environment.
func tuneServerGC() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(serverGCPercent)
}
