// Package worktree gives an agent a git worktree of its own: a new branch
// checked out in a folder of the repository, so that agents working in
// parallel do not edit each other's files.
//
// A worktree lives in <repository>/.agentgrid/worktrees/NAME on the branch
// agentgrid/NAME. Inside the repository rather than beside it: it needs no
// write access outside the folder the user works in, sits on the same file
// system (git links its objects), is found where the user looks, and goes
// with the repository. The folder .agentgrid gets a .gitignore of "*", so
// the worktrees never show in the main checkout's git status, and tools
// that skip hidden folders (go ./..., ripgrep) do not walk them.
package worktree

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Dir is the folder of a repository that holds the agents' worktrees.
const Dir = ".agentgrid/worktrees"

// BranchPrefix starts the name of every branch made for a worktree.
const BranchPrefix = "agentgrid/"

// gitTimeout bounds one git command.
const gitTimeout = 30 * time.Second

// CheckName reports whether name may name a worktree: 1 to 64 letters,
// digits, '.', '_' or '-', starting with a letter or digit, without ".."
// and not ending in ".lock" (git's rules for a branch, and a plain folder
// name: no path can be smuggled in).
func CheckName(name string) error {
	if !nameChars(name) || strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") {
		return fmt.Errorf("worktree name %q: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (no \"..\", not ending in .lock)", name)
	}
	return nil
}

// nameChars reports whether name is 1 to 64 letters, digits, '.', '_' or
// '-' (ASCII), starting with a letter or digit. A loop rather than a
// regular expression: compiling one with a bounded repeat took a quarter
// of a millisecond at the start of every agentgrid process, a hook's too.
func nameChars(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// Worktree is an agent's worktree.
type Worktree struct {
	Repo   string // the repository's top folder (its main checkout)
	Path   string // the worktree's folder
	Branch string // its branch
	// Cwd is where the agent starts: the folder it asked for, at the same
	// place inside the worktree.
	Cwd string
}

// Create makes worktree name for the repository that holds dir, on a new
// branch from the repository's HEAD, and returns it.
func Create(dir, name string) (Worktree, error) {
	if err := CheckName(name); err != nil {
		return Worktree{}, err
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		// git's own "fatal: not a git repository (or any of the parent
		// directories): .git" says the same again; keep other reasons
		// (git missing, a broken repository).
		if strings.Contains(err.Error(), "not a git repository") {
			return Worktree{}, fmt.Errorf("a worktree needs a git repository, and %s is not in one; start the agent from a folder of the repository (or give it one as its cwd)", dir)
		}
		return Worktree{}, fmt.Errorf("a worktree needs a git repository, and %s is not in one: %w", dir, err)
	}
	// A worktree of a worktree is made from the main checkout.
	common, err := git(dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err == nil && filepath.Base(common) == ".git" {
		top = filepath.Dir(common)
	}
	rel, err := filepath.Rel(top, realPath(dir))
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = "."
	}
	w := Worktree{Repo: top, Path: filepath.Join(top, Dir, name), Branch: BranchPrefix + name}
	w.Cwd = filepath.Join(w.Path, rel)
	if _, err := os.Lstat(w.Path); err == nil {
		return Worktree{}, fmt.Errorf("worktree %s exists already: choose another name, or remove it (agentgrid close --remove-worktree, or git worktree remove %s)", w.Path, w.Path)
	}
	if err := os.MkdirAll(filepath.Join(top, Dir), 0o755); err != nil {
		return Worktree{}, fmt.Errorf("create %s: %w", filepath.Join(top, Dir), err)
	}
	ignore := filepath.Join(top, ".agentgrid", ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, os.ErrNotExist) {
		_ = os.WriteFile(ignore, []byte("# agentgrid's agent worktrees: not part of the repository\n*\n"), 0o644)
	}
	if _, err := git(top, "worktree", "add", "-b", w.Branch, w.Path, "HEAD"); err != nil {
		return Worktree{}, fmt.Errorf("create worktree %s on branch %s: %w", w.Path, w.Branch, err)
	}
	if _, err := os.Stat(w.Cwd); err != nil {
		w.Cwd = w.Path // the folder is not in the repository's HEAD
	}
	return w, nil
}

// Dirty reports whether the worktree at path has changes git would lose:
// modified, staged or untracked files.
func Dirty(path string) (bool, error) {
	out, err := git(path, "status", "--porcelain", "--untracked-files=normal")
	if err != nil {
		return false, err
	}
	return out != "", nil
}

// Remove removes the worktree at path unless it has changes; its branch
// stays, with whatever was committed on it.
func Remove(path string) error {
	dirty, err := Dirty(path)
	if err != nil {
		return fmt.Errorf("check worktree %s: %w", path, err)
	}
	if dirty {
		return fmt.Errorf("worktree %s has uncommitted changes, so it is kept: commit or discard them, then remove it again (or git worktree remove --force %s)", path, path)
	}
	if _, err := git(path, "worktree", "remove", path); err != nil {
		return fmt.Errorf("remove worktree %s: %w", path, err)
	}
	return nil
}

// RepoOf is the repository of a worktree made by Create, from its path.
func RepoOf(path string) string {
	return filepath.Dir(filepath.Dir(filepath.Dir(path)))
}

// git runs git in dir and returns its trimmed output; an error carries
// git's own message.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(msg)
		}
		return "", err
	}
	return strings.TrimSpace(stdout.String()), nil
}

// realPath resolves symbolic links in p, as git does for the top folder.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// Discard removes a worktree Create just made and its branch, which holds
// nothing yet: for a spawn that failed after it.
func Discard(w Worktree) {
	_, _ = git(w.Repo, "worktree", "remove", "--force", w.Path)
	_, _ = git(w.Repo, "branch", "-D", w.Branch)
}

// NameFor makes a worktree name from text (an agent's title or command):
// its letters and digits, joined by '-', cut short, and suffix.
func NameFor(text, suffix string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(text) {
		if b.Len() >= 32 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case b.Len() > 0 && !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "agent"
	}
	return name + "-" + suffix
}
