package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/tmuxshim"
)

// The engine answers the tmux commands that agent tools run to spread work
// over panes (see internal/tmuxshim and docs/ARCHITECTURE.md): every pane a
// tool creates is an agent, placed by agentgrid's layout and queue, with the
// pane id %N of agent aN (%0 is the main view). Ids are never reused since
// agent numbers are not.

// tmuxState is what the tmux commands remember; owned by the reconciler.
type tmuxState struct {
	opts     map[string]map[string]string // per agent: pane options (@user ones included)
	win      map[string]string            // window and global options
	groups   []*tmuxGroup                 // new-session / new-window groups
	groupSeq int
	// held holds send-keys input for a shell that has not printed its
	// prompt yet; an entry exists while the agent is holding.
	held map[string][]byte
	// respawn is the command to start in place of a pane being killed.
	respawn map[string]*respawnSpec
}

// tmuxGroup is a named group of agents: a tmux session or window that a
// tool made (new-session, new-window), with ids $N and @N.
type tmuxGroup struct {
	id      int
	name    string
	window  bool // made by new-window in agentgrid's own session
	members []string
}

// respawnSpec is a pane's next command; done is closed once it started
// (or was queued for a slot).
type respawnSpec struct {
	argv []string
	cwd  string
	env  []string
	done chan struct{}
}

func (t *tmuxState) init() {
	if t.opts == nil {
		t.opts, t.win = map[string]map[string]string{}, map[string]string{}
		t.held, t.respawn = map[string][]byte{}, map[string]*respawnSpec{}
	}
}

// tmuxCall is one command's context: who asked, and from which pane.
type tmuxCall struct {
	caller control.Caller
	self   string // the caller's agent id: its token's, else $TMUX_PANE's
	cwd    string
	out    *strings.Builder
}

// Tmux runs one tmux command line (commands separated by ";") for the
// tmux entry point. It stops at the first failing command, as tmux does.
func (e *Engine) Tmux(ctx context.Context, c control.Caller, p control.TmuxParams) control.TmuxResult {
	var out strings.Builder
	res := control.TmuxResult{}
	call := tmuxCall{caller: c, cwd: p.Cwd, out: &out}
	for _, argv := range tmuxshim.SplitCommands(p.Argv) {
		cmd, perr := tmuxshim.Parse(argv)
		if perr != nil {
			res.Stderr, res.Exit = perr.Msg+"\n", 1
			break
		}
		var wait <-chan struct{}
		var terr *tmuxshim.Error
		if derr := e.do(func() {
			e.st.tmux.init()
			call.self = e.tmuxSelf(c, p.Pane)
			wait, terr = e.tmuxRun(&call, cmd)
			e.publish()
		}); derr != nil {
			terr = tmuxshim.Errorf("agentgrid: %v", derr)
		}
		if terr == nil && wait != nil {
			t := time.NewTimer(cmdTimeout)
			select {
			case <-wait:
			case <-ctx.Done():
				terr = tmuxshim.Errorf("%s: cancelled", cmd.Name)
			case <-t.C:
				terr = tmuxshim.Errorf("%s: the pane's process did not restart within %s", cmd.Name, cmdTimeout)
			}
			t.Stop()
		}
		if terr != nil {
			res.Stderr, res.Exit = terr.Msg+"\n", 1
			break
		}
	}
	res.Stdout = out.String()
	if p.Log {
		e.logTmux(p, res)
	}
	return res
}

var tmuxLogMu sync.Mutex

// logTmux appends one call to <state dir>/tmux-shim.log: the time, the
// caller's pane, the argv quoted, and the exit status.
func (e *Engine) logTmux(p control.TmuxParams, r control.TmuxResult) {
	if e.opts.StateDir == "" {
		return
	}
	q := make([]string, len(p.Argv))
	for i, w := range p.Argv {
		q[i] = strconv.Quote(w)
	}
	line := fmt.Sprintf("%s\tpane=%s\texit=%d\t%s\n", e.now().UTC().Format(time.RFC3339Nano), p.Pane, r.Exit, strings.Join(q, " "))
	tmuxLogMu.Lock()
	defer tmuxLogMu.Unlock()
	f, err := os.OpenFile(filepath.Join(e.opts.StateDir, "tmux-shim.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		e.log.Warn("the tmux shim log could not be written", "err", err)
		return
	}
	_, _ = f.WriteString(line)
	_ = f.Close()
}

// tmuxSelf is the caller's own pane: the agent its token names, else the
// pane in $TMUX_PANE, else the main view.
func (e *Engine) tmuxSelf(c control.Caller, pane string) string {
	if id := c.Agent(); id != "" && e.st.agents[id] != nil {
		return id
	}
	if id, ok := paneAgent(pane); ok && e.st.agents[id] != nil {
		return id
	}
	return control.MainID
}

// tmuxRun executes one parsed command on the reconciler goroutine. A
// non-nil channel makes the caller wait for it (a pane restarting).
func (e *Engine) tmuxRun(c *tmuxCall, cmd tmuxshim.Command) (<-chan struct{}, *tmuxshim.Error) {
	if cmd.NoOp {
		return nil, nil
	}
	switch cmd.Name {
	case "display-message":
		return nil, e.tmuxDisplay(c, cmd)
	case "show-options", "show-window-options":
		return nil, e.tmuxShowOptions(c, cmd)
	case "list-panes":
		return nil, e.tmuxListPanes(c, cmd)
	case "list-sessions", "list-windows":
		return nil, e.tmuxListGroups(c, cmd)
	case "split-window", "new-window", "new-session":
		return nil, e.tmuxNewPane(c, cmd)
	case "respawn-pane":
		return e.tmuxRespawn(c, cmd)
	case "send-keys":
		return nil, e.tmuxSendKeys(c, cmd)
	case "select-pane":
		return nil, e.tmuxSelectPane(c, cmd)
	case "set-option", "set-window-option":
		return nil, e.tmuxSetOption(c, cmd)
	case "kill-pane":
		return nil, e.tmuxKillPane(c, cmd)
	case "kill-window", "kill-session":
		return nil, e.tmuxKillGroup(c, cmd)
	case "capture-pane":
		return nil, e.tmuxCapture(c, cmd)
	case "has-session":
		_, err := e.tmuxSession(c, cmd.Opt('t'))
		return nil, err
	case "join-pane", "break-pane":
		return nil, e.tmuxJoinBreak(c, cmd)
	case "select-layout", "resize-pane":
		return nil, e.tmuxLayout(c, cmd)
	case "select-window":
		// A hint only: agentgrid's layout places panes; the target must exist.
		if t := cmd.Opt('t'); t != "" && !strings.HasPrefix(t, "%") {
			_, err := e.tmuxWindow(c, t)
			return nil, err
		}
		_, err := e.tmuxPane(c, cmd.Opt('t'))
		return nil, err
	}
	return nil, tmuxshim.Errorf("unknown command: %s", cmd.Name)
}
