package orchestrator

import (
	"math"
	"time"
)

// Ranges of the numbers the socket accepts. Out of range is an
// invalid-params error, never a silent overflow: 2^63-1 milliseconds
// overflowed time.Duration and timed out at once.
const (
	// maxDurationMS bounds timeout_ms and ttl_ms: 30 days.
	maxDurationMS = 30 * 24 * 60 * 60 * 1000
	// maxScrollback bounds agent.capture's scrollback (lines).
	maxScrollback = 10_000_000
	// maxSubagentDelta bounds a hook signal's subagent_delta.
	maxSubagentDelta = 1000
)

// durationParam checks a millisecond field and converts it.
func durationParam(name string, ms int64) (time.Duration, *RPCError) {
	if ms < 0 || ms > maxDurationMS {
		return 0, rpcErrorf(CodeInvalidParams, "invalid params: %s must be between 0 and %d (30 days), not %d", name, int64(maxDurationMS), ms)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// secondsDuration converts a number of seconds from an MCP client into a
// duration within [minD, maxD]; NaN, infinities and values out of range are
// clamped, never overflowed (1e-12 seconds must not mean "no limit").
func secondsDuration(s float64, minD, maxD time.Duration) time.Duration {
	switch {
	case math.IsNaN(s) || s <= 0:
		return minD
	case s >= maxD.Seconds():
		return maxD
	}
	return max(time.Duration(s*float64(time.Second)), minD)
}
