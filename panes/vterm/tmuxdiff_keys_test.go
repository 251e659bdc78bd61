package vterm

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/creack/pty"
)

// The key half of the differential suite: a key that agentgrid's outer
// terminal reports in extended form (shift+enter, ctrl+tab, ctrl+1 …) is
// typed into a real tmux through a client attached to it (the client runs
// in a pane of a second tmux, which types the outer terminal's bytes), and
// the bytes tmux hands its pane are read back from `dd` in raw mode. The
// same key goes through agentgrid's encoder into `dd` in a PTY of our own.
// Both pane states are tried: a program that enabled nothing, and one that
// enabled modifyOtherKeys (CSI > 4 ; 1 m).

type keyDiffCase struct {
	name  string
	key   uv.Key
	outer string // what a terminal with modifyOtherKeys sends tmux for the key
	// dropped is what agentgrid sends a program without extended keys
	// where tmux 3.3a, given the extended form, sends nothing: what a
	// terminal without extended keys types (tmux's default, extended-keys
	// off, never asks its terminal for them, so its panes get these).
	dropped string
	// accept explains a difference from tmux with modifyOtherKeys on.
	accept string
}

var keyDiffCases = []keyDiffCase{
	{name: "shift+enter", key: uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift}, outer: "\x1b[27;2;13~", dropped: "\r"},
	{name: "ctrl+enter", key: uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl}, outer: "\x1b[27;5;13~", dropped: "\r"},
	{name: "ctrl+shift+enter", key: uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl | uv.ModShift}, outer: "\x1b[27;6;13~", dropped: "\r"},
	{name: "alt+enter", key: uv.Key{Code: uv.KeyEnter, Mod: uv.ModAlt}, outer: "\x1b[27;3;13~"},
	{name: "ctrl+tab", key: uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl}, outer: "\x1b[27;5;9~", dropped: "\t"},
	{name: "ctrl+shift+tab", key: uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl | uv.ModShift}, outer: "\x1b[27;6;9~", dropped: "\x1b[Z"},
	{name: "shift+tab", key: uv.Key{Code: uv.KeyTab, Mod: uv.ModShift}, outer: "\x1b[Z"},
	{name: "ctrl+1", key: uv.Key{Code: '1', Mod: uv.ModCtrl}, outer: "\x1b[27;5;49~", dropped: "1"},
	{name: "ctrl+9", key: uv.Key{Code: '9', Mod: uv.ModCtrl}, outer: "\x1b[27;5;57~", dropped: "9"},
	{name: "ctrl+0", key: uv.Key{Code: '0', Mod: uv.ModCtrl}, outer: "\x1b[27;5;48~", dropped: "0"},
	{name: "ctrl+2", key: uv.Key{Code: '2', Mod: uv.ModCtrl}, outer: "\x1b[27;5;50~",
		accept: "with modifyOtherKeys 1 agentgrid keeps the C0 byte (NUL) that the key has in every terminal; tmux 3.3a sends the extended form"},
	{name: "ctrl+space", key: uv.Key{Code: uv.KeySpace, Mod: uv.ModCtrl}, outer: "\x1b[27;5;32~"},
	{name: "ctrl+a", key: uv.Key{Code: 'a', Mod: uv.ModCtrl}, outer: "\x01"},
}

// keyDiffStates are the pane states tried: the bytes the program writes
// first, and tmux's extended-keys option (needed for tmux to pass extended
// keys to a program that asked for them).
var keyDiffStates = []struct {
	name, setup string
	extended    bool
}{
	{name: "no-extended-keys", setup: ""},
	{name: "modifyOtherKeys", setup: "\x1b[>4;1m", extended: true},
}

func TestTmuxDiffKeys(t *testing.T) {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed; the differential suite against tmux needs it (apt-get install tmux)")
	}
	for _, st := range keyDiffStates {
		t.Run(st.name, func(t *testing.T) {
			want := keyDiffTmux(t, tmuxPath, st.name, st.setup, st.extended)
			got := keyDiffAgentgrid(t, st.setup)
			for i, c := range keyDiffCases {
				tm, ag := want[i], got[i]
				t.Logf("%-16s tmux %-14q agentgrid %q", c.name, tm, ag)
				switch {
				case tm == "" && st.extended:
					t.Errorf("%s: tmux sent nothing to a program with modifyOtherKeys; the case is wrong", c.name)
				case tm == "":
					if ag != c.dropped {
						t.Errorf("%s: tmux drops the key; agentgrid sent %q, want what a terminal without extended keys types, %q", c.name, ag, c.dropped)
					}
				case keyDiffSame(tm, ag):
				case st.extended && c.accept != "":
					t.Logf("%s: accepted difference (%s)", c.name, c.accept)
				default:
					t.Errorf("%s: agentgrid sent %q, tmux %q", c.name, ag, tm)
				}
			}
		})
	}
}

var keyDiffExtended = regexp.MustCompile(`^\x1b\[(?:27;(\d+);(\d+)~|(\d+);(\d+)u)$`)

// keyDiffSame compares two encodings of a key. tmux 3.3a writes extended
// keys as CSI code;mod u, agentgrid as xterm's CSI 27;mod;code ~ (the form
// xterm sends a program that asked for modifyOtherKeys); both name the same
// key and modifiers, and programs that enable modifyOtherKeys read both.
func keyDiffSame(a, b string) bool {
	if a == b {
		return true
	}
	ka, oka := keyDiffParse(a)
	kb, okb := keyDiffParse(b)
	return oka && okb && ka == kb
}

func keyDiffParse(s string) ([2]int, bool) {
	m := keyDiffExtended.FindStringSubmatch(s)
	if m == nil {
		return [2]int{}, false
	}
	if m[1] != "" {
		return [2]int{diffAtoi(m[2], -1), diffAtoi(m[1], -1)}, true
	}
	return [2]int{diffAtoi(m[3], -1), diffAtoi(m[4], -1)}, true
}

// keyDiffMarker follows every key so the reader knows where its bytes end.
func keyDiffMarker(i int) string { return fmt.Sprintf("#%d#", i) }

// keyDiffTmux returns, per case, the bytes tmux handed its pane.
func keyDiffTmux(t *testing.T, tmuxPath, state, setup string, extended bool) []string {
	dir := t.TempDir()
	out := filepath.Join(dir, "pane.out")
	setupFile := filepath.Join(dir, "setup.bin")
	if err := os.WriteFile(setupFile, []byte(setup), 0o600); err != nil {
		t.Fatal(err)
	}
	inner := diffStartTmuxNamed(t, tmuxPath, "keys-in-"+state)
	ext := "off"
	if extended {
		ext = "on"
	}
	inner.run(t, "set", "-g", "extended-keys", ext, ";",
		"new-session", "-d", "-s", "k", "-x", "80", "-y", "20",
		fmt.Sprintf(`stty raw -echo; cat '%s'; printf '\033]2;ready\033\\'; exec dd bs=1 status=none of='%s'`, setupFile, out))
	keyDiffWait(t, "the tmux pane to start", func() bool {
		b, err := inner.output("display", "-p", "-t", "k", "#{pane_title}")
		return err == nil && strings.TrimSpace(string(b)) == "ready"
	})
	outerSrv := diffStartTmuxNamed(t, tmuxPath, "keys-out-"+state)
	outerSrv.run(t, "new-session", "-d", "-s", "o", "-x", "80", "-y", "22",
		fmt.Sprintf("env -u TMUX TERM=xterm-256color '%s' -L '%s' -f /dev/null attach -t k", tmuxPath, inner.socket))
	keyDiffWait(t, "the tmux client to attach", func() bool {
		b, err := inner.output("list-clients", "-F", "#{client_name}")
		return err == nil && strings.TrimSpace(string(b)) != ""
	})
	r := &keyDiffReader{t: t, read: func() []byte { b, _ := os.ReadFile(out); return b }}
	// A first marker: the client has finished starting once it arrives.
	outerSrv.run(t, "send-keys", "-t", "o", "-l", keyDiffMarker(-1))
	r.next(keyDiffMarker(-1))
	got := make([]string, len(keyDiffCases))
	for i, c := range keyDiffCases {
		args := []string{"send-keys", "-t", "o", "-H"}
		for _, b := range []byte(c.outer) {
			args = append(args, fmt.Sprintf("%02x", b))
		}
		outerSrv.run(t, args...)
		outerSrv.run(t, "send-keys", "-t", "o", "-l", keyDiffMarker(i))
		got[i] = r.next(keyDiffMarker(i))
	}
	return got
}

// keyDiffAgentgrid returns, per case, the bytes agentgrid's encoder sends a
// program that wrote setup, as read by dd in a real PTY in raw mode.
func keyDiffAgentgrid(t *testing.T, setup string) []string {
	term := New(80, 20)
	term.Write([]byte(setup))
	out := filepath.Join(t.TempDir(), "pane.out")
	cmd := exec.Command("sh", "-c", fmt.Sprintf(`stty raw -echo; printf ready; exec dd bs=1 status=none of='%s'`, out))
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	})
	var shown bytes.Buffer
	buf := make([]byte, 64)
	for !strings.Contains(shown.String(), "ready") {
		_ = ptmx.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := ptmx.Read(buf)
		if err != nil {
			t.Fatalf("waiting for the PTY to be raw: %v (read %q)", err, shown.String())
		}
		shown.Write(buf[:n])
	}
	r := &keyDiffReader{t: t, read: func() []byte { b, _ := os.ReadFile(out); return b }}
	got := make([]string, len(keyDiffCases))
	for i, c := range keyDiffCases {
		if _, err := ptmx.Write(append(term.EncodeKey(c.key), keyDiffMarker(i)...)); err != nil {
			t.Fatal(err)
		}
		got[i] = r.next(keyDiffMarker(i))
	}
	return got
}

// keyDiffReader hands out what a pane received between markers.
type keyDiffReader struct {
	t    *testing.T
	read func() []byte
	off  int
}

func (r *keyDiffReader) next(marker string) string {
	r.t.Helper()
	var seg string
	keyDiffWait(r.t, "marker "+strconv.Quote(marker), func() bool {
		b := r.read()
		if r.off > len(b) {
			return false
		}
		i := bytes.Index(b[r.off:], []byte(marker))
		if i < 0 {
			return false
		}
		seg = string(b[r.off : r.off+i])
		r.off += i + len(marker)
		return true
	})
	return seg
}

// keyDiffWait polls cond until it holds, failing after a generous deadline.
func keyDiffWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // poll interval, bounded by the deadline
	}
}
