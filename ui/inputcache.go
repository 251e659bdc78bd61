package ui

import (
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// The per-second label refresh rebuilds the frame input of every pane even
// though, on an idle session, only the elapsed-time badges change. The
// helpers here keep that rebuild from redoing work whose inputs did not
// change: the status line is rendered again only when what it shows
// changed, status entries are read from the store once per refresh instead
// of once per pane, and unchanged per-pane entry lists and the pane slice
// are reused instead of re-allocated.

// statusKey is everything the status line's text depends on.
type statusKey struct {
	counts  agentstate.Counts
	entries []hooks.StatusEntry
	focus   string
	lead    string
	width   int
	maxW    int
}

// statusCache remembers the last rendered status line and its inputs.
type statusCache struct {
	key   statusKey
	line  line
	valid bool
}

// sameStatusEntries reports whether two entry lists draw the same status
// line: the line shows each entry's key order, text, agent and staleness.
func sameStatusEntries(a, b []hooks.StatusEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Key != y.Key || x.Text != y.Text || x.Agent != y.Agent || x.Stale != y.Stale || x.Notice != y.Notice {
			return false
		}
	}
	return true
}

// get returns the cached line when k matches the inputs it was rendered
// from, else renders it with render and remembers it.
func (c *statusCache) get(k statusKey, render func() line) line {
	if c.valid && c.key.counts == k.counts && c.key.focus == k.focus && c.key.lead == k.lead &&
		c.key.width == k.width && c.key.maxW == k.maxW && sameStatusEntries(c.key.entries, k.entries) {
		return c.line
	}
	c.line = render()
	// The store hands out a fresh slice on every call, so keeping it is
	// safe; copy anyway so that a caller reusing its slice cannot change
	// the key behind the cache's back.
	k.entries = append([]hooks.StatusEntry(nil), k.entries...)
	c.key, c.valid = k, true
	return c.line
}

// agentEntries returns the texts of the non-empty entries scoped to agent
// id, in key order (entries is ordered by key). When they equal prev, prev
// itself is returned, so an unchanged pane allocates nothing.
func agentEntries(entries []hooks.StatusEntry, id string, prev []string) []string {
	n := 0
	same := true
	for i := range entries {
		e := &entries[i]
		if e.Agent != id || e.Text == "" {
			continue
		}
		if n >= len(prev) || prev[n] != e.Text {
			same = false
			break
		}
		n++
	}
	if same && n == len(prev) {
		return prev
	}
	var out []string
	for i := range entries {
		e := &entries[i]
		if e.Agent == id && e.Text != "" {
			out = append(out, e.Text)
		}
	}
	return out
}

// prevPane returns the pane of the last frame input with id, looking first
// at index i (panes rarely move), or nil.
func (in *frameInput) prevPane(i int, id string) *paneFrame {
	if i < len(in.panes) && in.panes[i].id == id {
		return &in.panes[i]
	}
	for j := range in.panes {
		if in.panes[j].id == id {
			return &in.panes[j]
		}
	}
	return nil
}

// holdsView reports whether a pane of in shows its copy in v.
func (in *frameInput) holdsView(v *vterm.Frame) bool {
	if v == nil {
		return false
	}
	for i := range in.panes {
		if in.panes[i].view == v {
			return true
		}
	}
	return false
}

// maxFreeViews bounds the copy buffers kept for later copies.
const maxFreeViews = 64

// putFreeView keeps v, a copy buffer of the dropped input that the pane at
// its index did not need (it kept the copy it had), for a later copy: the
// new input's pane takes the kept copy's place in the slice, so v would
// otherwise be lost, and a pane that is copied again after frames without
// one would allocate a new buffer each time.
func (m *Model) putFreeView(v *vterm.Frame) {
	if v != nil && len(m.freeViews) < maxFreeViews {
		m.freeViews = append(m.freeViews, v)
	}
}

// takeFreeView returns a kept copy buffer, or a new one.
func (m *Model) takeFreeView() *vterm.Frame {
	n := len(m.freeViews)
	if n == 0 {
		return new(vterm.Frame)
	}
	v := m.freeViews[n-1]
	m.freeViews = m.freeViews[:n-1]
	return v
}
