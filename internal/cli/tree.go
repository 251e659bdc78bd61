package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// treeOrder orders agents as their family tree: each root (started by the
// user, by the main view, or by an agent not in the list) in creation
// order, each followed by its descendants, depth first. depth is 0 for a
// root.
func treeOrder(agents []control.AgentInfo) (ordered []control.AgentInfo, depth []int) {
	known := map[string]bool{}
	for _, a := range agents {
		known[a.ID] = true
	}
	children := map[string][]control.AgentInfo{}
	var roots []control.AgentInfo
	for _, a := range agents {
		if a.Parent == "" || a.Parent == control.MainID || !known[a.Parent] || a.Parent == a.ID {
			roots = append(roots, a)
			continue
		}
		children[a.Parent] = append(children[a.Parent], a)
	}
	seen := map[string]bool{}
	var walk func(a control.AgentInfo, d int)
	walk = func(a control.AgentInfo, d int) {
		if seen[a.ID] {
			return
		}
		seen[a.ID] = true
		ordered, depth = append(ordered, a), append(depth, d)
		for _, c := range children[a.ID] {
			walk(c, d+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	for _, a := range agents { // a cycle has no root: list it flat
		walk(a, 0)
	}
	return ordered, depth
}

// writeAgentTree is the list table with the family tree drawn in the ID
// column; the main view's own agents say so in the PARENT column.
func writeAgentTree(w io.Writer, agents []control.AgentInfo, now time.Time) error {
	ordered, depth := treeOrder(agents)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARENT\t#\tSTATE\tTIME\tEXIT\tTITLE\tWHY")
	for i, a := range ordered {
		id := clean(a.ID, 16)
		if depth[i] > 0 {
			id = strings.Repeat("  ", depth[i]-1) + "└─ " + id
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			id, orDash(clean(a.Parent, 16)), paneSlot(a), clean(string(a.State), 16), agentTime(a, now), exitText(a),
			clean(a.Title, listTitleWidth), clean(whyText(a), listWhyWidth))
	}
	return tw.Flush()
}

// descendantsOf returns id's descendants in agents, deepest first (the
// order to close them in, so that no agent outlives its parent's close).
func descendantsOf(agents []control.AgentInfo, id string) []string {
	ordered, depth := treeOrder(agents)
	var out []string
	var within bool
	var base int
	for i, a := range ordered {
		if a.ID == id {
			within, base = true, depth[i]
			continue
		}
		if within {
			if depth[i] <= base {
				break
			}
			out = append(out, a.ID)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// closeTree closes each id's descendants, deepest first, then id.
func closeTree(ctx context.Context, c *control.Client, ids []string) error {
	agents, err := c.List(ctx)
	if err != nil {
		return fmt.Errorf("close --tree: list the agents: %w", err)
	}
	var errs []error
	for _, id := range ids {
		for _, d := range append(descendantsOf(agents, id), id) {
			if err := c.CloseAgent(ctx, d); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", d, err))
			}
		}
	}
	return errors.Join(errs...)
}

// states lists agents with their states: "a1 (idle), a2 (running)".
func states(agents []control.AgentInfo) string {
	var parts []string
	for _, a := range agents {
		parts = append(parts, clean(a.ID, 16)+" ("+clean(string(a.State), 16)+")")
	}
	return strings.Join(parts, ", ")
}
