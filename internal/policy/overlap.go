package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
)

// UseOverlap is the built-in that warns when two live agents edit the same
// file within its window.
const UseOverlap = "overlap"

// DefaultOverlapWindow is how far back the overlap policy looks when its
// rule gives no window.
const DefaultOverlapWindow = 10 * time.Minute

// editTools are the tools whose call the overlap policy counts as an edit.
var editTools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}

// maxEdits bounds the files the overlap policy remembers; the oldest go.
const maxEdits = 4096

// Warning tells one agent about an overlap: for its status line entry and
// its explain.
type Warning struct {
	Agent string
	Text  string
}

type edit struct {
	agent string
	at    time.Time
}

// overlap checks an edit by a against the edits of other live agents in
// the window. It returns the message and the warnings for both sides ("" and
// none when there is no overlap), and the files to note as a's edits once
// the edit is let through.
func (e *Engine) overlap(r Rule, a Agent, ask agentstate.Ask, now time.Time) (string, []Warning, []string) {
	if ask.Point != agentstate.PointPreTool || !toolIn(editTools, ask.Tool) {
		return "", nil, nil
	}
	window := r.Window
	if window <= 0 {
		window = DefaultOverlapWindow
	}
	cwd := ask.Cwd
	if cwd == "" {
		cwd = a.Cwd
	}
	var msgs, files []string
	var warns []Warning
	for _, p := range ask.Paths {
		if !filepath.IsAbs(p) {
			if cwd == "" {
				continue
			}
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		if a.Worktree != "" && a.Repo != "" {
			if rel, err := filepath.Rel(a.Worktree, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				p = filepath.Join(a.Repo, rel)
			}
		}
		var others []string
		for _, ed := range e.edits[p] {
			if ed.agent == a.ID || now.Sub(ed.at) > window || (e.live != nil && !e.live(ed.agent)) || slices.Contains(others, ed.agent) {
				continue
			}
			others = append(others, ed.agent)
			ago := now.Sub(ed.at).Round(time.Second)
			warns = append(warns, Warning{Agent: ed.agent, Text: fmt.Sprintf("overlap: %s also edits %s", a.ID, p)})
			msgs = append(msgs, fmt.Sprintf("%s was edited by agent %s %s ago", p, ed.agent, ago))
		}
		files = append(files, p)
	}
	if len(msgs) == 0 {
		return "", nil, files
	}
	msg := "agentgrid: another agent is working on the same file: " + strings.Join(msgs, "; ")
	if r.Message != "" {
		msg = r.Message + " (" + strings.Join(msgs, "; ") + ")"
	}
	warns = append(warns, Warning{Agent: a.ID, Text: "overlap: " + strings.Join(msgs, "; ")})
	return msg, warns, files
}

// noteEdit records a's edit of p, dropping edits older than the window.
func (e *Engine) noteEdit(p, agent string, now time.Time, window time.Duration) {
	if window <= 0 {
		window = DefaultOverlapWindow
	}
	kept := e.edits[p][:0]
	for _, ed := range e.edits[p] {
		if now.Sub(ed.at) <= window && ed.agent != agent {
			kept = append(kept, ed)
		}
	}
	if _, known := e.edits[p]; !known && len(e.edits) >= maxEdits {
		for k := range e.edits { // drop any one file: a bound, not an order
			delete(e.edits, k)
			break
		}
	}
	e.edits[p] = append(kept, edit{agent: agent, at: now})
}

// SetLive tells the engine which agents are live; the overlap policy
// ignores edits by agents that finished.
func (e *Engine) SetLive(live func(id string) bool) {
	e.mu.Lock()
	e.live = live
	e.mu.Unlock()
}
