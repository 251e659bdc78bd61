package ui

import (
	"errors"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
	"github.com/agentgrid/agentgrid/orchestrator"
)

// errReadOnly is what a read-only client's attempts to change the session
// get: the server refuses them, whatever the client sends.
var errReadOnly = errors.New("this client is attached read-only: it can look, focus, zoom, scroll and search, nothing else")

// clientEngine is the engine as one attached client sees it: the pokes of
// its own pump, the snapshot laid out at its own size with its own focus
// and zoom (the engine's while it is the client the session follows),
// and, for a read-only client, no way to change the session.
type clientEngine struct {
	*orchestrator.Engine
	h *Hub
	c *client
}

var _ engine = (*clientEngine)(nil)

func (e *clientEngine) Changed() <-chan struct{}       { return e.c.changed }
func (e *clientEngine) FocusOutput() <-chan struct{}   { return e.c.urgent }
func (e *clientEngine) AwaitedOutput() <-chan struct{} { return e.c.fresh }
func (e *clientEngine) StateChanged() <-chan struct{}  { return e.c.news }

// fannedOut tells run that the pump's channels above cover the status
// store's changes too.
func (e *clientEngine) fannedOut() {}

// Resize records the client's pane area; the engine takes it while this
// client is the one the sizes follow.
func (e *clientEngine) Resize(cols, rows int) {
	e.c.area.Store(uint64(cols)<<32 | uint64(rows))
	if e.h.isActive(e.c) {
		e.Engine.Resize(cols, rows)
	}
}

func (e *clientEngine) Input(id string, data []byte) error {
	if e.c.readOnly {
		return errReadOnly
	}
	return e.Engine.Input(id, data)
}

func (e *clientEngine) Send(id string, data []byte) error {
	if e.c.readOnly {
		return errReadOnly
	}
	return e.Engine.Send(id, data)
}

func (e *clientEngine) Close(id string) error {
	if e.c.readOnly {
		return errReadOnly
	}
	return e.Engine.Close(id)
}

func (e *clientEngine) Show(id string) error {
	if e.c.readOnly {
		return errReadOnly
	}
	return e.Engine.Show(id)
}

func (e *clientEngine) Spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	if e.c.readOnly {
		return control.AgentInfo{}, errReadOnly
	}
	return e.Engine.Spawn(req)
}

func (e *clientEngine) CycleLayout() {
	if !e.c.readOnly {
		e.Engine.CycleLayout()
	}
}

// Focus moves the engine's focus while this client is the one the
// session follows (a read-write client that typed last), else this
// client's own.
func (e *clientEngine) Focus(id string) {
	if !e.c.readOnly && e.h.isActive(e.c) {
		e.Engine.Focus(id)
		return
	}
	e.c.mu.Lock()
	e.c.focus = id
	e.c.mu.Unlock()
}

// ToggleZoom is Focus's counterpart for the zoom.
func (e *clientEngine) ToggleZoom() {
	if !e.c.readOnly && e.h.isActive(e.c) {
		e.Engine.ToggleZoom()
		return
	}
	e.c.mu.Lock()
	e.c.zoom = !e.c.zoom
	e.c.mu.Unlock()
}

// Snapshot is the engine's snapshot laid out for this client: at its size,
// with the engine's focus and zoom while it is the client the session
// follows, else its own.
func (e *clientEngine) Snapshot() orchestrator.Snapshot {
	s := e.Engine.Snapshot()
	v := e.c.area.Load()
	cols, rows := int(v>>32), int(uint32(v))
	focus, zoom := s.Focus, s.Zoomed
	if e.c.readOnly || !e.h.isActive(e.c) {
		e.c.mu.Lock()
		if e.c.focus != "" && hasPane(s, e.c.focus) {
			focus = e.c.focus
		}
		zoom = e.c.zoom
		e.c.mu.Unlock()
	}
	if cols == s.Cols && rows == s.Rows && focus == s.Focus && zoom == s.Zoomed {
		return s
	}
	return localize(s, cols, rows, focus, zoom, e.h.cfg.Layout.MainSize, e.h.cfg.Layout.MinAgentWidth, e.h.cfg.Layout.MinAgentHeight)
}

// hasPane reports whether id holds a slot of the snapshot or is its main
// view.
func hasPane(s orchestrator.Snapshot, id string) bool {
	if id == control.MainID {
		return s.Main != nil
	}
	for _, ps := range [][]orchestrator.PaneView{s.Panes, s.Hidden} {
		for i := range ps {
			if ps[i].Agent.ID == id {
				return true
			}
		}
	}
	return false
}

// localize lays the snapshot's panes out again for an area of cols x rows
// with this focus and zoom: the same panes in the same slots and layout,
// each box where this client's size puts it. The panes' terminals keep
// the engine's size; composition draws each one into its box.
func localize(s orchestrator.Snapshot, cols, rows int, focus string, zoom bool, mainSize, minW, minH int) orchestrator.Snapshot {
	byID := make(map[string]orchestrator.PaneView, len(s.Panes)+len(s.Hidden))
	for _, ps := range [][]orchestrator.PaneView{s.Panes, s.Hidden} {
		for _, p := range ps {
			byID[p.Agent.ID] = p
		}
	}
	slots := make([]orchestrator.PaneView, 0, len(byID))
	for _, id := range s.Slots {
		if p, ok := byID[id]; ok {
			slots = append(slots, p)
			delete(byID, id)
		}
	}
	for _, ps := range [][]orchestrator.PaneView{s.Panes, s.Hidden} {
		for _, p := range ps {
			if _, ok := byID[p.Agent.ID]; ok {
				slots = append(slots, p) // not in Slots (a snapshot made by hand)
				delete(byID, p.Agent.ID)
			}
		}
	}
	hasMain := s.Main != nil
	lo := layout.Options{Name: s.Layout, MainSize: mainSize, MinAgentWidth: minW, MinAgentHeight: minH, HasMain: hasMain, Zoom: -1}
	plan := layout.Compute(layout.Rect{W: cols, H: rows}, len(slots), lo)
	zi := -1
	if zoom {
		if focus == control.MainID && hasMain {
			zi = 0
		}
		for i := range slots {
			if slots[i].Agent.ID == focus && i < len(plan.Slots) {
				zi = i + 1
			}
		}
	}
	plan = plan.WithZoom(zi, hasMain)
	out := s
	out.Cols, out.Rows, out.Focus, out.Zoomed = cols, rows, focus, plan.Zoomed >= 0
	out.TooSmall, out.Capacity = plan.TooSmall, plan.Capacity
	out.Panes, out.Hidden = nil, nil
	if hasMain {
		m := *s.Main
		m.Box = plan.Main
		out.Main = &m
	}
	for i := range slots {
		p := slots[i]
		if i < len(plan.Slots) && !plan.Slots[i].Empty() {
			p.Box = plan.Slots[i]
			out.Panes = append(out.Panes, p)
		} else {
			p.Box = layout.Rect{}
			out.Hidden = append(out.Hidden, p)
		}
	}
	return out
}
