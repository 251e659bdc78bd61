package panes

import "time"

// BulkTokens lets tests hold every flood-parsing slot.
var BulkTokens = bulkTokens

// ReadBufSize is the size of one read from the PTY.
const ReadBufSize = readBufSize

// SetBurstGap makes every read within d of the previous one part of the same
// burst; it returns the function that restores the default.
func SetBurstGap(d time.Duration) (restore func()) {
	old := burstGap.Load()
	burstGap.Store(d)
	return func() { burstGap.Store(old) }
}

// BulkBurst is how much back-to-back output makes a pane a flood.
const BulkBurst = bulkBurst
