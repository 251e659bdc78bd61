package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/creack/pty"
)

// TestStartAsksNoProgramAboutTheTerminal: an agentgrid process started on
// a terminal inside tmux runs no other program before it does its work —
// every client command, the tmux entry point in a pane and attach start
// this way, many times a minute. (A library's start-up colour detection
// ran "tmux info", and searched PATH for clipboard programs, in every
// process.) A fake tmux first on PATH records any call.
func TestStartAsksNoProgramAboutTheTerminal(t *testing.T) {
	if skipReason != "" {
		t.Skip(skipReason)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\necho 'Tc: [missing]'\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--version"}, {"hook", "claude"}, {"ls"}} {
		cmd := exec.Command(binary, args...)
		cmd.Env = []string{
			"PATH=" + bin + ":/usr/bin:/bin",
			"HOME=" + dir,
			"XDG_RUNTIME_DIR=" + dir,
			"XDG_STATE_HOME=" + filepath.Join(dir, "state"),
			"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
			"TERM=xterm-256color",
			"TMUX=" + filepath.Join(dir, "tmux-socket") + ",1,0",
		}
		f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, f) // until the process closes the terminal (EIO)
		err = cmd.Wait()
		_ = f.Close()
		if err != nil {
			t.Errorf("agentgrid %v on a terminal: %v", args, err)
		}
	}
	if b, err := os.ReadFile(calls); err == nil {
		t.Errorf("agentgrid ran tmux on start: %q", b)
	}
}
