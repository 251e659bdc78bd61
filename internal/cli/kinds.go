package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
)

func newKindsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "kinds",
		Short: "List the session's kinds and categories, with their limits' usage",
		Long: `kinds lists every kind ([kinds.NAME]) and category ([categories.NAME]) of the
session: what it runs (a category's kind and model), its description, how many
of its agents run and wait, and the concurrency limits that hold them with
their usage now (limits.models, limits.providers, limits.kinds, limits.default,
most specific first). Spawn one with agentgrid spawn --kind or --category.`,
		Example: `  agentgrid kinds
  agentgrid kinds --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				res, err := c.Kinds(ctx)
				if err != nil {
					return fmt.Errorf("kinds: %w", err)
				}
				if asJSON {
					return writeJSON(cmd.OutOrStdout(), res)
				}
				return writeKinds(cmd.OutOrStdout(), res)
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// writeKinds prints `agentgrid kinds`: one line per kind, then per
// category.
func writeKinds(w io.Writer, res control.KindsResult) (err error) {
	w, done := buffer(w)
	defer done(&err)
	ew := &errWriter{w: w}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNS\tRUNNING\tQUEUED\tLIMITS\tDESCRIPTION")
	for _, k := range res.Kinds {
		name, runs := clean(k.Name, 40), "kind"
		if k.Category {
			runs = clean(k.Kind, 40)
			if k.Model != "" {
				runs += ", model " + clean(k.Model, 80)
			}
			if len(k.Fallback) > 0 {
				runs += "; then " + clean(strings.Join(k.Fallback, ", "), 120)
			}
		}
		limits := make([]string, 0, len(k.Limits))
		for _, l := range k.Limits {
			limits = append(limits, fmt.Sprintf("%s %d/%d", clean(strings.TrimPrefix(l.Name, "limits."), 120), l.Used, l.Max))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", name, runs, k.Running, k.Queued, orDash(strings.Join(limits, ", ")), orDash(clean(k.Description, 120)))
	}
	_ = tw.Flush()
	ew.printf("%s agents wait to start (for a limit or a pane), %s for a pane in the grid\n", strconv.Itoa(res.Pending), strconv.Itoa(res.Queued))
	return ew.err
}
