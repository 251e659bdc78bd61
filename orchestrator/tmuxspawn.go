package orchestrator

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/envlist"
	"github.com/agentgrid/agentgrid/internal/tmuxshim"
)

// tmuxArgv is the process a pane command means: none starts the shell
// (whose input is then held until it prints its prompt), a lone "cat" is
// the placeholder that reserves a pane and shows nothing, one word is a
// shell command line, several are the argv itself.
func (e *Engine) tmuxArgv(args []string) (argv []string, shell bool) {
	switch {
	case len(args) == 0:
		sh := envlist.Value(e.baseEnv, "SHELL")
		if sh == "" {
			sh = "/bin/sh"
		}
		return []string{sh}, true
	case len(args) == 1 && strings.TrimSpace(args[0]) == "cat":
		return []string{"cat"}, false
	case len(args) == 1:
		return []string{"/bin/sh", "-c", args[0]}, false
	}
	return slices.Clone(args), false
}

// tmuxEnv turns -e VAR=value words into variables a tool may set: never
// agentgrid's identity or the tmux variables agentgrid owns.
func tmuxEnv(words []string) map[string]string {
	out := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" || strings.ContainsAny(k, "\x00") || ownedVar(k) {
			continue
		}
		out[k] = v
	}
	return out
}

func ownedVar(k string) bool {
	return strings.HasPrefix(k, "AGENTGRID_") || k == "TMUX" || k == "TMUX_PANE" || k == "PATH"
}

// tmuxDir is a pane's working directory: -c, else the caller's.
func (e *Engine) tmuxDir(c *tmuxCall, dir string) string {
	switch {
	case dir == "":
		dir = c.cwd
	case !filepath.IsAbs(dir) && c.cwd != "":
		dir = filepath.Join(c.cwd, dir)
	}
	return dir
}

// tmuxNewPane runs split-window, new-window and new-session: each makes an
// agent, placed by agentgrid's layout and queue (direction and size are
// only hints), whose parent is the caller, and never moves the focus.
func (e *Engine) tmuxNewPane(c *tmuxCall, cmd tmuxshim.Command) *tmuxshim.Error {
	var group *tmuxGroup
	switch cmd.Name {
	case "split-window":
		t, err := e.tmuxPane(c, cmd.Opt('t'))
		if err != nil {
			return err
		}
		group = e.groupOf(t.id)
	case "new-window":
		sess, err := e.tmuxSession(c, cmd.Opt('t'))
		if err != nil {
			return err
		}
		if sess != 0 {
			group = e.groupByID(sess)
		} else {
			if group, err = e.newGroup(cmd.Opt('n'), true); err != nil {
				return err
			}
		}
	case "new-session":
		name := cmd.Opt('s')
		if name != "" {
			if _, err := e.tmuxSession(c, name); err == nil {
				return tmuxshim.Errorf("duplicate session: %s", name)
			}
		}
		var err *tmuxshim.Error
		if group, err = e.newGroup(name, false); err != nil {
			return err
		}
		if len(cmd.Args) == 0 {
			// A session to park panes in (join-pane -t name:): no agent.
			if cmd.Flags['P'] {
				c.out.WriteString(tmuxshim.Expand(printFormat(cmd), e.varsFor(c, nil, group.id)) + "\n")
			}
			return nil
		}
	}
	argv, shell := e.tmuxArgv(cmd.Args)
	req := control.SpawnRequest{Argv: argv, Cwd: e.tmuxDir(c, cmd.Opt('c')), Env: tmuxEnv(cmd.Opts['e']), Parent: c.caller.Agent()}
	info, err := e.spawn(req)
	if err != nil {
		return tmuxshim.Errorf("create pane failed: %v", err)
	}
	if group != nil {
		group.members = append(group.members, info.ID)
	}
	if shell {
		e.st.tmux.held[info.ID] = []byte{}
	}
	if cmd.Flags['P'] {
		a := e.st.agents[info.ID]
		c.out.WriteString(tmuxshim.Expand(printFormat(cmd), e.varsFor(c, a, windowOfGroup(group))) + "\n")
	}
	return nil
}

// newGroup makes a named group; an empty name gets tmux's numbering.
func (e *Engine) newGroup(name string, window bool) (*tmuxGroup, *tmuxshim.Error) {
	t := &e.st.tmux
	if len(t.groups) >= maxTmuxGroups {
		return nil, tmuxshim.Errorf("too many sessions and windows (%d); kill some with kill-session or kill-window", maxTmuxGroups)
	}
	t.groupSeq++
	if name == "" {
		name = strconv.Itoa(t.groupSeq)
	}
	g := &tmuxGroup{id: t.groupSeq, name: name, window: window}
	t.groups = append(t.groups, g)
	return g, nil
}

// tmuxRespawn restarts a pane's process in the same agent, slot and id.
// With -k a live process is killed first and the call waits until the new
// one runs; without a command the pane's own command runs again.
func (e *Engine) tmuxRespawn(c *tmuxCall, cmd tmuxshim.Command) (<-chan struct{}, *tmuxshim.Error) {
	a, err := e.tmuxPane(c, cmd.Opt('t'))
	if err != nil {
		return nil, err
	}
	if a.id == control.MainID {
		return nil, tmuxshim.Errorf("respawn pane failed: agentgrid's main view is not respawned by tmux commands")
	}
	if merr := c.caller.May(control.GrantClose, a.id); merr != nil {
		return nil, tmuxshim.Errorf("%v", merr)
	}
	live := a.pane != nil && !a.f.State.Finished()
	if live && !cmd.Flags['k'] {
		return nil, tmuxshim.Errorf("respawn pane failed: pane %s still active", paneID(a.id))
	}
	argv := slices.Clone(a.argv)
	if len(cmd.Args) > 0 {
		argv, _ = e.tmuxArgv(cmd.Args)
	}
	env := a.env
	if vars := tmuxEnv(cmd.Opts['e']); len(vars) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(vars)) {
			kv = append(kv, k+"="+vars[k])
		}
		env = withVars(env, kv...)
	}
	dir := a.cwd
	if d := cmd.Opt('c'); d != "" {
		dir = e.tmuxDir(c, d)
	}
	spec := &respawnSpec{argv: argv, cwd: dir, env: env, done: make(chan struct{})}
	delete(e.st.tmux.held, a.id)
	if !live {
		e.restart(a, spec)
		return nil, nil
	}
	// The exit of the old process starts the new one (respawnOnExit).
	e.st.tmux.respawn[a.id] = spec
	a.killWhy = "respawned"
	p, grace := a.pane, e.grace()
	e.killWG.Add(1)
	go func() { defer e.killWG.Done(); p.Kill(grace) }()
	return spec.done, nil
}

// respawnOnExit handles the exit of a process killed by respawn-pane -k:
// instead of ending the agent it starts the next command in its place.
func (e *Engine) respawnOnExit(a *agent, code int) bool {
	spec := e.st.tmux.respawn[a.id]
	if spec == nil {
		return false
	}
	delete(e.st.tmux.respawn, a.id)
	e.processEnded(a)
	e.log.Info("pane respawned", "agent", a.id, "old_exit", code, "argv", spec.argv)
	if a.closed || e.st.closing {
		close(spec.done)
		return false
	}
	e.restart(a, spec)
	return true
}

// restart makes a finished or not yet started agent pending again with a
// new command; the reconciler starts it in its slot (or it waits in the
// queue like any agent).
func (e *Engine) restart(a *agent, spec *respawnSpec) {
	defer close(spec.done)
	a.argv, a.cwd, a.env = spec.argv, spec.cwd, spec.env
	e.noteHookTimeout(a)
	if a.pane == nil && !a.f.State.Finished() {
		return // still waiting to start: it will run the new command
	}
	now := e.now()
	a.pane, a.pid, a.code, a.ended, a.started, a.killWhy = nil, 0, nil, time.Time{}, time.Time{}, ""
	a.f = fusion{State: agentstate.Pending, Why: "respawned", Source: sourceEngine, Since: now, Confirmed: now}
	if !a.visible && !a.queued {
		a.queued = true
		_ = e.st.queue.Push(queueEntry{ID: a.id, Seq: a.seq, Since: now, Reason: "respawned"})
	}
	e.reconcile()
}

// printFormat is the -F format of a command that prints its new pane (-P).
func printFormat(cmd tmuxshim.Command) string {
	if f := cmd.Opt('F'); f != "" {
		return f
	}
	return "#{session_name}:#{window_index}.#{pane_index}"
}
