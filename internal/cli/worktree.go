package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
)

// worktreeWait bounds how long close --remove-worktree waits for the
// closed agents to end before removing their worktrees.
const worktreeWait = 30 * time.Second

// removeWorktrees waits for the closed agents to end and removes the git
// worktree of each that has one, saying which it removed on w.
func removeWorktrees(ctx context.Context, c *control.Client, ids []string, w io.Writer) error {
	if _, err := c.Wait(ctx, ids, worktreeWait); err != nil {
		return fmt.Errorf("wait for %s to end before removing their worktrees: %w", strings.Join(ids, ", "), err)
	}
	var errs []error
	for _, id := range ids {
		path, err := c.RemoveWorktree(ctx, id)
		if err != nil {
			errs = append(errs, fmt.Errorf("remove the worktree of %s: %w", id, err))
			continue
		}
		fmt.Fprintf(w, "agentgrid: removed worktree %s of %s\n", clean(path, 500), clean(id, 64))
	}
	return errors.Join(errs...)
}
