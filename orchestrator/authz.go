package orchestrator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/control"
)

// Who may do what through the control socket.
//
// agentgrid gives every process it starts a secret of its own in
// AGENTGRID_TOKEN (256 random bits); clients send it in the "token" member
// of each request, and the session maps it back to the agent. A claimed
// agent id (AGENTGRID_AGENT_ID, a method's "id") never identifies a caller.
//
//   - The main view, the [[hooks]] handlers, agentgrid itself and a process
//     outside the session (the user's own shell: same uid, no token, not a
//     descendant of the session) have full control.
//   - An agent reads, waits for, sends to and closes itself and the agents it
//     started (directly or through them), and signals (hook state, status
//     entries) only itself. [kinds.NAME] grants lets agents of a kind do more
//     to any agent; an agent never holds a grant the agent that started it
//     lacks.
//   - A request with a token this session did not give out, or one without a
//     token from a process that descends from the session, is refused.

// principal is one holder of a token.
type principal struct {
	agent  string // the agent's id; "" for the session's own hook handlers
	parent string // the agent whose token spawned it; "" when the user did
	full   bool
	grants map[string]bool
	kind   string
	// tools are the MCP tools it may use ([kinds.NAME] mcp_tools, capped
	// by its parent's); nil: every tool.
	tools map[string]bool
}

// authority maps tokens to principals. It is written by the reconciler and
// read by socket goroutines, hence its own lock.
type authority struct {
	mu      sync.RWMutex
	byToken map[string]*principal
	byID    map[string]*principal
}

func newAuthority() *authority {
	return &authority{byToken: map[string]*principal{}, byID: map[string]*principal{}}
}

// newToken returns 256 random bits in hex.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (it aborts the program instead)
	return hex.EncodeToString(b[:])
}

// add registers p under tok (from newToken) and returns it.
func (a *authority) add(tok string, p *principal) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.byToken[tok] = p
	if p.agent != "" {
		a.byID[p.agent] = p
	}
	return tok
}

func (a *authority) token(agent string) string {
	a.mu.RLock()
	defer a.mu.RUnlock()
	for tok, p := range a.byToken {
		if p.agent == agent {
			return tok
		}
	}
	return ""
}

// grantsFor are the grants of a new agent of kind started by parent ("" for
// the user): the kind's, but never more than a restricted parent holds.
func (a *authority) grantsFor(cfg config.Config, kind, parent string) map[string]bool {
	g := map[string]bool{}
	for _, name := range cfg.Kinds[kind].Grants {
		if name == config.GrantAll {
			for _, act := range config.Grants {
				if act != config.GrantAll {
					g[act] = true
				}
			}
			continue
		}
		g[name] = true
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if p := a.byID[parent]; p != nil && !p.full {
		maps.DeleteFunc(g, func(act string, _ bool) bool { return !p.grants[act] })
	}
	return g
}

// toolsFor are the MCP tools a new agent of kind started by parent may use:
// the kind's mcp_tools, never more than a restricted parent may; nil when
// neither restricts it.
func (a *authority) toolsFor(cfg config.Config, kind, parent string) map[string]bool {
	var t map[string]bool
	if list := cfg.Kinds[kind].MCPTools; list != nil {
		t = map[string]bool{}
		for _, name := range list {
			t[name] = true
		}
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if p := a.byID[parent]; p != nil && !p.full && p.tools != nil {
		if t == nil {
			return maps.Clone(p.tools)
		}
		maps.DeleteFunc(t, func(name string, _ bool) bool { return !p.tools[name] })
	}
	return t
}

// mayTool checks that agent id may use an MCP tool (control.ToolCaller);
// "" (the user) and unknown ids may.
func (a *authority) mayTool(id, tool string) error {
	a.mu.RLock()
	p := a.byID[id]
	a.mu.RUnlock()
	if p == nil {
		return nil
	}
	return caller{p: p, a: a}.MayTool(tool)
}

// MayTool implements control.ToolCaller: the caller's kind may limit the
// MCP tools (and the socket methods behind them) it uses.
func (c caller) MayTool(tool string) error {
	if c.p == nil || c.p.full || c.p.tools == nil || c.p.tools[tool] {
		return nil
	}
	allowed := "none"
	if len(c.p.tools) > 0 {
		allowed = strings.Join(slices.Sorted(maps.Keys(c.p.tools)), ", ")
	}
	return fmt.Errorf("agent %s may not use %s: agents of kind %q may use only %s ([kinds.%s] mcp_tools, capped by the agent that started it); add %q to that list to allow it",
		c.p.agent, tool, c.p.kind, allowed, c.p.kind, tool)
}

// caller is who sent a request: an agent (by its token), or someone with
// full control.
type caller struct {
	p *principal // nil: full control without a token
	a *authority
}

// Agent is the calling agent's id ("main" for the main view), or "" when
// the caller is not an agent.
func (c caller) Agent() string {
	if c.p == nil {
		return ""
	}
	return c.p.agent
}

// Full reports whether the caller may do anything.
func (c caller) Full() bool { return c.p == nil || c.p.full }

// May returns nil when the caller may do act to the agent target, and an
// error that says what is refused and how to allow it otherwise. An unknown
// target passes, so that the method reports it as not found.
func (c caller) May(act, target string) error {
	if c.Full() || c.p.grants[act] || target == c.p.agent {
		return nil
	}
	c.a.mu.RLock()
	_, known := c.a.byID[target]
	own := act != control.GrantSignal && c.a.descends(target, c.p.agent)
	c.a.mu.RUnlock()
	if !known || own {
		return nil
	}
	scope := "itself and the agents it started"
	if act == control.GrantSignal {
		scope = "itself"
	}
	return fmt.Errorf("agent %s may not %s agent %s: an agent may %s only %s; to allow more, add %q to grants of its kind in the config ([kinds.NAME] grants = [%q])",
		c.p.agent, verb(act), target, verb(act), scope, act, act)
}

// descends reports whether id was started by ancestor, directly or through
// agents it started. The caller holds a.mu.
func (a *authority) descends(id, ancestor string) bool {
	for p := a.byID[id]; p != nil && p.parent != ""; p = a.byID[p.parent] {
		if p.parent == ancestor {
			return true
		}
	}
	return false
}

// MayStatus checks status.set: an entry scoped to an agent, or keyed by an
// agent's id, speaks for that agent.
func (c caller) MayStatus(key, agent string) error {
	if c.Full() || c.p.grants[control.GrantSignal] {
		return nil
	}
	if agent != "" && agent != c.p.agent {
		return c.May(control.GrantSignal, agent)
	}
	if looksLikeAgentID(key) && key != c.p.agent {
		return fmt.Errorf("agent %s may not set the status entry %q: that key belongs to agent %s; use a key of its own, or add \"signal\" to grants of its kind in the config", c.p.agent, key, key)
	}
	return nil
}

// looksLikeAgentID is true for "main" and "a<number>", the ids the engine
// gives out (now or later).
func looksLikeAgentID(s string) bool {
	if s == control.MainID {
		return true
	}
	rest, ok := strings.CutPrefix(s, "a")
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

func verb(act string) string {
	switch act {
	case control.GrantRead:
		return "read"
	case control.GrantWait:
		return "wait for"
	case control.GrantSend:
		return "send to"
	case control.GrantClose:
		return "close"
	default:
		return "signal"
	}
}

// identify maps a request's token to its caller.
func (a *authority) identify(token string) (caller, bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	p, ok := a.byToken[token]
	if !ok {
		return caller{}, false
	}
	return caller{p: p, a: a}, true
}

// Authorize tells the control socket who sent a request. A request with a
// token acts as the agent (or handler) it was given to; one without a token
// has full control when it comes from outside the session and is refused
// from inside, so that an agent cannot drop its token to gain rights. A
// token this session did not give out is refused.
func (e *Engine) Authorize(id control.Identity) (control.Caller, error) {
	if id.Token == "" {
		if id.Peer.Inside() {
			return nil, fmt.Errorf("refused: this process runs inside the agentgrid session but its request carries no token; "+
				"agentgrid gives each agent its own in %s, so keep that variable in the environment of what the agent runs", control.EnvToken)
		}
		return control.FullControl, nil
	}
	c, ok := e.auth.identify(id.Token)
	if !ok {
		return nil, fmt.Errorf("refused: the request's token (%s) is not one this session gave out; "+
			"run the command from a process of this session, or from your own shell without the variable", control.EnvToken)
	}
	return c, nil
}

// IsAgentSession reports whether sid is the session id of an agent's
// process (the main view included): each agent leads its own session, so
// its pid is that id.
func (e *Engine) IsAgentSession(sid int) bool {
	snap := e.snap.Load()
	if snap.Main != nil && snap.Main.Agent.PID == sid && !snap.Main.Agent.State.Finished() {
		return true
	}
	for _, a := range snap.Agents {
		if a.PID == sid && !a.State.Finished() {
			return true
		}
	}
	return false
}

// AgentToken is the secret agentgrid gave agent id (AGENTGRID_TOKEN in its
// environment), or "" for an unknown id. For programs and tests that embed
// an engine and act as one of its agents.
func (e *Engine) AgentToken(id string) string { return e.auth.token(id) }

// grantList is a principal's grants in a stable order, for logs.
func grantList(g map[string]bool) []string { return slices.Sorted(maps.Keys(g)) }
