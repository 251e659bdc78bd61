// Package policy decides what agentgrid answers an agent CLI's hook: the
// [[policies]] of the config (block or hint at a tool, a prompt or a
// turn's end, for the tools and files they name) and the built-in
// delegation nudge. It keeps what the built-ins remember (the nudge's
// marks) and the decisions made, per agent, under its own lock: a decision
// is computed from the agent's snapshot and this state, never inside the
// engine's loop.
package policy

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// Built-in policies (`use = NAME`).
const (
	UseDelegationNudge = "delegation_nudge"
)

// MainAgent is the agent id of the main view, as `agents` names it.
const MainAgent = "main"

// Rule is one [[policies]] entry.
type Rule struct {
	Name    string
	On      agentstate.Point
	Tools   []string // empty: every tool
	Paths   []string // globs relative to the agent's cwd; empty: any call
	Kinds   []string // empty: every kind
	Agents  []string // agent ids ("main"); empty: every agent
	Action  agentstate.Action
	Message string
	Use     string // a built-in, or "" for a plain rule
	// Window is how far back the overlap built-in looks.
	Window time.Duration
}

// Agent is what a decision knows of the agent that asks (from the engine's
// snapshot).
type Agent struct {
	ID   string
	Kind string
	Cwd  string
	// Worktree is the git worktree the agent works in and Repo the
	// repository's main checkout, when it has one: the overlap built-in
	// counts a file of the worktree as the same file of the repository, so
	// agents editing it in different worktrees are flagged.
	Worktree, Repo string
}

// Record is one decision, for `agentgrid explain`.
type Record struct {
	Time   time.Time
	Point  agentstate.Point
	Tool   string
	Action agentstate.Action
	Policy string
	Reason string
}

// maxRecords is how many decisions are kept per agent.
const maxRecords = 20

// Engine decides. It is safe for concurrent use.
type Engine struct {
	rules []Rule

	mu      sync.Mutex
	marks   map[string]bool   // delegation nudge: file work since the last reminder
	edits   map[string][]edit // overlap: recent edits per absolute path
	live    func(id string) bool
	records map[string][]Record
}

// New returns an Engine for the rules, in the order given.
func New(rules []Rule) *Engine {
	return &Engine{rules: slices.Clone(rules), marks: map[string]bool{}, edits: map[string][]edit{}, records: map[string][]Record{}}
}

// Rules reports whether any rule is configured.
func (e *Engine) Rules() int { return len(e.rules) }

// Forget drops what the engine remembers about an agent that ended or
// closed (its nudge mark); its records stay for explain.
func (e *Engine) Forget(id string) {
	e.mu.Lock()
	delete(e.marks, id)
	e.mu.Unlock()
}

// Records returns the agent's decisions, oldest first.
func (e *Engine) Records(id string) []Record {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.records[id])
}

// Decide answers ask for agent a at now and records the decision when it
// is not none. Several blocks join their messages; hints join theirs, with
// the nudge's reminder last; a block wins over hints.
func (e *Engine) Decide(a Agent, ask agentstate.Ask, now time.Time) agentstate.Decision {
	d, _ := e.DecideAll(a, ask, now)
	return d
}

// DecideAll is Decide that also returns the overlap policy's warnings, one
// per agent concerned, each also recorded for that agent's explain.
func (e *Engine) DecideAll(a Agent, ask agentstate.Ask, now time.Time) (agentstate.Decision, []Warning) {
	if ask.Repeat {
		return agentstate.Decision{}, nil // a turn a block kept going ends now
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var blocks, hints, blockNames, hintNames []string
	var warns []Warning
	type noted struct {
		files  []string
		window time.Duration
	}
	var edited []noted
	nudge := ""
	for _, r := range e.rules {
		if !r.applies(a) {
			continue
		}
		if r.Use == UseOverlap {
			msg, w, files := e.overlap(r, a, ask, now)
			edited = append(edited, noted{files, r.Window})
			if msg == "" {
				continue
			}
			warns = append(warns, w...)
			if r.Action == agentstate.ActionBlock {
				blocks, blockNames = append(blocks, msg), append(blockNames, r.Name)
			} else {
				hints, hintNames = append(hints, msg), append(hintNames, r.Name)
			}
			continue
		}
		if r.Use == UseDelegationNudge {
			if text, ok := e.nudge(r, a, ask); ok {
				nudge = text
				hintNames = append(hintNames, r.Name)
			}
			continue
		}
		if r.On != ask.Point || !r.matchTool(ask.Tool) || !r.matchPaths(ask, a.Cwd) {
			continue
		}
		if r.Action == agentstate.ActionBlock {
			blocks, blockNames = append(blocks, r.Message), append(blockNames, r.Name)
		} else {
			hints, hintNames = append(hints, r.Message), append(hintNames, r.Name)
		}
	}
	var d agentstate.Decision
	switch {
	case len(blocks) > 0:
		// A refused prompt is not a turn: the nudge keeps its mark.
		d = agentstate.Decision{Action: agentstate.ActionBlock, Message: strings.Join(blocks, "\n"), Policy: strings.Join(blockNames, ",")}
	case len(hints) > 0 || nudge != "":
		if nudge != "" {
			hints = append(hints, nudge)
			e.marks[a.ID] = false
		}
		d = agentstate.Decision{Action: agentstate.ActionHint, Message: strings.Join(hints, "\n"), Policy: strings.Join(hintNames, ",")}
	}
	if d.Action != agentstate.ActionBlock {
		for _, n := range edited {
			for _, f := range n.files {
				e.noteEdit(f, a.ID, now, n.window)
			}
		}
	}
	if d.Action != agentstate.ActionNone {
		e.record(a.ID, Record{Time: now, Point: ask.Point, Tool: ask.Tool, Action: d.Action, Policy: d.Policy, Reason: d.Message})
	}
	for _, w := range warns {
		if w.Agent != a.ID {
			e.record(w.Agent, Record{Time: now, Point: ask.Point, Tool: ask.Tool, Action: "warn", Policy: UseOverlap, Reason: w.Text})
		}
	}
	return d, warns
}

func (e *Engine) record(id string, r Record) {
	rs := append(e.records[id], r)
	if len(rs) > maxRecords {
		rs = slices.Clone(rs[len(rs)-maxRecords:])
	}
	e.records[id] = rs
}

func (r Rule) applies(a Agent) bool {
	if len(r.Kinds) > 0 && !slices.Contains(r.Kinds, a.Kind) {
		return false
	}
	return len(r.Agents) == 0 || slices.Contains(r.Agents, a.ID)
}

// matchTool compares tool names without case: CLIs spell the same tool
// differently (Claude Code's "Edit", OpenCode's "edit").
func (r Rule) matchTool(tool string) bool {
	return len(r.Tools) == 0 || toolIn(r.Tools, tool)
}

func toolIn(tools []string, tool string) bool {
	return slices.ContainsFunc(tools, func(t string) bool { return strings.EqualFold(t, tool) })
}

// matchPaths reports whether one of the tool's paths, relative to the
// agent's cwd, matches one of the rule's globs. A rule without paths
// matches any call; a rule with paths never matches a call without one, nor
// a file outside the cwd.
func (r Rule) matchPaths(ask agentstate.Ask, agentCwd string) bool {
	if len(r.Paths) == 0 {
		return true
	}
	cwd := ask.Cwd
	if cwd == "" {
		cwd = agentCwd
	}
	for _, p := range ask.Paths {
		rel, ok := relPath(p, cwd)
		if !ok {
			continue
		}
		for _, g := range r.Paths {
			if Match(g, rel) {
				return true
			}
		}
	}
	return false
}

// relPath makes p relative to cwd, slash-separated; ok is false for a path
// outside cwd (or a relative one with no cwd to resolve it against).
func relPath(p, cwd string) (string, bool) {
	if !filepath.IsAbs(p) {
		p = filepath.Clean(p)
		return filepath.ToSlash(p), p != ".." && !strings.HasPrefix(p, "../")
	}
	if cwd == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(cwd), filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Match reports whether a slash-separated relative path matches a glob:
// `*`, `?` and `[...]` within one segment, `**` for any number of segments
// (none included). A glob ending in `/` or naming a directory does not
// match the files in it unless it says `/**`.
func Match(glob, p string) bool {
	return matchSegs(strings.Split(strings.Trim(glob, "/"), "/"), strings.Split(p, "/"))
}

func matchSegs(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if matchSegs(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, err := filepath.Match(g[0], p[0]); err != nil || !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}
