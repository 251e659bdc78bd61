package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/layout"
)

// wordText is the pane the word-motion tests move over: separators inside
// and between words, an underscore (a word character), a blank line, a
// line that starts with blanks, wide characters, and a prompt last.
const wordText = "foo.bar  baz_qux (x) -- end\n\n   last-word here\nwide 日本語 x;y\n$ "

// wordKeys are the presses compared, each from where the one before left
// the copy cursor: every motion forwards from the first cell to the last
// line and beyond, then backwards to the first cell and beyond.
var wordKeys = strings.Split(strings.Repeat("w", 18)+strings.Repeat("b", 19)+strings.Repeat("e", 18)+
	strings.Repeat("B", 12)+strings.Repeat("E", 12)+strings.Repeat("B", 12)+strings.Repeat("W", 12)+"bbbeewwBBE"+strings.Repeat("w", 10)+"bbeE", "")

// copyCursorAt is where the model's copy cursor is, as (column, line).
func copyCursorAt(m *Model) string {
	s := m.scroll[control.MainID]
	if s == nil || !s.sel.cursor {
		return "none"
	}
	return fmt.Sprintf("%d,%d", s.sel.col, s.sel.line)
}

// wordModel is a session whose main view (38x21 inside its border) shows
// wordText, in scrollback mode with the copy cursor on the first cell.
func wordModel(t *testing.T) *Model {
	t.Helper()
	return wordModelOf(t, wordText)
}

// wordModelOf is wordModel with text of the test's own.
func wordModelOf(t *testing.T, text string) *Model {
	t.Helper()
	snap := testSnapshot()
	main := testPane(control.MainID, 0, agentstate.Running, layout.Rect{X: 0, Y: 0, W: 40, H: 23}, text)
	snap.Main = &main
	m, _ := newTestModel(t, snap)
	press(t, m, "ctrl+b", "[", "0")
	for range 25 {
		press(t, m, "k")
	}
	if got := copyCursorAt(m); got != "0,0" {
		t.Fatalf("the copy cursor starts at %s, want 0,0", got)
	}
	return m
}

// TestCopyWordMotions: w, b, e, W, B and E move the copy cursor to where
// tmux's vi copy mode (3.3a, its default word-separators) puts its cursor
// for the same presses over the same text; the positions were taken from
// tmux and TestCopyWordMotionsMatchTmux checks them against it.
func TestCopyWordMotions(t *testing.T) {
	want := strings.Fields(`
		3,0 4,0 9,0 17,0 18,0 19,0 21,0 24,0 3,2 7,2 8,2 13,2 0,3 5,3 12,3 13,3 14,3 0,4 14,3 13,3 12,3
		5,3 0,3 13,2 8,2 7,2 3,2 24,0 21,0 19,0 18,0 17,0 9,0 4,0 3,0 0,0 0,0 2,0 3,0 6,0 15,0 17,0
		18,0 19,0 22,0 26,0 6,2 7,2 11,2 16,2 3,3 9,3 12,3 13,3 14,3 12,3 5,3 0,3 13,2 3,2 24,0 21,0
		17,0 9,0 0,0 0,0 0,0 6,0 15,0 19,0 22,0 26,0 11,2 16,2 3,3 9,3 14,3 0,4 0,20 0,4 12,3 5,3 0,3
		13,2 3,2 24,0 21,0 17,0 9,0 0,0 0,0`)
	m := wordModel(t)
	for i, k := range wordKeys[:len(want)] {
		press(t, m, k)
		if got := copyCursorAt(m); got != want[i] {
			t.Fatalf("press %d (%s in %s): the copy cursor is at %s, want %s", i+1, k, strings.Join(wordKeys[:i+1], ""), got, want[i])
		}
	}
}

// TestCopyWordMotionsMatchTmux presses the same keys in tmux's vi copy mode
// over the same text at the same size and compares the cursor after each.
func TestCopyWordMotionsMatchTmux(t *testing.T) {
	wordsMatchTmux(t, wordText, wordKeys)
}

// TestCopyWordMotionsOverWrappedLines: a word that a soft wrap split over
// two rows is one word for w, b and e (and W, B, E), as in tmux; a wrap at
// a blank or before a wide character that did not fit still separates.
func TestCopyWordMotionsOverWrappedLines(t *testing.T) {
	text := strings.Repeat("x", 34) + " alpha-beta gamma\n" + strings.Repeat("y", 37) + " next word\n" +
		strings.Repeat("z", 37) + "日本 end\n$ "
	keys := strings.Split(strings.Repeat("w", 14)+strings.Repeat("b", 15)+strings.Repeat("e", 14)+
		strings.Repeat("B", 8)+strings.Repeat("E", 8)+strings.Repeat("B", 8)+strings.Repeat("W", 8), "")
	wordsMatchTmux(t, text, keys)
}

// wordsMatchTmux shows text in a tmux pane and in the model's main view,
// both 38x21, presses keys in both copy modes from the first cell and
// compares the cursors after each press.
func wordsMatchTmux(t *testing.T, text string, keys []string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "text")
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(text, "\n", "\r\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	// A private server (-L: its socket in tmux's own short directory, as
	// sun_path needs), in a UTF-8 locale so that the wide characters are.
	server := fmt.Sprintf("agentgrid-words-%d-%d", os.Getpid(), tmuxWordServers.Add(1))
	env := append(os.Environ(), "LC_ALL=C.UTF-8")
	tmux := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("tmux", append([]string{"-L", server, "-f", "/dev/null"}, args...)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// The pane prints the text raw (no newline translation) and then waits.
	tmux("new-session", "-d", "-x", "38", "-y", "21", "env", "LC_ALL=C.UTF-8", "sh", "-c", "stty raw -echo; cat "+file+"; exec cat")
	// tmux leaves its socket behind when the server ends: remove it too.
	sock := tmux("display", "-p", "#{socket_path}")
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", server, "kill-server").Run()
		_ = os.Remove(sock)
	})
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(tmux("capture-pane", "-p"), "$") {
		if time.Now().After(deadline) {
			t.Fatalf("tmux's pane never showed the text: %q", tmux("capture-pane", "-p"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	tmux("set", "-g", "mode-keys", "vi")
	tmux("copy-mode")
	tmux("send", "-X", "history-top")
	tmux("send", "-X", "start-of-line")

	m := wordModelOf(t, text)
	for i, k := range keys {
		tmux("send", k)
		want := tmux("display", "-p", "#{copy_cursor_x},#{copy_cursor_y}")
		var x, y int
		if _, err := fmt.Sscanf(want, "%d,%d", &x, &y); err != nil {
			t.Fatalf("tmux's cursor %q: %v", want, err)
		}
		// tmux's e can stop on the right half of a wide character; that is
		// the character's cell, which agentgrid names by its left half.
		if row := lineCells(m.pane(control.MainID).Term, y, y); len(row) == 1 && x > 0 && x < len(row[0]) && row[0][x].Width == 0 {
			want = fmt.Sprintf("%d,%d", x-1, y)
		}
		press(t, m, k)
		if got := copyCursorAt(m); got != want {
			t.Fatalf("press %d (%s in %s): agentgrid's copy cursor is at %s, tmux's at %s", i+1, k, strings.Join(keys[:i+1], ""), got, want)
		}
	}
}

// tmuxWordServers numbers the tmux servers of the word-motion tests.
var tmuxWordServers atomic.Int64

// TestCopyWordMotionsScrollAndMark: b from the top row of the view goes on
// into the history and the view follows; v then e marks one word, and y
// copies it.
func TestCopyWordMotionsScrollAndMark(t *testing.T) {
	var text strings.Builder
	for i := range 30 {
		fmt.Fprintf(&text, "line %02d alpha-beta\n", i)
	}
	snap := testSnapshot()
	main := testPane(control.MainID, 0, agentstate.Running, layout.Rect{X: 0, Y: 0, W: 40, H: 23}, text.String())
	snap.Main = &main
	m, _ := newTestModel(t, snap)
	m.buffers = control.NewBuffers()
	press(t, m, "ctrl+b", "[", "0")
	for range 20 {
		press(t, m, "k")
	}
	s := m.scroll[control.MainID]
	top := main.Term.ScrollbackLen()
	if s.offset != 0 || s.sel.line != top {
		t.Fatalf("the copy cursor is on line %d at offset %d, want the view's top line %d at 0", s.sel.line, s.offset, top)
	}
	press(t, m, "b")
	if s.sel.line != top-1 || s.sel.col != 14 || s.offset != 1 {
		t.Fatalf("b from the view's top: cursor %d,%d at offset %d, want 14,%d (\"beta\" a line up) at offset 1", s.sel.col, s.sel.line, s.offset, top-1)
	}
	press(t, m, "B", "v", "E")
	out := rawOutput(press(t, m, "y"))
	if got := osc52Text(t, out); got != "alpha-beta" {
		t.Errorf("B v E y copied %q, want %q", got, "alpha-beta")
	}
}

// TestCopyCursorShowsWhereItMoved: each move of the copy cursor, also one
// that changes nothing else on screen, puts the real cursor where it is.
func TestCopyCursorShowsWhereItMoved(t *testing.T) {
	m := wordModel(t)
	for _, c := range []struct {
		key  string
		x, y int
	}{{"l", 2, 1}, {"l", 3, 1}, {"w", 4, 1}, {"w", 5, 1}, {"e", 7, 1}, {"b", 5, 1}, {"j", 5, 2}, {"0", 1, 2}} {
		press(t, m, c.key)
		if m.cursor == nil || m.cursor.X != c.x || m.cursor.Y != c.y {
			t.Fatalf("after %s the cursor is drawn at %+v, want (%d, %d)", c.key, m.cursor, c.x, c.y)
		}
	}
}
