package orchestrator

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/internal/oneline"
)

// routing is how an agent's category or kind resolved, and what is left
// to try when its route fails: the same route again (its retry policy) or
// the next route (the category's fallbacks). Every step is kept for
// explain.
type routing struct {
	// category is the [categories.NAME] asked for; "" for a kind or a
	// plain command.
	category string
	// routes are the category's routes, or the kind's one; nil for a
	// plain command, which is never retried.
	routes []config.Route
	at     int // the route running now
	try    int // tries of routes[at], 1 once it was started
	// model and provider of the route running now (limits count them).
	model, provider string
	steps           []control.RouteStep
	// req is the spawn as asked, its prompt without any prefix: the next
	// route is resolved from it.
	req   control.SpawnRequest
	token string
	// failure is a recoverable error the CLI's hook reported; the exit
	// that follows (agentgrid ends the process) retries or falls back.
	failure string
	// retryAt holds a retry back until its backoff has passed.
	retryAt    time.Time
	retryTimer Timer
}

// maxRouteSteps bounds the steps explain keeps (20 tries of every route
// of a long fallback list would be a lot of lines).
const maxRouteSteps = 40

func (r *routing) step(now time.Time, format string, args ...any) {
	r.steps = append(r.steps, control.RouteStep{Time: now, Text: oneline.Sanitize(fmt.Sprintf(format, args...), 300)})
	if len(r.steps) > maxRouteSteps {
		r.steps = slices.Delete(r.steps, 1, len(r.steps)-maxRouteSteps+1) // keep how it began
	}
}

// limitKey is what the concurrency limits count a by.
func (a *agent) limitKey() limitKey {
	return limitKey{Kind: a.kind, Model: a.route.model, Provider: a.route.provider}
}

// routeText names a route: "claude, model claude-haiku-4-5".
func routeText(r config.Route) string {
	if r.Model == "" {
		return r.Kind
	}
	return r.Kind + ", model " + r.Model
}

// fallbackText names a route a category falls back to: a kind by its
// name, a category with what it resolves to.
func fallbackText(r config.Route) string {
	if r.Category == "" {
		return r.Kind
	}
	return "category " + r.Category + " → " + routeText(r)
}

// newRouting checks a spawn's kind or category and lists its routes.
func newRouting(cfg config.Config, req control.SpawnRequest) (routing, error) {
	rt := routing{category: req.Category, req: req}
	switch {
	case req.Kind != "" && req.Category != "":
		return rt, errors.New("give a kind or a category, not both")
	case req.Category != "":
		if len(req.Argv) > 0 {
			return rt, fmt.Errorf("category %q supplies the command; leave out the command (or use --kind)", req.Category)
		}
		routes, err := cfg.Routes(req.Category)
		if err != nil {
			return rt, err
		}
		rt.routes = routes
	case req.Kind != "":
		r := cfg.KindRoute(req.Kind)
		if req.Model != "" {
			if _, ok := cfg.Kinds[req.Kind]; ok {
				if err := cfg.CheckKindModel(req.Kind, req.Model); err != nil {
					return rt, fmt.Errorf("cannot start kind %s with model %q: %v", req.Kind, req.Model, err)
				}
			}
			r.Model = req.Model
		}
		rt.routes = []config.Route{r}
	}
	if req.Model != "" && req.Kind == "" {
		if req.Category != "" {
			return rt, fmt.Errorf("category %q picks its own model; leave the model out, or give a kind with the model instead", req.Category)
		}
		return rt, errors.New("a model needs a kind whose CLI takes one (claude, codex, gemini, opencode, aider); a plain command gets its model in its own arguments")
	}
	return rt, nil
}

// resolveRoute resolves the route running now into argv and the kind's
// environment, and records its kind, model and provider.
func resolveRoute(cfg config.Config, rt *routing, sess agentcli.Wiring) (kind string, argv, env []string, err error) {
	if len(rt.routes) == 0 {
		argv, env, err = resolveKind(cfg, rt.req, sess)
		return rt.req.Kind, argv, env, err
	}
	r := rt.routes[rt.at]
	req := rt.req
	req.Kind, req.Category, req.Prompt = r.Kind, "", rt.prompt()
	argv, env, err = resolveKindModel(cfg, req, r.Model, sess)
	if err != nil {
		return "", nil, nil, err
	}
	rt.model, rt.provider = r.Model, cfg.Provider(r.Kind, r.Model)
	return r.Kind, argv, env, nil
}

// routeGrants are the grants and the MCP tools of an agent spawned with
// rt: its kind's, and for a category only what every kind it may fall
// back to allows, so that a fallback never holds more than its own kind
// gives (nil tools: every tool).
func (e *Engine) routeGrants(rt routing, parent string) (map[string]bool, map[string]bool) {
	if len(rt.routes) == 0 {
		return e.auth.grantsFor(e.cfg, rt.req.Kind, parent), e.auth.toolsFor(e.cfg, rt.req.Kind, parent)
	}
	g := e.auth.grantsFor(e.cfg, rt.routes[0].Kind, parent)
	t := e.auth.toolsFor(e.cfg, rt.routes[0].Kind, parent)
	for _, r := range rt.routes[1:] {
		other := e.auth.grantsFor(e.cfg, r.Kind, parent)
		maps.DeleteFunc(g, func(act string, _ bool) bool { return !other[act] })
		switch ot := e.auth.toolsFor(e.cfg, r.Kind, parent); {
		case ot == nil:
		case t == nil:
			t = ot
		default:
			maps.DeleteFunc(t, func(name string, _ bool) bool { return !ot[name] })
		}
	}
	return g, t
}

// backoffFor is the wait before try n+1 of a route (n >= 1): its backoff,
// doubled for each try after the second, at most config.MaxBackoff.
func backoffFor(base time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < config.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, config.MaxBackoff)
}

// canMoveOn reports whether a failure of a's route is followed by another
// try or a fallback.
func (a *agent) canMoveOn(failure string) bool {
	rt := &a.route
	if len(rt.routes) == 0 || a.closed {
		return false
	}
	cur := rt.routes[rt.at]
	if failure != "" && slices.Contains(cur.RetryOn, failure) && rt.try < cur.MaxTries {
		return true
	}
	return rt.at+1 < len(rt.routes)
}

// moveOn follows a failure of a's route: the same route after its backoff
// when its policy retries failure and tries are left, else the next route
// that resolves. why says what failed ("rate_limit", "could not start:
// ..."). It reports whether the agent is pending again; false leaves the
// failure as its end.
func (e *Engine) moveOn(a *agent, failure, why string) bool {
	rt := &a.route
	if len(rt.routes) == 0 || a.closed || e.st.closing {
		return false
	}
	now := e.now()
	cur := rt.routes[rt.at]
	if failure != "" && slices.Contains(cur.RetryOn, failure) && rt.try < cur.MaxTries {
		wait := backoffFor(cur.Backoff, rt.try)
		rt.try++
		rt.step(now, "try %d of %s ended: %s; try %d of %d in %s", rt.try-1, routeText(cur), why, rt.try, cur.MaxTries, wait)
		e.repend(a, fmt.Sprintf("retrying after %s: try %d of %d in %s", why, rt.try, cur.MaxTries, wait))
		if wait > 0 {
			rt.retryAt = now.Add(wait)
			rt.retryTimer = e.clock.AfterFunc(wait, func() {
				_ = e.do(func() {
					if a.route.retryAt.IsZero() {
						return
					}
					a.route.retryAt = time.Time{}
					e.reconcile()
					e.publish()
				})
			})
		}
		return true
	}
	for rt.at+1 < len(rt.routes) {
		rt.at++
		rt.try = 1
		next := rt.routes[rt.at]
		kind, argv, env, err := resolveRoute(e.cfg, rt, e.wiring(a.id, rt.token))
		if err != nil {
			rt.step(now, "could not fall back to %s: %v", fallbackText(next), err)
			continue
		}
		// A start failure holds none; an exit gave it back.
		e.releasePermit(a)
		a.kind, a.argv, a.env = kind, argv, e.agentEnv(a.id, rt.token, env, rt.req)
		e.noteHookTimeout(a)
		rt.step(now, "fell back to %s: %s", fallbackText(next), why)
		e.repend(a, "fell back to "+fallbackText(next)+": "+why)
		return true
	}
	rt.step(now, "%s: no fallback left", why)
	return false
}

// repend makes a failed route's agent pending again for its next try:
// the reconciler starts it in its slot, or it waits like any agent.
func (e *Engine) repend(a *agent, why string) {
	a.pane, a.pid, a.code, a.ended, a.started, a.killWhy = nil, 0, nil, time.Time{}, time.Time{}, ""
	e.apply(a, evidence{Kind: evQueued, Why: why})
	a.f.Subagents, a.f.Interrupted, a.f.InterruptAt, a.f.LastHook = 0, false, time.Time{}, time.Time{}
	if !a.visible && !a.queued {
		a.queued = true
		e.st.queue.PushFront(queueEntry{ID: a.id, Seq: a.seq, Since: e.now(), Reason: why})
	}
}

// exitFailure is the recoverable error an exit of a shows: the one its
// CLI's hook reported, else what its last screen says of a process that
// failed; "" for any other exit (and for one the user asked for).
func exitFailure(a *agent, code int) string {
	f := a.route.failure
	a.route.failure = ""
	if a.closed || len(a.route.routes) == 0 {
		return ""
	}
	if f == "" && code != 0 && a.term != nil {
		f = agentcli.ClassifyFailure(a.term.Text())
	}
	return f
}

// hookFailure acts on a recoverable error that a's CLI reported through
// its hooks (a rate limit ends a turn, and the CLI waits for the next
// prompt): when a retry or a fallback follows, agentgrid ends the process,
// and its exit moves on.
func (e *Engine) hookFailure(a *agent, failure string) {
	if !slices.Contains(agentcli.Failures, failure) || a.pane == nil || !a.f.State.Alive() || a.route.failure != "" {
		return
	}
	if !a.canMoveOn(failure) {
		a.route.step(e.now(), "the CLI reported %s; no retry or fallback left", failure)
		return
	}
	a.route.failure = failure
	a.route.step(e.now(), "the CLI reported %s; ending it to move on", failure)
	p, grace := a.pane, e.grace()
	e.killWG.Add(1)
	go func() { defer e.killWG.Done(); p.Kill(grace) }()
}
