package orchestrator

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentgrid/agentgrid/internal/envlist"
)

// withTmuxShim puts the session's tmux entry point (and agentgrid itself)
// first on PATH and
// points TMUX at this session ("<socket>,<pid>,0", the first field being
// where tmux clients connect). Without a shim the children see no TMUX at
// all (childBaseEnv drops an inherited one).
func (e *Engine) withTmuxShim(env []string) []string {
	o := e.opts
	if o.TmuxShim == "" || o.StateDir == "" || o.SocketPath == "" {
		return env
	}
	bin := filepath.Join(o.StateDir, "bin")
	if err := os.MkdirAll(bin, 0o700); err != nil {
		e.log.Warn("the tmux entry point could not be installed; panes run without it", "err", err)
		return env
	}
	// agentgrid itself goes beside tmux, so that "agentgrid spawn" in any
	// pane reaches this session with this session's own binary, also when
	// it was started by "go run" or from a path that is not on PATH.
	for _, name := range []string{"tmux", "agentgrid"} {
		link := filepath.Join(bin, name)
		_ = os.Remove(link)
		if err := os.Symlink(o.TmuxShim, link); err != nil {
			e.log.Warn("the session's entry points could not be installed; panes run without them", "err", err)
			return env
		}
	}
	e.tmuxOn = true
	path := bin
	if old := envlist.Value(env, "PATH"); old != "" {
		path += string(os.PathListSeparator) + old
	}
	return withVars(env, "PATH="+path, "TMUX="+o.SocketPath+","+strconv.Itoa(os.Getpid())+",0")
}

// paneVars are the per-pane variables of agent id: TMUX_PANE when the
// tmux entry point is on.
func (e *Engine) paneVars(id string) []string {
	if !e.tmuxOn {
		return nil
	}
	return []string{"TMUX_PANE=" + paneID(id)}
}
