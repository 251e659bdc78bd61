package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
)

func newStatusCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status set|clear",
		Short: "Set or clear entries of the session's status line",
		Long: `status manages the entries shown in the status line after the agent counts.
Each entry has a KEY; setting a key again replaces its text. Entries scoped to
an agent (--agent) also show in that agent's pane border.`,
		Example: `  agentgrid status set build "✓ green"
  agentgrid status set deploy "rolling out" --ttl 5m
  agentgrid status clear build`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newStatusSetCmd(), newStatusClearCmd())
	return cmd
}

func newStatusSetCmd() *cobra.Command {
	var (
		agent string
		ttl   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "set KEY TEXT...",
		Short: "Set a status line entry (an empty TEXT clears it)",
		Long: `set shows TEXT in the status line under KEY, replacing any earlier text of that
key. Several TEXT arguments are joined with spaces; an empty TEXT clears the
entry. Control characters are removed and long texts are cut. --ttl removes
the entry after that long; --agent scopes it to one agent.`,
		Example: `  agentgrid status set build "✓ green"
  agentgrid status set review waiting for approval --agent a2 --ttl 10m
  agentgrid status set build ""     # clears it`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ttl < 0 {
				return exitError{exitUsage, fmt.Sprintf("--ttl must not be negative, not %s", ttl)}
			}
			text := strings.Join(args[1:], " ")
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				if err := c.SetStatus(ctx, args[0], text, agent, ttl); err != nil {
					return fmt.Errorf("status set %s: %w", args[0], err)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&agent, "agent", "", "scope the entry to this agent (also shown in its pane border)")
	cmd.Flags().DurationVar(&ttl, "ttl", 0, "remove the entry after this long (e.g. 30s, 10m)")
	return cmd
}

func newStatusClearCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "clear KEY...",
		Short:   "Remove status line entries",
		Example: `  agentgrid status clear build`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, keys []string) error {
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				for _, k := range keys {
					if err := c.ClearStatus(ctx, k); err != nil {
						return fmt.Errorf("status clear %s: %w", k, err)
					}
				}
				return nil
			})
		},
	}
}
