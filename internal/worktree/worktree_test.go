package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// newRepo makes a git repository with one commit and a sub folder.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.invalid"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", ".")
	run("commit", "-q", "-m", "first")
	return dir
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"feat", "fix-1", "a.b_c", strings.Repeat("x", 64)} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "../x", "a/b", "-x", ".x", "a..b", "x.lock", "a b", "a\x1b[2J", strings.Repeat("x", 65), "é", "_x", "x\n"} {
		if err := CheckName(bad); err == nil {
			t.Errorf("CheckName(%q) accepted it", bad)
		}
	}
}

// Create makes the worktree inside the repository on its own branch,
// starting in the same sub folder; the main checkout's status stays clean;
// Remove keeps a worktree with changes and removes a clean one, leaving
// its branch.
func TestCreateAndRemove(t *testing.T) {
	repo := newRepo(t)
	w, err := Create(filepath.Join(repo, "sub"), "feat")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(repo)
	if w.Repo != real || w.Path != filepath.Join(real, ".agentgrid", "worktrees", "feat") || w.Branch != "agentgrid/feat" || w.Cwd != filepath.Join(w.Path, "sub") {
		t.Errorf("Create = %+v", w)
	}
	if RepoOf(w.Path) != w.Repo {
		t.Errorf("RepoOf(%s) = %s", w.Path, RepoOf(w.Path))
	}
	if b, err := git(w.Path, "rev-parse", "--abbrev-ref", "HEAD"); err != nil || b != "agentgrid/feat" {
		t.Errorf("the worktree is on %q (%v)", b, err)
	}
	if st, _ := git(repo, "status", "--porcelain"); st != "" {
		t.Errorf("the main checkout's status shows %q", st)
	}
	if _, err := Create(repo, "feat"); err == nil {
		t.Error("a second worktree of the same name was made")
	}
	if err := os.WriteFile(filepath.Join(w.Path, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Dirty(w.Path); err != nil || !d {
		t.Errorf("Dirty with a new file = %v, %v", d, err)
	}
	if err := Remove(w.Path); err == nil || !strings.Contains(err.Error(), "uncommitted changes") {
		t.Errorf("Remove of a dirty worktree = %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "new.txt")); err != nil {
		t.Fatalf("the dirty worktree's file is gone: %v", err)
	}
	_ = os.Remove(filepath.Join(w.Path, "new.txt"))
	if err := Remove(w.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	if _, err := git(repo, "rev-parse", "--verify", "agentgrid/feat"); err != nil {
		t.Errorf("the branch went with the worktree: %v", err)
	}
}

func TestCreateOutsideARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	_, err := Create(dir, "x")
	// One sentence: what failed and what to do, without git's own
	// "fatal: not a git repository" repeating it.
	want := "a worktree needs a git repository, and " + dir + " is not in one; start the agent from a folder of the repository (or give it one as its cwd)"
	if err == nil || err.Error() != want {
		t.Errorf("Create outside a repository = %v\nwant %s", err, want)
	}
}
