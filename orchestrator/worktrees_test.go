package orchestrator

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// newGitRepo makes a repository with one empty commit.
func newGitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "first"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo
}

// Two agents in two worktrees of one repository that edit the same file
// (each its own copy, by the paths their tool hooks report) are flagged by
// the overlap policy, as two agents in one checkout are.
func TestOverlapAcrossWorktreesInTheEngine(t *testing.T) {
	repo := newGitRepo(t)
	e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) {
		c.Policies = []config.Policy{{Use: "overlap"}}
	})
	var as []control.AgentInfo
	for _, name := range []string{"w1", "w2"} {
		a, err := e.Spawn(control.SpawnRequest{Cwd: repo, Argv: []string{"cat"}, Worktree: &control.WorktreeSpec{Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		waitAgent(t, e, a.ID, "started", func(in control.AgentInfo) bool { return in.PID > 0 })
		as = append(as, a)
	}
	edit := func(a control.AgentInfo, file string) agentstate.Decision {
		d, err := e.Decide(a.ID, "claude", agentstate.Signal{}, agentstate.Ask{Point: agentstate.PointPreTool, Tool: "Edit", Paths: []string{filepath.Join(a.Worktree, file)}})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := edit(as[0], "api.go"); d.Action != agentstate.ActionNone {
		t.Fatalf("the first edit: %+v", d)
	}
	if d := edit(as[1], "api.go"); d.Action != agentstate.ActionHint || d.Policy != "overlap" || !strings.Contains(d.Message, as[0].ID) {
		t.Errorf("the same file in the other worktree: %+v, want the overlap hint naming %s", d, as[0].ID)
	}
}

// A spawn in a worktree that the engine then refuses (an unknown kind)
// leaves neither the worktree nor its branch behind; one that starts runs
// in the worktree, and its worktree is only removed once it has ended.
func TestSpawnInWorktree(t *testing.T) {
	repo := newGitRepo(t)
	e := newTestEngine(t, nil, nil, nil)
	_, err := e.Spawn(control.SpawnRequest{Cwd: repo, Kind: "no-such-kind", Worktree: &control.WorktreeSpec{Name: "bad"}})
	if err == nil {
		t.Fatal("a spawn of an unknown kind succeeded")
	}
	if _, serr := os.Stat(filepath.Join(repo, ".agentgrid", "worktrees", "bad")); !os.IsNotExist(serr) {
		t.Errorf("the refused spawn left its worktree: %v", serr)
	}
	if exec.Command("git", "-C", repo, "rev-parse", "--verify", "-q", "agentgrid/bad").Run() == nil {
		t.Error("the refused spawn left its branch")
	}

	a, err := e.Spawn(control.SpawnRequest{Cwd: repo, Title: "Fix the Login!", Argv: []string{"sh", "-c", "exec sleep 600"}, Worktree: &control.WorktreeSpec{}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(a.Worktree), "fix-the-login-") || a.Branch != "agentgrid/"+filepath.Base(a.Worktree) || a.Cwd != a.Worktree {
		t.Errorf("spawned %+v, want a worktree named from the title, its branch, and the cwd in it", a)
	}
	if _, err := e.RemoveWorktree(a.ID); err == nil || !strings.Contains(err.Error(), "close it first") {
		t.Errorf("removing a running agent's worktree: %v", err)
	}
	if err := e.Close(a.ID); err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, a.ID, "to end", func(in control.AgentInfo) bool { return in.State.Finished() })
	if path, err := e.RemoveWorktree(a.ID); err != nil || path != a.Worktree {
		t.Fatalf("RemoveWorktree = %q, %v", path, err)
	}
	if _, err := os.Stat(a.Worktree); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if in, _ := e.Agent(a.ID); in.Worktree != "" {
		t.Errorf("the agent still names its removed worktree: %q", in.Worktree)
	}
}
