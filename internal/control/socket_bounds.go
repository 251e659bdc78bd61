package control

import (
	"time"
)

// Ranges of the numbers the socket accepts. Out of range is an
// invalid-params error, never a silent overflow: 2^63-1 milliseconds
// overflowed time.Duration and timed out at once.
const (
	// MaxDuration bounds timeout_ms and ttl_ms: 30 days.
	MaxDuration = 30 * 24 * time.Hour
	// maxDurationMS is MaxDuration in milliseconds.
	maxDurationMS = int64(MaxDuration / time.Millisecond)
	// maxScrollback bounds agent.capture's scrollback (lines).
	maxScrollback = 10_000_000
	// maxSubagentDelta bounds a hook signal's subagent_delta.
	maxSubagentDelta = 1000
)

// durationParam checks a millisecond field and converts it.
func durationParam(name string, ms int64) (time.Duration, *RPCError) {
	if ms < 0 || ms > maxDurationMS {
		return 0, rpcErrorf(CodeInvalidParams, "invalid params: %s must be between 0 and %d (30 days), not %d", name, maxDurationMS, ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
