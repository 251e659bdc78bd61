package orchestrator

import (
	"fmt"

	"github.com/agentgrid/agentgrid/config"
)

// limiter counts running agents against [limits] default and
// [limits.kinds]. The engine asks it in creation order, so a released
// permit goes to the oldest pending agent that fits (FIFO hand-off).
type limiter struct {
	total  int
	kinds  map[string]int
	all    int
	byKind map[string]int
}

func newLimiter(l config.Limits) *limiter {
	return &limiter{total: l.Default, kinds: l.Kinds, byKind: map[string]int{}}
}

// blocked returns why an agent of kind may not start now, or "".
func (l *limiter) blocked(kind string) string {
	if l.total > 0 && l.all >= l.total {
		return fmt.Sprintf("concurrency limit: %d agents running (limits.default = %d)", l.all, l.total)
	}
	if n, ok := l.kinds[kind]; ok && kind != "" && n > 0 && l.byKind[kind] >= n {
		return fmt.Sprintf("concurrency limit: %d %s agents running (limits.kinds.%s = %d)", l.byKind[kind], kind, kind, n)
	}
	return ""
}

func (l *limiter) acquire(kind string) {
	l.all++
	l.byKind[kind]++
}

// release gives back a permit of kind; one that was never taken is ignored.
func (l *limiter) release(kind string) {
	if l.byKind[kind] == 0 {
		return
	}
	l.byKind[kind]--
	l.all--
}
