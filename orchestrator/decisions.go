package orchestrator

import (
	"slices"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/policy"
	"github.com/agentgrid/agentgrid/internal/worktree"
)

// decideSignalWait is how long Decide waits for the reconciler to apply
// the hook's signal before it answers anyway (on the wall clock, like
// cmdTimeout: it protects the caller, whatever time the engine is told).
const decideSignalWait = 50 * time.Millisecond

// policyRules turns the config's [[policies]] into the policy engine's rules.
func policyRules(cfg config.Config) []policy.Rule {
	rules := make([]policy.Rule, 0, len(cfg.Policies))
	for i, p := range cfg.Policies {
		rules = append(rules, policy.Rule{
			Name: config.PolicyName(i, p), On: agentstate.Point(p.On), Tools: p.Tools, Paths: p.Paths,
			Kinds: p.Kinds, Agents: p.Agents, Action: agentstate.Action(p.Action), Message: p.Message, Use: p.Use,
			Window: p.Within.Duration,
		})
	}
	return rules
}

// Decide answers an agent CLI's hook (control.DeciderBackend): the decision
// comes from the policies and the agent as the last snapshot shows it, not
// from the reconciler, so a busy engine never delays it; then the signal is
// applied as Signal does.
func (e *Engine) Decide(id, cli string, sig agentstate.Signal, ask agentstate.Ask) (agentstate.Decision, error) {
	var d agentstate.Decision
	if ask.Point != agentstate.PointStop {
		// The agent is at work again: a waiter from its last Stop goes
		// without waking it, and the notices go by this hook.
		e.rewakes.interrupt(id, control.RewakeTurn)
	}
	info, ok := e.Agent(id)
	live := ok && !info.State.Finished()
	if live && e.pol.Rules() > 0 {
		var warns []policy.Warning
		pa := policy.Agent{ID: info.ID, Kind: info.Kind, Cwd: info.Cwd}
		if info.Worktree != "" {
			pa.Worktree, pa.Repo = info.Worktree, worktree.RepoOf(info.Worktree)
		}
		d, warns = e.pol.DecideAll(pa, ask, e.now())
		for _, w := range warns {
			// Both agents see it in the status line, for as long as the
			// policy looks back.
			e.status.Set("overlap:"+w.Agent, w.Text, w.Agent, "policy", policy.DefaultOverlapWindow)
		}
		if d.Action != agentstate.ActionNone {
			e.log.Info("hook answered", "agent", id, "point", ask.Point, "tool", ask.Tool, "action", d.Action, "policy", d.Policy)
		}
	}
	if ask.Todos != nil {
		e.loops.noteTodos(id, *ask.Todos)
	}
	if ask.Point == agentstate.PointStop {
		// A loop that goes on answers the Stop; a policy's word at Stop
		// counts only when it does not.
		if ld, ok := e.loopOnStop(id, cli, ask); ok {
			d = ld
		}
	}
	if live {
		// What its children did since its last hook, if this answer can
		// carry it.
		d = e.noticeAnswer(id, cli, ask, d)
	}
	if !sig.Empty() {
		// The state goes through the reconciler. A busy one (a start that
		// hangs) must not hold the answer past the hook's budget, or a
		// block would turn into no decision: after a short wait the answer
		// goes out and the signal follows. Later hooks queue behind it.
		applied := make(chan error, 1)
		go func() { applied <- e.Signal(id, sig, cli) }()
		wait := time.NewTimer(decideSignalWait)
		defer wait.Stop()
		select {
		case err := <-applied:
			if err != nil {
				return agentstate.Decision{}, err
			}
		case <-wait.C:
			e.log.Warn("hook answered before its state was applied: the engine is busy", "agent", id, "event", sig.Event)
		}
	}
	if d.Action != agentstate.ActionBlock {
		// A refused prompt starts no turn, and a Stop a block keeps going
		// ends none.
		e.noteTurn(id, ask)
	}
	return d, nil
}

// liveAgent reports whether an agent is live in the last snapshot.
func (e *Engine) liveAgent(id string) bool {
	info, ok := e.Agent(id)
	return ok && !info.State.Finished()
}

// decisionsOf lists an agent's recorded decisions for Explain.
func (e *Engine) decisionsOf(id string) []control.Decided {
	var out []control.Decided
	for _, r := range e.pol.Records(id) {
		out = append(out, control.Decided{Time: r.Time, Point: string(r.Point), Tool: r.Tool, Action: string(r.Action), Policy: r.Policy, Reason: r.Reason})
	}
	if steps := e.loops.decisions(id); len(steps) > 0 {
		out = append(out, steps...)
		slices.SortStableFunc(out, func(a, b control.Decided) int { return a.Time.Compare(b.Time) })
	}
	return out
}
