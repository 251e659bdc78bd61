package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRepo makes a git repository with one commit in dir.
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// spawn --worktree NAME runs the agent in <repo>/.agentgrid/worktrees/NAME
// on the branch agentgrid/NAME, which its border shows; close
// --remove-worktree keeps the worktree while it has uncommitted changes and
// removes it once clean, keeping the branch.
func TestSpawnInAWorktree(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 140, 30, "")
	repo := filepath.Join(h.home, "repo")
	gitRepo(t, repo)
	h.startSession("--", "sh")
	id := h.spawn("--worktree", "feat", "--cwd", repo, "--title", "wt-agent", "--",
		"sh", "-c", `echo "on=$(git branch --show-current)"; case $(pwd) in */repo/.agentgrid/worktrees/feat) echo in=worktree;; esac; echo scratch > notes.txt; exec sleep 600`)
	wt := filepath.Join(repo, ".agentgrid", "worktrees", "feat")
	h.waitFor(15*time.Second, func() bool {
		out, err := h.client("capture", id)
		return err == nil && strings.Contains(out, "on=agentgrid/feat") && strings.Contains(out, "in=worktree")
	}, "the agent running on its branch in its worktree")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "⎇ agentgrid/feat") }, "the branch in the pane's border")
	var got []struct {
		ID, Worktree, Branch string
	}
	if err := json.Unmarshal([]byte(h.mustClient("list", "--json")), &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range got {
		found = found || a.ID == id && a.Worktree == wt && a.Branch == "agentgrid/feat"
	}
	if !found {
		t.Errorf("list --json: %+v, want %s in %s on agentgrid/feat", got, id, wt)
	}
	if st, _ := exec.Command("git", "-C", repo, "status", "--porcelain").Output(); len(st) != 0 {
		t.Errorf("the main checkout's status shows %q", st)
	}
	// notes.txt is uncommitted: the worktree stays.
	_, err := h.client("close", "--remove-worktree", id)
	if err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("close --remove-worktree of a dirty worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(wt, "notes.txt")); err != nil {
		t.Fatalf("the dirty worktree lost its file: %v", err)
	}
	if err := os.Remove(filepath.Join(wt, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	h.mustClient("close", "--remove-worktree", id)
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if err := exec.Command("git", "-C", repo, "rev-parse", "--verify", "-q", "agentgrid/feat").Run(); err != nil {
		t.Errorf("the branch went with the worktree: %v", err)
	}
	// A name that is a path is refused before anything is made.
	if _, err := h.client("spawn", "--worktree=../evil", "--cwd", repo, "--", "true"); err == nil || !strings.Contains(err.Error(), "worktree name") {
		t.Errorf("spawn --worktree=../evil: %v", err)
	}
}
