package orchestrator

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/tmuxshim"
)

// paneID is agent id's tmux pane id: %0 for the main view, %N for aN.
func paneID(id string) string {
	if id == control.MainID {
		return "%0"
	}
	return "%" + strings.TrimPrefix(id, "a")
}

// paneAgent is the agent id of a tmux pane id.
func paneAgent(pane string) (string, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(pane, "%"))
	if !strings.HasPrefix(pane, "%") || err != nil || n < 0 {
		return "", false
	}
	if n == 0 {
		return control.MainID, true
	}
	return "a" + strconv.Itoa(n), true
}

// tmuxLive returns the agent of id when its pane exists for tmux: not closed.
func (e *Engine) tmuxLive(id string) *agent {
	a := e.st.agents[id]
	if a == nil || a.closed {
		return nil
	}
	return a
}

// groupOf is the group an agent was created in, or nil (agentgrid's window).
func (e *Engine) groupOf(id string) *tmuxGroup {
	for _, g := range e.st.tmux.groups {
		if slices.Contains(g.members, id) {
			return g
		}
	}
	return nil
}

func (e *Engine) groupByID(n int) *tmuxGroup {
	for _, g := range e.st.tmux.groups {
		if g.id == n {
			return g
		}
	}
	return nil
}

// windowPanes lists the panes of window n (0 = agentgrid's own: the main
// view and every agent outside a group, off-screen and queued ones too).
func (e *Engine) windowPanes(n int) []*agent {
	var out []*agent
	if n == 0 && e.st.main != nil && !e.st.main.closed {
		out = append(out, e.st.main)
	}
	for _, a := range e.st.order {
		if a.closed {
			continue
		}
		g := e.groupOf(a.id)
		if (g == nil && n == 0) || (g != nil && g.id == n) {
			out = append(out, a)
		}
	}
	return out
}

func windowOfGroup(g *tmuxGroup) int {
	if g == nil {
		return 0
	}
	return g.id
}

// tmuxSession resolves a session target ("", $N, name, name:...); 0 is
// agentgrid's own session.
func (e *Engine) tmuxSession(c *tmuxCall, t string) (int, *tmuxshim.Error) {
	if t == "" {
		if g := e.groupOf(c.self); g != nil && !g.window {
			return g.id, nil
		}
		return 0, nil
	}
	name, _, _ := strings.Cut(t, ":")
	name = strings.TrimPrefix(name, "=")
	if name == "" || name == e.opts.Session || name == "$0" {
		return 0, nil
	}
	for _, g := range e.st.tmux.groups {
		if !g.window && (g.name == name || "$"+strconv.Itoa(g.id) == name) {
			return g.id, nil
		}
	}
	return 0, tmuxshim.Errorf("can't find session: %s", name)
}

// tmuxWindow resolves a window target ("", @N, %N, session, session:win).
func (e *Engine) tmuxWindow(c *tmuxCall, t string) (int, *tmuxshim.Error) {
	switch {
	case t == "":
		return windowOfGroup(e.groupOf(c.self)), nil
	case strings.HasPrefix(t, "%"):
		a, err := e.tmuxPane(c, t)
		if err != nil {
			return 0, err
		}
		return windowOfGroup(e.groupOf(a.id)), nil
	case strings.HasPrefix(t, "@"):
		n, err := strconv.Atoi(t[1:])
		if err == nil && (n == 0 || e.groupByID(n) != nil) {
			return n, nil
		}
		return 0, tmuxshim.Errorf("can't find window: %s", t)
	}
	sess, win, hasWin := strings.Cut(t, ":")
	win, _, _ = strings.Cut(win, ".")
	if hasWin && win != "" && win != "0" {
		if strings.HasPrefix(win, "@") {
			return e.tmuxWindow(c, win)
		}
		for _, g := range e.st.tmux.groups {
			if g.window && g.name == win {
				return g.id, nil
			}
		}
		if n, err := strconv.Atoi(win); err == nil && e.groupByID(n) != nil {
			return n, nil
		}
		return 0, tmuxshim.Errorf("can't find window: %s", win)
	}
	if !hasWin {
		for _, g := range e.st.tmux.groups {
			if g.window && g.name == sess {
				return g.id, nil
			}
		}
	}
	n, err := e.tmuxSession(c, sess)
	if err != nil && !hasWin {
		return 0, tmuxshim.Errorf("can't find window: %s", t)
	}
	return n, err
}

// tmuxPane resolves a pane target: "" is the caller, %N a pane, anything
// else a window whose active (or first) pane is meant.
func (e *Engine) tmuxPane(c *tmuxCall, t string) (*agent, *tmuxshim.Error) {
	if t == "" {
		if a := e.tmuxLive(c.self); a != nil {
			return a, nil
		}
		return nil, tmuxshim.Errorf("can't find pane: %s", paneID(c.self))
	}
	if strings.HasPrefix(t, "%") {
		if id, ok := paneAgent(t); ok {
			if a := e.tmuxLive(id); a != nil {
				return a, nil
			}
		}
		return nil, tmuxshim.Errorf("can't find pane: %s", t)
	}
	w, err := e.tmuxWindow(c, t)
	if err != nil {
		return nil, err
	}
	ps := e.windowPanes(w)
	if len(ps) == 0 {
		return nil, tmuxshim.Errorf("can't find pane: %s", t)
	}
	_, rest, _ := strings.Cut(t, ".")
	if i, perr := strconv.Atoi(rest); perr == nil && i >= 0 && i < len(ps) {
		return ps[i], nil
	}
	for _, a := range ps {
		if a.id == e.st.focus {
			return a, nil
		}
	}
	return ps[0], nil
}

// geometry is a's content area in cells; a pane without a box (queued,
// off screen, hidden by a zoom) reports its terminal size placed just
// right of the window.
func (e *Engine) geometry(a *agent) (left, top, w, h int) {
	if c := a.box.Inset(1); !a.box.Empty() && !c.Empty() {
		return c.X, c.Y, c.W, c.H
	}
	w, h = a.cols, a.rows
	if w <= 0 || h <= 0 {
		w, h = offscreenCols, offscreenRows
	}
	return e.st.cols, 0, w, h
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// formatVars are the format variables of pane a (nil: no pane) in window w.
func (e *Engine) formatVars(a *agent, w int) tmuxshim.Vars {
	return func(name string) (string, bool) {
		s := &e.st
		if strings.HasPrefix(name, "@") {
			if a != nil {
				if v, ok := s.tmux.opts[a.id][name]; ok {
					return v, true
				}
			}
			v, ok := s.tmux.win[name]
			return v, ok
		}
		g := e.groupByID(w)
		sessID, sessName, winName := 0, e.opts.Session, "agentgrid"
		if g != nil {
			winName = g.name
			if !g.window {
				sessID, sessName = g.id, g.name
			}
		}
		switch name {
		case "session_id":
			return "$" + strconv.Itoa(sessID), true
		case "session_name":
			return sessName, true
		case "session_attached", "window_active":
			return b01(g == nil || !g.window || name == "session_attached"), true
		case "session_windows":
			return "1", true
		case "window_id":
			return "@" + strconv.Itoa(w), true
		case "window_index":
			return strconv.Itoa(w), true
		case "window_name":
			return winName, true
		case "window_width":
			return strconv.Itoa(s.cols), true
		case "window_height":
			return strconv.Itoa(s.rows), true
		case "window_panes":
			return strconv.Itoa(len(e.windowPanes(w))), true
		case "client_termtype":
			return e.outerTerm(), true
		case "pid":
			return strconv.Itoa(os.Getpid()), true
		case "version":
			return strings.TrimPrefix(tmuxshim.Version, "tmux "), true
		case "host", "host_short":
			h, _ := os.Hostname()
			return h, true
		}
		if a == nil {
			return "", false
		}
		left, top, pw, ph := e.geometry(a)
		switch name {
		case "pane_id":
			return paneID(a.id), true
		case "pane_index":
			return strconv.Itoa(slices.Index(e.windowPanes(w), a)), true
		case "pane_title":
			return a.displayTitle(), true
		case "pane_width":
			return strconv.Itoa(pw), true
		case "pane_height":
			return strconv.Itoa(ph), true
		case "pane_left":
			return strconv.Itoa(left), true
		case "pane_top":
			return strconv.Itoa(top), true
		case "pane_right":
			return strconv.Itoa(left + pw - 1), true
		case "pane_bottom":
			return strconv.Itoa(top + ph - 1), true
		case "pane_active":
			return b01(s.focus == a.id), true
		case "pane_current_path":
			return a.cwd, true
		case "pane_current_command":
			if len(a.argv) > 0 {
				return filepath.Base(a.argv[0]), true
			}
			return "", true
		case "pane_start_command":
			return strings.Join(a.argv, " "), true
		case "pane_pid":
			return strconv.Itoa(a.pid), true
		case "pane_dead":
			return b01(a.f.State.Finished()), true
		case "pane_dead_status":
			if a.code != nil {
				return strconv.Itoa(*a.code), true
			}
			return "", true
		}
		return "", false
	}
}

// varsFor is formatVars as caller c may see them: of a pane it may not
// read (see authz.go) only the ids, geometry and flags, never its title,
// command, directory or options.
func (e *Engine) varsFor(c *tmuxCall, a *agent, w int) tmuxshim.Vars {
	v := e.formatVars(a, w)
	if a == nil || c.caller.May(control.GrantRead, a.id) == nil {
		return v
	}
	return func(name string) (string, bool) {
		switch {
		case strings.HasPrefix(name, "@"), name == "pane_title", name == "pane_current_path",
			name == "pane_current_command", name == "pane_start_command", name == "pane_pid":
			return "", true
		}
		return v(name)
	}
}

// outerTerm is the terminal type agentgrid itself runs in.
func (e *Engine) outerTerm() string {
	for _, kv := range e.opts.Env {
		if v, ok := strings.CutPrefix(kv, "TERM="); ok && v != "" {
			return v
		}
	}
	return "xterm-256color"
}

func (e *Engine) tmuxDisplay(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return err
	}
	format := cmd.Opt('F')
	if format == "" && len(cmd.Args) > 0 {
		format = cmd.Args[0]
	}
	if !cmd.Flags['p'] {
		return nil // a message for the status line: nothing to print
	}
	c.out.WriteString(tmuxshim.Expand(format, e.varsFor(c, a, windowOfGroup(e.groupOf(a.id)))) + "\n")
	return nil
}

func (e *Engine) tmuxListPanes(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	format := cmd.Opt('F')
	if format == "" {
		format = "#{pane_index}: [#{pane_width}x#{pane_height}] #{pane_id}#{?pane_active, (active),}"
	}
	var windows []int
	switch {
	case cmd.Flags['a'] || cmd.Flags['s']:
		windows = append(windows, 0)
		for _, g := range e.st.tmux.groups {
			windows = append(windows, g.id)
		}
	default:
		w, err := e.tmuxWindow(c, cmd.Opt('t'))
		if err != nil {
			return err
		}
		windows = []int{w}
	}
	for _, w := range windows {
		for _, a := range e.windowPanes(w) {
			c.out.WriteString(tmuxshim.Expand(format, e.varsFor(c, a, w)) + "\n")
		}
	}
	return nil
}

func (e *Engine) tmuxListGroups(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	format := cmd.Opt('F')
	windows := []int{0}
	if cmd.Name == "list-sessions" {
		if format == "" {
			format = "#{session_name}: #{session_windows} windows (attached)"
		}
		for _, g := range e.st.tmux.groups {
			if !g.window {
				windows = append(windows, g.id)
			}
		}
	} else {
		if format == "" {
			format = "#{window_index}: #{window_name} (#{window_panes} panes)"
		}
		sess, err := e.tmuxSession(c, cmd.Opt('t'))
		if err != nil {
			return err
		}
		windows = nil
		if sess == 0 {
			windows = append(windows, 0)
		}
		for _, g := range e.st.tmux.groups {
			if (sess == 0 && g.window) || g.id == sess || cmd.Flags['a'] {
				windows = append(windows, g.id)
			}
		}
	}
	for _, w := range windows {
		var first *agent
		if ps := e.windowPanes(w); len(ps) > 0 {
			first = ps[0]
		}
		c.out.WriteString(tmuxshim.Expand(format, e.varsFor(c, first, w)) + "\n")
	}
	return nil
}

func (e *Engine) tmuxCapture(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return err
	}
	if merr := c.caller.May(control.GrantRead, a.id); merr != nil {
		return tmuxshim.Errorf("%v", merr)
	}
	if a.term == nil || !cmd.Flags['p'] {
		return nil // not started yet, or into a buffer nobody reads back
	}
	scroll := 0
	if st := cmd.Opt('S'); st == "-" {
		scroll = a.term.ScrollbackLen()
	} else if n, perr := strconv.Atoi(st); perr == nil && n < 0 {
		scroll = -n
	}
	c.out.WriteString(captureTerm(a.term, cmd.Flags['e'], scroll))
	return nil
}
