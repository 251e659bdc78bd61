package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// usageErrors makes flag and argument mistakes exit with status 2, on c and
// its subcommands.
func usageErrors(c *cobra.Command) *cobra.Command {
	c.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		hint := fmt.Sprintf("see %s --help", cmd.CommandPath()) // agentgrid config check, not agentgrid check
		if cmd.Name() == "spawn" {
			hint = "put the command after -- (agentgrid spawn [flags] -- CMD ARGS...)"
		}
		return flagProblem(cmd, err, hint)
	})
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				// The whole command path: a subcommand's Use alone names
				// "agentgrid check" for agentgrid config check.
				return exitError{exitUsage, fmt.Sprintf("%s; usage: %s", argsProblem(cmd, check, args, err), cmd.UseLine())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageErrors(sub)
	}
	return c
}

// argsProblem says in words what is wrong with a command's arguments:
// "agentgrid wait needs more arguments" when one more would do,
// "unexpected argument "x"" when one fewer would, else check's own error.
func argsProblem(cmd *cobra.Command, check cobra.PositionalArgs, args []string, err error) string {
	switch {
	case check(cmd, append(slices.Clone(args), "ID")) == nil:
		if len(args) == 0 {
			return cmd.CommandPath() + " needs an argument"
		}
		return cmd.CommandPath() + " needs more arguments"
	case len(args) > 0 && check(cmd, args[:len(args)-1]) == nil:
		return fmt.Sprintf("unexpected argument %q", args[len(args)-1])
	}
	return err.Error()
}

// withSocketFlag gives c and its subcommands that talk to the session the
// --socket flag. It is each command's own flag, not a global one: the
// session, demo, ls, config, trust, hook, mcp and tmux talk to no session
// named this way, so their help does not offer it and they refuse it. It
// may still come before the command's name (agentgrid --socket S list). A
// group that only lists its subcommands (status) connects to nothing: it
// takes the flag without offering it, so that a mistake after it
// (agentgrid --socket S status bogus) gets its own usage error.
func withSocketFlag(c *cobra.Command) *cobra.Command {
	if c.Runnable() && c.Flags().Lookup("socket") == nil {
		group := c.HasSubCommands() && !c.HasAvailableLocalFlags()
		c.Flags().String("socket", "", "session to talk to: a socket path, or a session name (default $AGENTGRID_SOCKET)")
		if group {
			_ = c.Flags().MarkHidden("socket")
		}
	}
	for _, sub := range c.Commands() {
		withSocketFlag(sub)
	}
	return c
}

// flagProblem is the usage error for a flag mistake on cmd: what was wrong,
// and where to look. --socket given to a command that talks to no session
// says so, rather than only that the flag is unknown.
func flagProblem(cmd *cobra.Command, err error, hint string) error {
	if strings.HasPrefix(err.Error(), "unknown flag: --socket") {
		return exitError{exitUsage, fmt.Sprintf("%s takes no --socket: the flag names the session a client command (spawn, list, attach, ...) talks to; leave it out", cmd.CommandPath())}
	}
	return exitError{exitUsage, fmt.Sprintf("%v; %s", err, hint)}
}
