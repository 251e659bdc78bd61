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

// writeAgentTree is the list table with the family tree drawn in the ID
// column; the main view's own agents say so in the PARENT column.
func writeAgentTree(w io.Writer, agents []control.AgentInfo, now time.Time) (err error) {
	w, done := buffer(w)
	defer done(&err)
	ordered, depth := control.TreeOrder(agents)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARENT\t#\tSTATE\tTIME\tEXIT\tTITLE\tWHY")
	for i, a := range ordered {
		id := control.TreeLabel(clean(a.ID, 16), depth[i])
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			id, orDash(clean(a.Parent, 16)), paneSlot(a), clean(string(a.State), 16), agentTime(a, now), exitText(a),
			clean(a.Title, listTitleWidth), clean(whyText(a), listWhyWidth))
	}
	return tw.Flush()
}

// descendantsOf returns id's descendants in agents, deepest first (the
// order to close them in, so that no agent outlives its parent's close).
func descendantsOf(agents []control.AgentInfo, id string) []string {
	ordered, depth := control.TreeOrder(agents)
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
