package orchestrator

import (
	"fmt"

	"github.com/agentgrid/agentgrid/internal/control"
)

// The family tree: every agent records its parent (the agent whose token
// made the spawn; "" for the user, "main" for the main view). These are the
// limits on its growth, checked on the reconciler before a spawn.

// depthOf is how deep an agent sits: the user's and the main view's
// agents are at 1, their children at 2; the main view itself and the user
// are at 0.
func (e *Engine) depthOf(id string) int {
	d := 0
	for seen := 0; id != "" && id != control.MainID && seen <= len(e.st.order); seen++ {
		a := e.st.agents[id]
		if a == nil {
			break
		}
		d++
		id = a.parent
	}
	return d
}

// liveDescendants counts the live (not finished) agents below id.
func (e *Engine) liveDescendants(id string) int {
	n := 0
	for _, a := range e.st.order {
		if a.f.State.Finished() || a.id == id {
			continue
		}
		if e.descends(a, id) {
			n++
		}
	}
	return n
}

// descends reports whether a is below ancestor ("main" and "" are roots).
func (e *Engine) descends(a *agent, ancestor string) bool {
	for seen := 0; a != nil && seen <= len(e.st.order); seen++ {
		if a.parent == ancestor && ancestor != "" {
			return true
		}
		if a.parent == "" || a.parent == control.MainID {
			return false
		}
		a = e.st.agents[a.parent]
	}
	return false
}

// checkFamily refuses a spawn by parent that would grow the tree beyond
// [agents] max_depth or give an agent more than max_descendants live
// descendants. The error names the limit.
func (e *Engine) checkFamily(parent string) error {
	limits := e.cfg.Agents
	if max := limits.MaxDepth; max > 0 {
		if d := e.depthOf(parent) + 1; d > max {
			return fmt.Errorf("spawn refused: the new agent would be at depth %d under %s, beyond [agents] max_depth = %d; let %s do the work itself or raise max_depth", d, parent, max, parent)
		}
	}
	if max := limits.MaxDescendants; max > 0 && parent != "" {
		for id := parent; id != ""; {
			if n := e.liveDescendants(id); n >= max {
				return fmt.Errorf("spawn refused: %s already has %d live descendants, the [agents] max_descendants limit; close some (agentgrid close --tree) or raise max_descendants", id, n)
			}
			if id == control.MainID {
				break
			}
			a := e.st.agents[id]
			if a == nil {
				break
			}
			id = a.parent
		}
	}
	return nil
}
