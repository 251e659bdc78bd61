package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestThemeCycleReachesUserThemes: in the real binary, prefix T goes from
// the last built-in theme on to the user's own theme file and names it on
// the status line.
func TestThemeCycleReachesUserThemes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 20, "[ui]\ntheme = \"high-contrast\"\n")
	dir := filepath.Join(h.home, ".config", "agentgrid", "themes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("base = \"nord\"\nstatus_bg = \"#aa0000\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.startSession("--", "sh")
	h.prefix("T")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "theme: mine") }, "the user theme named on the status line")
	h.prefix("T")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "theme: dark") }, "the first built-in theme after the user's")
}

// TestCopyByWordsInTheBinary: in the real binary, v then the word motions
// w and e mark words as tmux's vi copy mode would, and y copies them.
func TestCopyByWordsInTheBinary(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 20, "")
	h.startSession("--", "sh", "-c", `printf 'alpha beta.gamma delta\n'; exec sleep 600`)
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "alpha beta") }, "the pane's line")
	h.prefix("[")
	// The copy cursor starts at the pane's cursor, a row below the line.
	for _, k := range []string{"0", "k", "w", "v", "e", "e", "e", "y"} {
		h.keys(k)
	}
	h.waitFor(10*time.Second, func() bool {
		out, err := h.client("paste")
		return err == nil && out == "beta.gamma"
	}, "the words beta.gamma in the paste buffer")
}
