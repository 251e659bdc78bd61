package orchestrator

import (
	"slices"
	"strings"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
	"github.com/agentgrid/agentgrid/internal/tmuxshim"
	"github.com/agentgrid/agentgrid/layout"
)

// What a program may make the session remember through tmux commands is
// bounded, so that a loop of calls cannot grow the session without end.
const (
	tmuxTitleMax   = 120      // a title set with select-pane -T, in runes
	maxTmuxGroups  = 256      // sessions and windows made with new-session, new-window, break-pane
	maxTmuxOptions = 256      // options set per pane, and window/global ones
	maxOptionValue = 64 << 10 // one option's value, in bytes
	maxHeldInput   = 1 << 20  // send-keys input held for one starting shell
)

// tmuxMay checks that the caller may act on another pane (its own panes
// and those it started are always allowed; see authz.go).
func tmuxMay(c *tmuxCall, act string, a *agent) *tmuxshim.Error {
	if err := c.caller.May(act, a.id); err != nil {
		return tmuxshim.Errorf("%v", err)
	}
	return nil
}

// tmuxSendKeys writes one send-keys call to the pane as one input. It is a
// program's input, not the user's: it is no evidence for the agent's state.
// A shell that has not printed its prompt yet gets it once it has.
func (e *Engine) tmuxSendKeys(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return err
	}
	if err := tmuxMay(c, control.GrantSend, a); err != nil {
		return err
	}
	data, kerr := tmuxshim.SendKeysInput(cmd)
	if kerr != nil {
		return kerr
	}
	held, holding := e.st.tmux.held[a.id]
	switch {
	case data == "":
	case holding || (a.pane == nil && !a.f.State.Finished()):
		if len(held)+len(data) > maxHeldInput {
			return tmuxshim.Errorf("send-keys: %s holds more than %d bytes of input while it starts", paneID(a.id), maxHeldInput)
		}
		e.st.tmux.held[a.id] = append(held, data...)
	case a.pane != nil && !a.f.State.Finished():
		if _, werr := a.pane.Write([]byte(data)); werr != nil {
			return tmuxshim.Errorf("send-keys to %s failed: %v", paneID(a.id), werr)
		}
	}
	return nil
}

// flushHeld writes the input held for a's shell once it printed its prompt.
func (e *Engine) flushHeld(a *agent) {
	data, ok := e.st.tmux.held[a.id]
	if !ok || a.pane == nil {
		return
	}
	delete(e.st.tmux.held, a.id)
	if len(data) > 0 {
		if _, err := a.pane.Write(data); err != nil {
			e.log.Warn("held tmux input could not be written", "agent", a.id, "err", err)
		}
	}
}

func (e *Engine) tmuxSelectPane(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return err
	}
	if !cmd.Has('T') && !cmd.Has('P') {
		return nil // focus stays where the user put it
	}
	if err := tmuxMay(c, control.GrantSend, a); err != nil {
		return err
	}
	if cmd.Has('T') && a.id != control.MainID {
		a.title = oneline.Sanitize(cmd.Opt('T'), tmuxTitleMax)
		e.st.dirty = true
	}
	if cmd.Has('P') {
		return e.setPaneOption(a, "window-style", cmd.Opt('P'))
	}
	return nil
}

// storeOption sets name in m, within the bounds on count and size.
func storeOption(m map[string]string, name, value string) *tmuxshim.Error {
	if _, ok := m[name]; !ok && len(m) >= maxTmuxOptions {
		return tmuxshim.Errorf("too many options set (%d); unset some with set-option -u", maxTmuxOptions)
	}
	if len(value) > maxOptionValue {
		return tmuxshim.Errorf("option %s: the value is longer than %d bytes", name, maxOptionValue)
	}
	m[name] = value
	return nil
}

func (e *Engine) setPaneOption(a *agent, name, value string) *tmuxshim.Error {
	t := &e.st.tmux
	if t.opts[a.id] == nil {
		t.opts[a.id] = map[string]string{}
	}
	if err := storeOption(t.opts[a.id], name, value); err != nil {
		return err
	}
	// The border takes the pane's colour: its border style's foreground,
	// else the foreground of its window style (select-pane -P).
	a.accent = ""
	for _, n := range []string{"pane-border-style", "pane-active-border-style", "window-style"} {
		if fg := tmuxshim.StyleForeground(t.opts[a.id][n]); fg != "" {
			a.accent = fg
			break
		}
	}
	e.st.dirty = true
	return nil
}

// tmuxSetOption stores options: @user options are read back through
// formats; the rest (styles, remain-on-exit, main-pane-width ...) are kept
// and shown but do not change agentgrid's drawing.
func (e *Engine) tmuxSetOption(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	if len(cmd.Args) == 0 {
		return tmuxshim.Errorf("command %s: too few arguments (need at least 1)", cmd.Name)
	}
	name, value := cmd.Args[0], strings.Join(cmd.Args[1:], " ")
	var store map[string]string
	var pane *agent
	if cmd.Flags['p'] {
		a, err := e.tmuxPane(c, cmd.Opt('t'))
		if err != nil {
			return err
		}
		if err := tmuxMay(c, control.GrantSend, a); err != nil {
			return err
		}
		pane = a
		store = e.st.tmux.opts[a.id]
	} else {
		if t := cmd.Opt('t'); t != "" {
			if _, err := e.tmuxWindow(c, t); err != nil {
				return err
			}
		}
		store = e.st.tmux.win
	}
	old, set := store[name]
	switch {
	case cmd.Flags['u'] || cmd.Flags['U']:
		if store != nil {
			delete(store, name)
		}
		return nil
	case cmd.Flags['o'] && set:
		if cmd.Flags['q'] {
			return nil
		}
		return tmuxshim.Errorf("already set: %s", name)
	case cmd.Flags['F'] && pane != nil:
		value = tmuxshim.Expand(value, e.varsFor(c, pane, windowOfGroup(e.groupOf(pane.id))))
	case cmd.Flags['F']:
		value = tmuxshim.Expand(value, e.varsFor(c, nil, 0))
	}
	if cmd.Flags['a'] {
		value = old + value
	}
	if pane != nil {
		return e.setPaneOption(pane, name, value)
	}
	return storeOption(e.st.tmux.win, name, value)
}

func (e *Engine) tmuxShowOptions(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	var pane map[string]string
	if cmd.Flags['p'] || cmd.Opt('t') != "" {
		if t := cmd.Opt('t'); !cmd.Flags['p'] && t != "" && !strings.HasPrefix(t, "%") {
			if _, err := e.tmuxWindow(c, t); err != nil {
				return err
			}
		} else {
			a, err := e.tmuxPane(c, t)
			if err != nil {
				return err
			}
			pane = e.st.tmux.opts[a.id]
		}
	}
	lookup := func(name string) (string, bool) {
		switch name {
		case "mouse":
			return onOff(e.cfg.UI.Mouse), true
		case "focus-events":
			return "on", true
		}
		if v, ok := pane[name]; ok {
			return v, true
		}
		v, ok := e.st.tmux.win[name]
		return v, ok
	}
	print := func(name, v string) {
		if cmd.Flags['v'] {
			c.out.WriteString(v + "\n")
		} else {
			c.out.WriteString(name + " " + v + "\n")
		}
	}
	if len(cmd.Args) > 0 {
		if v, ok := lookup(cmd.Args[0]); ok {
			print(cmd.Args[0], v)
		}
		return nil
	}
	names := []string{"focus-events", "mouse"}
	for k := range pane {
		names = append(names, k)
	}
	for k := range e.st.tmux.win {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		v, _ := lookup(n)
		print(n, v)
	}
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// tmuxKillPane closes the agent; its id is retired for good.
func (e *Engine) tmuxKillPane(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return err
	}
	victims := []*agent{a}
	if cmd.Flags['a'] {
		victims = nil
		for _, o := range e.windowPanes(windowOfGroup(e.groupOf(a.id))) {
			if o != a && o.id != control.MainID {
				victims = append(victims, o)
			}
		}
	}
	for _, v := range victims {
		if v.id == control.MainID {
			return tmuxshim.Errorf("kill-pane: agentgrid's main view ends with the session, not with a tmux command")
		}
		if err := tmuxMay(c, control.GrantClose, v); err != nil {
			return err
		}
	}
	for _, v := range victims {
		e.forgetPane(v.id)
		_ = e.close(v.id)
	}
	return nil
}

func (e *Engine) forgetPane(id string) {
	t := &e.st.tmux
	delete(t.opts, id)
	delete(t.held, id)
	if spec := t.respawn[id]; spec != nil {
		delete(t.respawn, id)
		close(spec.done)
	}
}

// tmuxKillGroup closes every agent of a group a tool made.
func (e *Engine) tmuxKillGroup(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	var n int
	var err *tmuxshim.Error
	if cmd.Name == "kill-session" {
		n, err = e.tmuxSession(c, cmd.Opt('t'))
	} else {
		n, err = e.tmuxWindow(c, cmd.Opt('t'))
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return tmuxshim.Errorf("%s: agentgrid's own window ends when you quit agentgrid", cmd.Name)
	}
	members := e.windowPanes(n)
	for _, a := range members {
		if err := tmuxMay(c, control.GrantClose, a); err != nil {
			return err
		}
	}
	for _, a := range members {
		e.forgetPane(a.id)
		_ = e.close(a.id)
	}
	e.st.tmux.groups = slices.DeleteFunc(e.st.tmux.groups, func(g *tmuxGroup) bool { return g.id == n })
	return nil
}

// tmuxJoinBreak moves a pane between windows: join-pane into a group's
// window (-t claude-hidden:) or break-pane takes it off screen, where it
// keeps running; join-pane back into agentgrid's window (-t %0, -t @0)
// queues it for a slot again. The focus never moves.
func (e *Engine) tmuxJoinBreak(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	a, err := e.tmuxPane(c, cmd.Opt('s'))
	if err != nil {
		return err
	}
	if a.id == control.MainID {
		return tmuxshim.Errorf("%s: agentgrid's main view stays in its window", cmd.Name)
	}
	if err := tmuxMay(c, control.GrantSend, a); err != nil {
		return err
	}
	var dst *tmuxGroup
	if cmd.Name == "join-pane" {
		w, werr := e.tmuxWindow(c, cmd.Opt('t'))
		if werr != nil {
			return werr
		}
		dst = e.groupByID(w)
	} else {
		var gerr *tmuxshim.Error
		if dst, gerr = e.newGroup(cmd.Opt('n'), true); gerr != nil {
			return gerr
		}
	}
	for _, g := range e.st.tmux.groups {
		g.members = slices.DeleteFunc(g.members, func(id string) bool { return id == a.id })
	}
	if dst != nil {
		dst.members = append(dst.members, a.id)
		e.offScreen(a)
	} else {
		e.backOnScreen(a)
	}
	if cmd.Name == "break-pane" && cmd.Flags['P'] {
		c.out.WriteString(tmuxshim.Expand(printFormat(cmd), e.varsFor(c, a, windowOfGroup(dst))) + "\n")
	}
	return nil
}

// offScreen takes a out of the grid and the queue; it keeps running at its
// size. The user's show (the agents overlay) brings it back.
func (e *Engine) offScreen(a *agent) {
	s := &e.st
	if !a.visible && !a.queued {
		return
	}
	s.visible = slices.DeleteFunc(s.visible, func(id string) bool { return id == a.id })
	s.queue.Remove(a.id)
	a.visible, a.queued, a.box = false, false, layout.Rect{}
	e.reconcile() // the pass moves a focus or zoom it had elsewhere
}

// backOnScreen queues an off-screen agent for a slot, like a new one.
func (e *Engine) backOnScreen(a *agent) {
	if a.visible || a.queued || a.closed {
		return
	}
	if err := e.st.queue.Push(queueEntry{ID: a.id, Seq: a.seq, Since: e.now(), Reason: "back from off screen"}); err != nil {
		return
	}
	a.queued = true
	e.reconcile()
}
