package vterm

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/creack/pty"
)

// The live half of the differential suite: the same program runs in a tmux
// pane and in a PTY read by the emulator, the same keys are typed into
// both (into tmux with send-keys, into the emulator's program through its
// key encoder), and the screens and cursors must agree.

// liveDiff is one program running on both sides.
type liveDiff struct {
	t    *testing.T
	srv  *diffTmux
	term *Terminal
	ptmx interface{ Write([]byte) (int, error) }
}

// liveEnv is a small, fixed environment so both sides run alike.
var liveEnv = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "TERM=xterm-256color", "LC_ALL=C.UTF-8", "PS1=$ ", "INPUTRC=/dev/null"}

func startLiveDiff(t *testing.T, name string, w, h int, argv ...string) *liveDiff {
	t.Helper()
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed; the differential suite against tmux needs it (apt-get install tmux)")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Skipf("%s is not installed", argv[0])
	}
	srv := diffStartTmuxNamed(t, tmuxPath, name)
	var quoted []string
	for _, s := range append(append([]string(nil), liveEnv...), argv...) {
		quoted = append(quoted, "'"+s+"'")
	}
	srv.run(t, "new-session", "-d", "-s", "live", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env -i "+strings.Join(quoted, " "))

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = liveEnv
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)})
	if err != nil {
		t.Fatal(err)
	}
	term := New(w, h, WithReplyWriter(ptmx))
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			term.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		ptmx.Close()
	})
	return &liveDiff{t: t, srv: srv, term: term, ptmx: ptmx}
}

// tmuxKeys types into the tmux pane (send-keys arguments; -l for text).
func (d *liveDiff) tmuxKeys(args ...string) {
	d.t.Helper()
	d.srv.run(d.t, append([]string{"send-keys", "-t", "live"}, args...)...)
}

// keys types into the emulator's program through the key encoder.
func (d *liveDiff) keys(keys ...uv.Key) {
	d.t.Helper()
	for _, k := range keys {
		if _, err := d.ptmx.Write(d.term.EncodeKey(k)); err != nil {
			d.t.Fatal(err)
		}
	}
}

// text types s on both sides.
func (d *liveDiff) text(s string) {
	d.t.Helper()
	d.tmuxKeys("-l", s)
	for _, r := range s {
		d.keys(uv.Key{Code: r, Text: string(r)})
	}
}

// same waits until tmux shows want and the emulator shows what tmux shows,
// cursor included.
func (d *liveDiff) same(step, want string) {
	d.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		text, _ := d.srv.output("capture-pane", "-p", "-t", "live")
		cur, _ := d.srv.output("display", "-p", "-t", "live", "#{cursor_x},#{cursor_y}")
		tt, tc := strings.TrimRight(string(text), "\n"), strings.TrimSpace(string(cur))
		c := d.term.Cursor()
		ot, oc := strings.TrimRight(d.term.Text(), "\n"), fmt.Sprintf("%d,%d", c.X, c.Y)
		if strings.Contains(tt, want) && tt == ot && tc == oc {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("%s: the screens differ\ntmux (cursor %s):\n%s\nagentgrid (cursor %s):\n%s", step, tc, tt, oc, ot)
		}
		time.Sleep(20 * time.Millisecond) // poll interval, bounded by the deadline
	}
}

// TestTmuxDiffReadline: in bash, `echo ⚠️⚠️⚠️`, ctrl+a, right ×7, Y.
// readline measures each ⚠️ as one column (wcwidth), so Y must go in before
// the third one and the cursor must be where readline thinks it is. Then
// shift+enter, which a program without extended keys must receive as
// enter: bash runs the line.
func TestTmuxDiffReadline(t *testing.T) {
	d := startLiveDiff(t, "live-bash", 40, 6, "bash", "--norc", "--noprofile")
	d.same("the prompt", "$")
	d.text("echo ⚠️⚠️⚠️")
	d.tmuxKeys("C-a", "Right", "Right", "Right", "Right", "Right", "Right", "Right")
	d.keys(uv.Key{Code: 'a', Mod: uv.ModCtrl})
	for range 7 {
		d.keys(uv.Key{Code: uv.KeyRight})
	}
	d.text("Y")
	d.same("Y typed after ctrl+a and right ×7", "⚠️⚠️Y⚠️")
	// A terminal without extended keys sends enter for shift+enter; tmux
	// 3.3a drops the extended form (TestTmuxDiffKeys), so tmux gets Enter.
	d.tmuxKeys("Enter")
	d.keys(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift})
	d.same("shift+enter runs the line", "\n⚠️⚠️Y⚠️\n$")
}

// TestTmuxDiffPythonKeys: python's prompt gets shift+enter, ctrl+enter and
// ctrl+tab as what a terminal without extended keys sends (enter, enter,
// tab), never the tail of an escape sequence as text.
func TestTmuxDiffPythonKeys(t *testing.T) {
	d := startLiveDiff(t, "live-python", 60, 8, "/usr/bin/python3", "-q")
	d.same("the prompt", ">>>")
	d.text("6*7")
	d.tmuxKeys("Enter")
	d.keys(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift})
	d.same("shift+enter", "42")
	d.text("1+1")
	d.tmuxKeys("Enter")
	d.keys(uv.Key{Code: uv.KeyEnter, Mod: uv.ModCtrl})
	d.same("ctrl+enter", "2\n>>>")
	d.text("x = 5")
	d.tmuxKeys("Tab", "Enter")
	d.keys(uv.Key{Code: uv.KeyTab, Mod: uv.ModCtrl}, uv.Key{Code: uv.KeyEnter})
	d.text("x")
	d.tmuxKeys("Enter")
	d.keys(uv.Key{Code: uv.KeyEnter})
	d.same("ctrl+tab", "\n5\n>>>")
}
