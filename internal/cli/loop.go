package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// loopFlags are the flags that describe a loop, shared by `agentgrid loop`
// and `agentgrid spawn --loop`.
type loopFlags struct {
	on       bool // spawn --loop
	promise  string
	max      int
	cooldown time.Duration
	forever  bool
	forD     time.Duration
	task     string
	todos    bool
	stall    int
}

func (lf *loopFlags) add(f *pflag.FlagSet, spawn bool) {
	if spawn {
		f.BoolVar(&lf.on, "loop", false, "run the agent in a continuation loop (needs --promise and --max, or --forever --for)")
	}
	f.StringVar(&lf.promise, "promise", "", "the loop ends when the agent's final message has <promise>TEXT</promise>")
	f.IntVar(&lf.max, "max", 0, "the loop runs at most N turns, the first included (required unless --forever)")
	f.DurationVar(&lf.cooldown, "cooldown", 0, "wait this long after a turn before the next one")
	f.BoolVar(&lf.forever, "forever", false, "no bound on the turns; --for DURATION then bounds the time")
	f.DurationVar(&lf.forD, "for", 0, "stop the loop once it has run this long")
	task := "the task repeated in every continuation (default: the last prompt the agent was given)"
	if spawn {
		task = "the loop's task for an agent started without --prompt (default: --prompt)"
	}
	f.StringVar(&lf.task, "task", "", task)
	f.BoolVar(&lf.todos, "while-todos", false, "Claude Code: go on while its todo list has open items; none open is a success (--promise becomes optional)")
	f.IntVar(&lf.stall, "stall", 0, fmt.Sprintf("with --while-todos: stop after K continuations in a row that complete no todo item (default %d)", control.DefaultLoopStall))
}

// spec checks the flags and makes them a loop spec.
func (lf *loopFlags) spec() (control.LoopSpec, error) {
	s := control.LoopSpec{
		Promise: lf.promise, Max: lf.max, Forever: lf.forever, Task: lf.task, WhileTodos: lf.todos, Stall: lf.stall,
		CooldownMS: lf.cooldown.Milliseconds(), ForMS: lf.forD.Milliseconds(),
	}
	if lf.forD > 0 && s.ForMS == 0 {
		s.ForMS = 1
	}
	if err := s.Check(); err != nil {
		return s, exitError{exitUsage, err.Error()}
	}
	return s, nil
}

// used reports whether any loop flag was set without --loop (spawn).
func (lf *loopFlags) used(f *pflag.FlagSet) bool {
	for _, n := range []string{"promise", "max", "cooldown", "forever", "for", "task", "while-todos", "stall"} {
		if f.Changed(n) {
			return true
		}
	}
	return false
}

func newLoopCmd() *cobra.Command {
	var (
		lf     loopFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "loop ID --promise TEXT --max N [--cooldown D] [--forever --for D] [--task TEXT] [--while-todos [--stall K]]",
		Short: "Keep an agent on its task until it writes the completion promise",
		Long: `loop runs agent ID in a continuation loop. After each turn the agent finishes,
the session looks at the turn's final assistant message:

  - you typed into the pane since the last continuation: the loop pauses;
  - the agent waits for you (a permission prompt, a question): it pauses and
    says so in the status line;
  - the message contains <promise>TEXT</promise> exactly: the loop succeeded;
  - the loop ran --max turns (or --for its time): it stops (a success if
    the promise is there);
  - otherwise the agent gets the continuation: the iteration (k/N), the task
    and the promise's format.

With --while-todos (Claude Code), the loop also succeeds once the agent's
TodoWrite list has no open items, and stops after --stall continuations in a
row that complete none; --promise is optional then.

Esc or ctrl+c typed into the pane pauses the loop at once; it never resumes
by itself: run agentgrid loop resume ID. A Claude Code agent started with
--kind claude goes on through its Stop hook's answer; other agents get the
continuation typed into their pane once they are idle. The first turn counts
as iteration 1: a loop started on an idle agent sends it at once.

--max is required: no loop runs without a bound. --forever drops it, and
then needs --for DURATION.`,
		Example: `  agentgrid loop a2 --promise DONE --max 10
  agentgrid loop a2 --promise SHIPPED --forever --for 2h --cooldown 30s --task "make CI green"
  agentgrid loop stop a2
  agentgrid loop resume a2`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := lf.spec()
			if err != nil {
				return err
			}
			return runLoop(cmd, control.LoopParams{ID: args[0], Op: control.LoopStart, LoopSpec: spec}, asJSON)
		},
	}
	lf.add(cmd.Flags(), false)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the loop as JSON")
	for _, op := range []struct{ name, short string }{
		{control.LoopStop, "Stop an agent's loop (it does not start again)"},
		{control.LoopResume, "Resume an agent's paused loop: the next turn starts now if the agent is idle"},
	} {
		var subJSON bool
		sub := &cobra.Command{
			Use:     op.name + " ID",
			Short:   op.short,
			Example: "  agentgrid loop " + op.name + " a2",
			Args:    cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runLoop(cmd, control.LoopParams{ID: args[0], Op: op.name}, subJSON)
			},
		}
		sub.Flags().BoolVar(&subJSON, "json", false, "print the loop as JSON")
		cmd.AddCommand(sub)
	}
	return cmd
}

func runLoop(cmd *cobra.Command, p control.LoopParams, asJSON bool) error {
	return withClient(cmd, func(ctx context.Context, c *control.Client) error {
		l, err := c.Loop(ctx, p)
		if err != nil {
			return fmt.Errorf("loop %s %s: %w", p.Op, p.ID, err)
		}
		if asJSON {
			return writeJSON(cmd.OutOrStdout(), l)
		}
		writeLoopLine(cmd.OutOrStdout(), p.ID, l)
		return nil
	})
}

// writeLoopLine prints a loop in one line: "a2 loop 3/10 running: continued: iteration 3".
func writeLoopLine(w io.Writer, id string, l control.LoopInfo) {
	label := l.Label()
	if l.Status == control.LoopRunning {
		label += " running"
	}
	fmt.Fprintf(w, "%s %s: %s\n", clean(id, 64), clean(label, 80), clean(l.Reason, 200))
}

// withLoopFlags gives spawn the loop flags, which put the loop into p
// before the command runs.
func withLoopFlags(cmd *cobra.Command, p *control.SpawnParams) {
	lf := &loopFlags{}
	lf.add(cmd.Flags(), true)
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error { return spawnLoop(cmd, lf, p) }
}

// spawnLoop puts spawn's loop flags into p.
func spawnLoop(cmd *cobra.Command, lf *loopFlags, p *control.SpawnParams) error {
	if !lf.on {
		if lf.used(cmd.Flags()) {
			return exitError{exitUsage, "--promise, --max, --cooldown, --forever, --for, --task, --while-todos and --stall describe a loop: add --loop"}
		}
		return nil
	}
	spec, err := lf.spec()
	if err != nil {
		return err
	}
	if p.Prompt == "" && spec.Task == "" {
		return exitError{exitUsage, "a loop needs its task: give --prompt (with --kind) or --task"}
	}
	p.Loop = &spec
	return nil
}
