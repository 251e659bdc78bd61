package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
)

func newPasteCmd() *cobra.Command {
	var index int
	cmd := &cobra.Command{
		Use:   "paste [-b N]",
		Short: "Print what was last copied in the session",
		Long: `paste prints a paste buffer of the session: the text last copied in
scrollback mode (prefix [, v, move, y) or by dragging with the mouse. The
session keeps the last 20 copies; -b N prints an older one (0 is the newest).
The same text was sent to your terminal's clipboard (OSC 52) when copied.`,
		Example: `  agentgrid paste
  agentgrid paste -b 1 > older.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if index < 0 {
				return exitError{exitUsage, fmt.Sprintf("-b must not be negative, not %d", index)}
			}
			return withClient(cmd, func(ctx context.Context, c *control.Client) error {
				r, err := c.Paste(ctx, index)
				if err != nil {
					return fmt.Errorf("paste: %w", err)
				}
				_, err = io.WriteString(cmd.OutOrStdout(), r.Text)
				return err
			})
		},
	}
	cmd.Flags().IntVarP(&index, "buffer", "b", 0, "which buffer: 0 is the newest copy, 1 the one before")
	return cmd
}
