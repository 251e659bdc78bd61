package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// quit ends the session with prefix q (and y when it asks, which it does
// while agents run) and waits for the shell prompt.
func (h *harness) quit() {
	h.t.Helper()
	h.prefix("q")
	asked := false
	h.waitFor(15*time.Second, func() bool {
		s := h.capture()
		if !asked && strings.Contains(s, "Quit agentgrid?") {
			h.keys("y")
			asked = true
		}
		alt := strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{alternate_on}"))
		return alt == "0" && clientExited(s, "[session "+h.session+" quit]")
	}, "the client's quit message and a fresh prompt after it")
}

// clientExited tells whether the screen ends with the line a finished
// client printed (what, e.g. "[session NAME quit]") and then an empty
// prompt. The normal screen comes back before the client exits, and its
// last line is then the prompt the session was started from, so "ends with
// a prompt" alone does not show that the shell has the terminal again.
func clientExited(screen, what string) bool {
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	n := len(lines)
	return n >= 2 && lines[n-1] == strings.TrimSpace(prompt) && strings.Contains(lines[n-2], what)
}

// shell clears the screen, runs a command line at the outer shell and
// waits until output holding want appears.
func (h *harness) shell(line, want string) {
	h.t.Helper()
	h.typeText("clear; " + line)
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), want) }, fmt.Sprintf("%q after %q", want, line))
}

func exists(t *testing.T, path string) bool {
	t.Helper()
	_, err := os.Stat(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// A .agentgrid.toml planted in a directory does not run its [[startup]]
// until the user trusts it; the session says so in its status line. A
// change to the file, or a group-writable mode, makes it ignored again.
func TestPlantedProjectConfigNeedsTrust(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 140, 30, "")
	dir := t.TempDir()
	local := filepath.Join(dir, ".agentgrid.toml")
	marker := filepath.Join(dir, "marker")
	planted := func(marker string) string {
		return fmt.Sprintf("[[startup]]\ntitle = \"planted\"\ncommand = [\"sh\", \"-c\", \"touch %s; exec sleep 300\"]\n", marker)
	}
	if err := os.WriteFile(local, []byte(planted(marker)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.shell("cd "+shellJoin([]string{dir})+" && echo in-$((1+1))", "in-2")

	// Not trusted: ignored, and the status line says which file and what to run.
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(statusLine(h.capture()), "ignored .agentgrid.toml (not trusted); to apply it: agentgrid trust")
	}, "the ignored-file notice in the status line")
	if as, err := h.list(); err != nil || len(as) != 0 {
		t.Errorf("the untrusted file's startup agent exists: %v %v", as, err)
	}
	if exists(t, marker) {
		t.Fatal("the untrusted file's [[startup]] command ran")
	}
	h.quit()

	// Trusted: applied.
	h.shell("agentgrid trust", "trusted "+local)
	h.startSession("--", "sh")
	waitFor(t, 15*time.Second, func() bool { return exists(t, marker) }, "the trusted file's [[startup]] to create the marker", h.capture)
	if s := h.capture(); strings.Contains(s, "ignored .agentgrid.toml") {
		t.Errorf("a trusted file was reported ignored:\n%s", s)
	}
	h.quit()

	// Changed since trusted: ignored again.
	marker2 := filepath.Join(dir, "marker2")
	if err := os.WriteFile(local, []byte(planted(marker2)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(statusLine(h.capture()), "ignored .agentgrid.toml (changed since trusted)")
	}, "the changed-file notice in the status line")
	if as, err := h.list(); err != nil || len(as) != 0 || exists(t, marker2) {
		t.Fatalf("the changed file's startup ran: agents %v, err %v", as, err)
	}
	h.quit()

	// Trusted but group-writable: refused all the same.
	h.shell("agentgrid trust", "trusted "+local)
	if err := os.Chmod(local, 0o664); err != nil {
		t.Fatal(err)
	}
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(statusLine(h.capture()), "ignored .agentgrid.toml: it is writable by group or others")
	}, "the group-writable notice in the status line")
	if as, err := h.list(); err != nil || len(as) != 0 || exists(t, marker2) {
		t.Fatalf("the group-writable file's startup ran: agents %v, err %v", as, err)
	}
	h.quit()
	// The line is left on the terminal for after the session, too.
	if s := h.capture(); !strings.Contains(s, "agentgrid: ignored .agentgrid.toml: it is writable by group or others") {
		t.Errorf("the notice is not on the terminal after the session:\n%s", s)
	}
}
