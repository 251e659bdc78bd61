package cli

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/agentgrid/agentgrid/internal/control"
)

// rootHelp runs the whole agentgrid command line with args and returns
// what it printed.
func rootHelp(t *testing.T, args ...string) string {
	t.Helper()
	root := newRootCmd("test")
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		t.Fatalf("agentgrid %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// TestEveryCommandHasHelpAndExamples: every command the top-level help
// lists (hook, mcp, tmux and ls too) has a summary and examples.
func TestEveryCommandHasHelpAndExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		if c.Short == "" || c.Example == "" {
			t.Errorf("%s lacks a Short or an Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range newRootCmd("test").Commands() {
		walk(c)
	}
}

// TestRawArgumentCommandsShowTheirHelp: hook and tmux read their arguments
// raw, so --help alone must still print the help rather than nothing (hook)
// or tmux's "unknown option" (tmux).
func TestRawArgumentCommandsShowTheirHelp(t *testing.T) {
	for _, args := range [][]string{{"hook", "--help"}, {"hook", "-h"}, {"hook", "claude", "--help"}, {"hook", "codex", "-h"}, {"tmux", "--help"}, {"tmux", "-h"}} {
		out := rootHelp(t, args...)
		if !strings.Contains(out, "Usage:\n  agentgrid "+args[0]) || !strings.Contains(out, "Examples:") {
			t.Errorf("agentgrid %s printed %q, want its help", strings.Join(args, " "), out)
		}
	}
}

// TestHookHelpIsNotAPayload: the hook's fast start (no command tree) hands
// a request for help to the command tree and a payload to the hook.
func TestHookHelpIsNotAPayload(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"claude", "--help"}, {"gemini", "-h"}} {
		if !hookHelp(args) {
			t.Errorf("hookHelp(%q) = false, want the help", args)
		}
	}
	for _, args := range [][]string{{"claude"}, {"codex", `{"type":"agent-turn-complete"}`}, {"claude", "--rewake"}, {"codex", "--help", "x"}} {
		if hookHelp(args) {
			t.Errorf("hookHelp(%q) = true, want a hook call", args)
		}
	}
}

// TestMCPHelpListsEveryTool: agentgrid mcp --help names every tool the
// server offers.
func TestMCPHelpListsEveryTool(t *testing.T) {
	out := strings.Join(strings.Fields(rootHelp(t, "mcp", "--help")), " ")
	for _, tool := range control.MCPTools {
		if !strings.Contains(out, tool) {
			t.Errorf("agentgrid mcp --help does not name %s:\n%s", tool, out)
		}
	}
}

// TestRootHelpShowsDetachAndAttach: the first help a user reads shows how
// to come back to a session that runs on after ctrl+b d.
func TestRootHelpShowsDetachAndAttach(t *testing.T) {
	out := rootHelp(t, "--help")
	for _, want := range []string{"ctrl+b d detaches", "agentgrid ls", "agentgrid attach work"} {
		if !strings.Contains(out, want) {
			t.Errorf("agentgrid --help lacks %q", want)
		}
	}
}

// TestSocketFlagOnlyWhereItNamesASession: --socket is offered (in --help)
// and accepted only by the commands that talk to a session through it;
// every other command (demo above all) neither lists it nor takes it, and
// says why. Before or after the command's name, it reaches the command.
func TestSocketFlagOnlyWhereItNamesASession(t *testing.T) {
	want := map[string]bool{}
	for _, p := range []string{"spawn", "list", "wait", "close", "send", "capture", "status set", "status clear",
		"explain", "watch", "attach", "kill-session", "loop", "loop stop", "loop resume", "paste", "kinds"} {
		want["agentgrid "+p] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		f := c.Flag("socket")
		if offered := f != nil && !f.Hidden; offered != want[c.CommandPath()] {
			t.Errorf("%s: offers --socket %v, want %v", c.CommandPath(), offered, want[c.CommandPath()])
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd("test"))

	for _, args := range [][]string{{"demo"}, {}, {"ls"}, {"config", "check"}, {"trust"}, {"mcp"}, {"tmux"}, {"hook"}, {"status"}} {
		if out := rootHelp(t, append(args, "--help")...); strings.Contains(out, "--socket") {
			t.Errorf("agentgrid %s --help offers --socket:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := rootHelp(t, "spawn", "--help"); !strings.Contains(out, "--socket") {
		t.Errorf("agentgrid spawn --help does not offer --socket:\n%s", out)
	}

	for _, args := range [][]string{{"demo", "--socket", "x"}, {"--socket", "x", "demo"}, {"ls", "--socket", "x"}, {"--socket", "x"}, {"--socket", "x", "config", "check"}} {
		root := newRootCmd("test")
		root.SetOut(new(bytes.Buffer))
		root.SetErr(new(bytes.Buffer))
		root.SetArgs(args)
		var ee exitError
		if err := root.Execute(); !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(ee.msg, "takes no --socket") {
			t.Errorf("agentgrid %s: %v, want a usage error that it takes no --socket", strings.Join(args, " "), err)
		}
	}

	// Before the name of a command that takes it, or after: both name the
	// session (here one that is not running).
	gone := filepath.Join(t.TempDir(), "gone.sock")
	for _, args := range [][]string{{"--socket", gone, "list"}, {"list", "--socket", gone}, {"--socket", gone, "status", "set", "k", "v"}, {"loop", "stop", "a1", "--socket", gone}} {
		r := runCLI(t, args...)
		if r.code != 1 || !strings.Contains(r.stderr, gone) {
			t.Errorf("agentgrid %s: exit %d, %q; want exit 1 naming %s", strings.Join(args, " "), r.code, r.stderr, gone)
		}
	}
}
