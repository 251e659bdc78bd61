package orchestrator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/worktree"
)

// spawnInWorktree makes the git worktree req asks for (outside the
// reconciler: git may take a while) and spawns the agent in it; a spawn
// that fails takes the fresh worktree and its branch away again.
func (e *Engine) spawnInWorktree(req control.SpawnRequest) (control.AgentInfo, error) {
	dir := req.Cwd
	if dir == "" {
		dir = e.cwd
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.cwd, dir)
	}
	name := req.Worktree.Name
	if name == "" {
		text := req.Title
		if text == "" && len(req.Argv) > 0 {
			text = filepath.Base(req.Argv[0])
		}
		if text == "" {
			text = req.Kind
		}
		var b [2]byte
		_, _ = rand.Read(b[:])
		name = worktree.NameFor(text, hex.EncodeToString(b[:]))
	}
	w, err := worktree.Create(dir, name)
	if err != nil {
		return control.AgentInfo{}, err
	}
	req.Cwd, req.Worktree = w.Cwd, nil
	var info control.AgentInfo
	derr := e.do(func() {
		info, err = e.spawn(req)
		if err != nil {
			return
		}
		if a := e.st.agents[info.ID]; a != nil {
			a.worktree, a.branch = w.Path, w.Branch
			info = e.infoOf(a)
			e.st.dirty = true
			e.publish()
		}
	})
	if derr != nil {
		err = derr
	}
	if err != nil {
		worktree.Discard(w)
		return control.AgentInfo{}, err
	}
	e.log.Info("agent in a worktree", "agent", info.ID, "worktree", w.Path, "branch", w.Branch)
	return info, nil
}

// RemoveWorktree removes the worktree agent id ran in, once the agent has
// finished, unless it has uncommitted changes; the branch stays. It
// returns the worktree's path.
func (e *Engine) RemoveWorktree(id string) (string, error) {
	info, ok := e.Agent(id)
	switch {
	case !ok:
		return "", fmt.Errorf("no agent with id %q in this session", id)
	case info.Worktree == "":
		return "", fmt.Errorf("agent %s has no worktree of its own", id)
	case !info.State.Finished():
		return "", fmt.Errorf("agent %s is still %s: close it first (agentgrid close --remove-worktree %s does both)", id, info.State, id)
	}
	if err := worktree.Remove(info.Worktree); err != nil {
		return info.Worktree, err
	}
	_ = e.do(func() {
		if a := e.st.agents[id]; a != nil && a.worktree == info.Worktree {
			a.worktree = ""
			e.st.dirty = true
			e.publish()
		}
	})
	e.log.Info("worktree removed", "agent", id, "worktree", info.Worktree, "branch", info.Branch)
	return info.Worktree, nil
}
