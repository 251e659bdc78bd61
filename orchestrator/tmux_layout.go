package orchestrator

import (
	"slices"
	"strconv"
	"strings"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/tmuxshim"
	"github.com/agentgrid/agentgrid/layout"
)

// tmuxLayout runs select-layout and resize-pane. The target must exist, as
// in tmux. Unless [tmux] follow_layout is on they change nothing: the
// user's layout stays. With it on, select-layout picks agentgrid's layout
// of the same name (tmux's -mirrored variants as the plain ones; -n and -p
// cycle) and applies the window's main-pane-width/-height as tmux does, and
// resize-pane -x/-y of the main view sets the main view's share in the
// main-* layouts. A layout string, -E, -o and the relative resizes
// (-L -R -U -D) stay hints.
func (e *Engine) tmuxLayout(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	var target *agent
	if t := cmd.Opt('t'); t != "" && !strings.HasPrefix(t, "%") {
		if _, err := e.tmuxWindow(c, t); err != nil {
			return err
		}
	} else {
		a, err := e.tmuxPane(c, t)
		if err != nil {
			return err
		}
		target = a
	}
	if !e.cfg.Tmux.FollowLayout {
		return nil
	}
	s := &e.st
	switch cmd.Name {
	case "select-layout":
		names := layout.Names()
		i := max(slices.Index(names, s.layoutName), 0)
		switch {
		case cmd.Has('n'):
			s.layoutName = names[(i+1)%len(names)]
		case cmd.Has('p'):
			s.layoutName = names[(i+len(names)-1)%len(names)]
		case len(cmd.Args) > 0:
			name := strings.TrimSuffix(cmd.Args[0], "-mirrored")
			if !layout.Valid(name) {
				return nil
			}
			s.layoutName = name
		default:
			return nil
		}
		// tmux applies main-pane-width/-height when a main-* layout is
		// selected (OMO sets it with set-window-option just before).
		switch s.layoutName {
		case layout.MainVertical:
			if pct, ok := tmuxSharePercent(s.tmux.win["main-pane-width"], s.cols); ok {
				s.mainSize = pct
			}
		case layout.MainHorizontal:
			if pct, ok := tmuxSharePercent(s.tmux.win["main-pane-height"], s.rows); ok {
				s.mainSize = pct
			}
		}
	case "resize-pane":
		if target == nil || target != s.main {
			return nil
		}
		var size string
		var total int
		switch s.layoutName {
		case layout.MainVertical:
			size, total = cmd.Opt('x'), s.cols
		case layout.MainHorizontal:
			size, total = cmd.Opt('y'), s.rows
		}
		pct, ok := tmuxSharePercent(size, total)
		if !ok {
			return nil
		}
		s.mainSize = pct
	default:
		return nil
	}
	e.reconcile()
	return nil
}

// tmuxSharePercent turns a resize-pane size ("40" cells or "40%") of a
// window total cells wide or high into the main view's share in percent,
// kept within the bounds of the [layout] main_size setting.
func tmuxSharePercent(size string, total int) (int, bool) {
	if size == "" {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(size, "%"))
	if err != nil || n <= 0 {
		return 0, false
	}
	if !strings.HasSuffix(size, "%") {
		if total <= 0 {
			return 0, false
		}
		n = n * 100 / total
	}
	return min(max(n, config.MinMainSize), config.MaxMainSize), true
}
