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

// TestTmuxDiffReadline runs the same bash in a tmux pane and in a PTY read
// by the emulator, types the same keys into both, and compares the screens
// and cursors. Typed: `echo ⚠️⚠️⚠️`, ctrl+a, right ×7, Y: readline measures
// each ⚠️ as one column (wcwidth), so Y must go in before the third one and
// the cursor must be where readline thinks it is. Then shift+enter, which a
// program without extended keys must receive as enter: bash runs the line.
func TestTmuxDiffReadline(t *testing.T) {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed; the differential suite against tmux needs it (apt-get install tmux)")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	const w, h = 40, 6
	env := []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "TERM=xterm-256color", "LC_ALL=C.UTF-8", "PS1=$ ", "INPUTRC=/dev/null"}
	argv := []string{bash, "--norc", "--noprofile"}

	srv := diffStartTmuxNamed(t, tmuxPath, "readline")
	quoted := make([]string, 0, len(env)+len(argv))
	for _, s := range append(append([]string(nil), env...), argv...) {
		quoted = append(quoted, "'"+s+"'")
	}
	srv.run(t, "new-session", "-d", "-s", "rl", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "env -i "+strings.Join(quoted, " "))
	tmuxScreen := func() (string, string) {
		text, _ := srv.output("capture-pane", "-p", "-t", "rl")
		cur, _ := srv.output("display", "-p", "-t", "rl", "#{cursor_x},#{cursor_y}")
		return strings.TrimRight(string(text), "\n"), strings.TrimSpace(string(cur))
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: w, Rows: h})
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
	ourScreen := func() (string, string) {
		c := term.Cursor()
		return strings.TrimRight(term.Text(), "\n"), fmt.Sprintf("%d,%d", c.X, c.Y)
	}
	send := func(keys ...uv.Key) {
		for _, k := range keys {
			if _, err := ptmx.Write(term.EncodeKey(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	text := func(s string) []uv.Key {
		var ks []uv.Key
		for _, r := range s {
			ks = append(ks, uv.Key{Code: r, Text: string(r)})
		}
		return ks
	}
	// same waits until tmux shows want and the emulator shows what tmux
	// shows, cursor included.
	same := func(step, want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			tt, tc := tmuxScreen()
			ot, oc := ourScreen()
			if strings.Contains(tt, want) && tt == ot && tc == oc {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the screens differ\ntmux (cursor %s):\n%s\nagentgrid (cursor %s):\n%s", step, tc, tt, oc, ot)
			}
			time.Sleep(20 * time.Millisecond) // poll interval, bounded by the deadline
		}
	}

	same("the prompt", "$")
	srv.run(t, "send-keys", "-t", "rl", "-l", "echo ⚠️⚠️⚠️")
	send(text("echo ⚠️⚠️⚠️")...)
	srv.run(t, "send-keys", "-t", "rl", "C-a", "Right", "Right", "Right", "Right", "Right", "Right", "Right")
	send(uv.Key{Code: 'a', Mod: uv.ModCtrl})
	for range 7 {
		send(uv.Key{Code: uv.KeyRight})
	}
	srv.run(t, "send-keys", "-t", "rl", "-l", "Y")
	send(text("Y")...)
	same("Y typed after ctrl+a and right ×7", "⚠️⚠️Y⚠️")
	// A terminal without extended keys sends enter for shift+enter; tmux
	// 3.3a drops the extended form (TestTmuxDiffKeys), so tmux gets Enter.
	srv.run(t, "send-keys", "-t", "rl", "Enter")
	send(uv.Key{Code: uv.KeyEnter, Mod: uv.ModShift})
	same("shift+enter runs the line", "\n⚠️⚠️Y⚠️\n$")
}
