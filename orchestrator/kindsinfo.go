package orchestrator

import (
	"maps"
	"slices"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// Kinds lists every kind and category of the session with its
// description, its agents running and waiting, and the limits that hold
// them with their usage now (session.kinds: `agentgrid kinds`, MCP
// list_kinds), so that whoever spawns can choose.
func (e *Engine) Kinds() control.KindsResult {
	var out control.KindsResult
	_ = e.do(func() { out = e.kinds() })
	return out
}

func (e *Engine) kinds() control.KindsResult {
	cfg := e.cfg
	res := control.KindsResult{Queued: e.st.queue.Len(), Kinds: []control.KindInfo{}}
	count := func(match func(a *agent) bool) (running, queued int) {
		for _, a := range e.st.order {
			if a.closed || !match(a) {
				continue
			}
			switch {
			case a.f.State == agentstate.Pending:
				queued++
			case a.f.State.Alive():
				running++
			}
		}
		return running, queued
	}
	for _, a := range e.st.order {
		if !a.closed && a.f.State == agentstate.Pending {
			res.Pending++
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Kinds)) {
		k := cfg.Kinds[name]
		in := control.KindInfo{Name: name, Description: k.Description, Provider: cfg.Provider(name, "")}
		in.Running, in.Queued = count(func(a *agent) bool { return a.kind == name })
		in.Limits = e.limitsOf(limitKey{Kind: name, Provider: in.Provider})
		res.Kinds = append(res.Kinds, in)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Categories)) {
		c := cfg.Categories[name]
		in := control.KindInfo{
			Name: name, Category: true, Kind: c.Kind, Model: c.Model, Provider: cfg.Provider(c.Kind, c.Model),
			Description: c.Description, Fallback: slices.Clone(c.Fallback),
		}
		in.Running, in.Queued = count(func(a *agent) bool { return a.route.category == name })
		in.Limits = e.limitsOf(limitKey{Kind: c.Kind, Model: c.Model, Provider: in.Provider})
		res.Kinds = append(res.Kinds, in)
	}
	return res
}

// limitsOf lists the limits that hold an agent counted by k, most
// specific first, with their usage now.
func (e *Engine) limitsOf(k limitKey) []control.LimitUsage {
	l := e.st.limits
	var out []control.LimitUsage
	for _, t := range []struct {
		table, value string
		caps, used   map[string]int
	}{
		{"model", k.Model, l.limits.Models, l.used.ByModel},
		{"provider", k.Provider, l.limits.Providers, l.used.ByProvider},
		{"kind", k.Kind, l.limits.Kinds, l.used.ByKind},
	} {
		if n := t.caps[t.value]; t.value != "" && n > 0 {
			out = append(out, control.LimitUsage{Name: limitName(t.table, t.value), Used: t.used[t.value], Max: n})
		}
	}
	if l.limits.Default > 0 {
		out = append(out, control.LimitUsage{Name: "limits.default", Used: l.used.All, Max: l.limits.Default})
	}
	return out
}

var _ control.KindsBackend = (*Engine)(nil)
