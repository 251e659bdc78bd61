package orchestrator

import (
	"fmt"
	"maps"
	"strings"

	"github.com/agentgrid/agentgrid/config"
)

// limitKey is what the concurrency limits count an agent by: its kind,
// the model it runs and the provider serving that model ("" when not
// known).
type limitKey struct {
	Kind, Model, Provider string
}

// limiter counts running agents against [limits]: default (all agents),
// kinds, providers and models. Every limit that matches an agent holds;
// blocked looks them up model, provider, kind, then default — the most
// specific first — and names the first that is full. The engine asks it
// in creation order, so a released permit goes to the oldest pending agent
// that fits (FIFO hand-off).
type limiter struct {
	limits config.Limits
	used   usage
}

func newLimiter(l config.Limits) *limiter {
	return &limiter{limits: l, used: usage{ByKind: map[string]int{}, ByModel: map[string]int{}, ByProvider: map[string]int{}}}
}

// limiterFor is a limiter that starts from a copy of used, for a decision.
func limiterFor(l config.Limits, used usage) *limiter {
	c := usage{All: used.All, ByKind: cloneCounts(used.ByKind), ByModel: cloneCounts(used.ByModel), ByProvider: cloneCounts(used.ByProvider)}
	return &limiter{limits: l, used: c}
}

func cloneCounts(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return maps.Clone(m)
}

// heldBy is one limit that is full: what it counts, its name in the
// config, and its usage.
type heldBy struct {
	what, key string
	n, max    int
}

// blocked returns why an agent counted by k may not start now, or "".
func (l *limiter) blocked(k limitKey) string {
	if h, ok := l.full(k); ok {
		return fmt.Sprintf("waiting for a slot: %s %d/%d (%s = %d)", h.what, h.n, h.max, h.key, h.max)
	}
	return ""
}

// full finds the first full limit of k, most specific first.
func (l *limiter) full(k limitKey) (heldBy, bool) {
	type table struct {
		name, value string
		caps        map[string]int
		used        map[string]int
	}
	for _, t := range []table{
		{"model", k.Model, l.limits.Models, l.used.ByModel},
		{"provider", k.Provider, l.limits.Providers, l.used.ByProvider},
		{"kind", k.Kind, l.limits.Kinds, l.used.ByKind},
	} {
		if n, ok := t.caps[t.value]; ok && t.value != "" && n > 0 && t.used[t.value] >= n {
			return heldBy{what: t.name + " " + t.value, key: limitName(t.name, t.value), n: t.used[t.value], max: n}, true
		}
	}
	if l.limits.Default > 0 && l.used.All >= l.limits.Default {
		return heldBy{what: "agents", key: "limits.default", n: l.used.All, max: l.limits.Default}, true
	}
	return heldBy{}, false
}

// limitName is the config key of a limit: limits.models."gpt-4.1".
func limitName(table, name string) string {
	if strings.ContainsAny(name, ". \"") || name == "" {
		name = fmt.Sprintf("%q", name)
	}
	return "limits." + table + "s." + name
}

func (l *limiter) acquire(k limitKey) {
	l.used.All++
	l.used.ByKind[k.Kind]++
	if k.Model != "" {
		l.used.ByModel[k.Model]++
	}
	if k.Provider != "" {
		l.used.ByProvider[k.Provider]++
	}
}

// release gives back a permit of k; one that was never taken is ignored.
func (l *limiter) release(k limitKey) {
	if l.used.ByKind[k.Kind] == 0 {
		return
	}
	l.used.ByKind[k.Kind]--
	l.used.All--
	if k.Model != "" && l.used.ByModel[k.Model] > 0 {
		l.used.ByModel[k.Model]--
	}
	if k.Provider != "" && l.used.ByProvider[k.Provider] > 0 {
		l.used.ByProvider[k.Provider]--
	}
}
