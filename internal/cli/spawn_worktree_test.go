package cli

import (
	"strings"
	"testing"
)

// TestCLISpawnWorktreeName: --worktree NAME names the worktree whether or
// not a command follows after --, as the README and spawn --help show it
// (agentgrid spawn --worktree fix-login --kind claude --prompt ...); left
// out, or "auto" as in the MCP tool, the session makes the name.
func TestCLISpawnWorktreeName(t *testing.T) {
	b, sock := startCLIServer(t)
	tests := []struct {
		args []string
		name string // "" is a name the session makes
		argv string
	}{
		{[]string{"--worktree", "fix-login", "--kind", "claude", "--prompt", "fix it"}, "fix-login", ""},
		{[]string{"--kind", "claude", "--worktree", "fix-login"}, "fix-login", ""},
		{[]string{"--worktree", "feat", "--", "make", "test"}, "feat", "make test"},
		{[]string{"--worktree=feat", "--", "make", "test"}, "feat", "make test"},
		{[]string{"--worktree", "--", "make", "test"}, "", "make test"},
		{[]string{"--kind", "claude", "--worktree"}, "", ""},
		{[]string{"--worktree", "auto", "--kind", "claude"}, "", ""},
	}
	for i, tt := range tests {
		r := runCLI(t, append([]string{"--socket", sock, "spawn"}, tt.args...)...)
		r.want(t, 0)
		got := b.spawned[i]
		if got.Worktree == nil || got.Worktree.Name != tt.name || strings.Join(got.Argv, " ") != tt.argv {
			t.Errorf("spawn %s: worktree %+v argv %q; want name %q argv %q", strings.Join(tt.args, " "), got.Worktree, got.Argv, tt.name, tt.argv)
		}
	}
}

// TestSpawnHelpShowsTheWorktreeFlag: the optional value of --worktree is
// shown as a NAME, without a control character in the help.
func TestSpawnHelpShowsTheWorktreeFlag(t *testing.T) {
	r := runCLI(t, "spawn", "--help")
	r.want(t, 0)
	if strings.ContainsRune(r.stdout, 0) {
		t.Errorf("spawn --help has a NUL byte: %q", r.stdout)
	}
	if !strings.Contains(r.stdout, `--worktree NAME[="auto"]`) {
		t.Errorf("spawn --help does not show --worktree NAME:\n%s", r.stdout)
	}
}

// TestCLICloseRemoveWorktreeUnknownAgent: close --remove-worktree of an id
// the session does not know says so once, without a second error about
// waiting for it to remove a worktree it never had.
func TestCLICloseRemoveWorktreeUnknownAgent(t *testing.T) {
	_, sock := startCLIServer(t)
	r := runCLI(t, "--socket", sock, "close", "--remove-worktree", "a9")
	r.want(t, 1)
	if want := "agentgrid: close a9: no agent with id \"a9\"\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}
