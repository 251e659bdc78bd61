package e2e

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// terminal is another tmux session of the harness's server: a second
// terminal on the same machine, with the same clean environment.
type terminal struct {
	h    *harness
	name string
}

func (h *harness) newTerminal(name string, cols, rows int) *terminal {
	h.t.Helper()
	args := append([]string{"new-session", "-d", "-s", name, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "env", "-i"}, h.env...)
	h.mustTmux(append(args, "/bin/sh")...)
	t := &terminal{h: h, name: name}
	t.waitFor(func(s string) bool { return strings.Contains(s, strings.TrimSpace(prompt)) }, "the shell prompt in "+name)
	return t
}

func (t *terminal) screen() string {
	out, _ := t.h.tmux("capture-pane", "-p", "-t", t.name)
	return out
}

func (t *terminal) run(line string) {
	t.h.t.Helper()
	t.h.mustTmux("send-keys", "-t", t.name, "-l", line)
	t.h.mustTmux("send-keys", "-t", t.name, "Enter")
}

func (t *terminal) keys(keys ...string) {
	t.h.t.Helper()
	t.h.mustTmux(append([]string{"send-keys", "-t", t.name}, keys...)...)
}

func (t *terminal) waitFor(cond func(string) bool, what string) {
	t.h.t.Helper()
	waitFor(t.h.t, 15*time.Second, func() bool { return cond(t.screen()) }, what, t.screen)
}

// pid is the pid of the terminal's shell.
func (t *terminal) pid() int {
	t.h.t.Helper()
	out := strings.TrimSpace(t.h.mustTmux("display-message", "-p", "-t", t.name, "#{pane_pid}"))
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.h.t.Fatalf("pane pid %q: %v", out, err)
	}
	return pid
}

// attachClient is the pid of the agentgrid attach (or watch) running in
// the terminal, 0 when none.
func (t *terminal) attachClient() int {
	for _, p := range descendants(t.pid()) {
		if args := cmdline(p); len(args) > 1 && (args[1] == "attach" || args[1] == "watch") {
			return p
		}
	}
	return 0
}

// TestDetachAttachReadOnly is issue 10's story: ctrl+b d detaches (the
// client exits 0, the agent's process lives on); agentgrid attach in
// another terminal shows the agent's output; kill -9 of that client leaves
// the session running; a read-only client at another size shows every
// pane whole at its size, and what is typed there reaches no pane.
func TestDetachAttachReadOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "marker", "--", "sh", "-c", "echo attach-marker-$((6*7)); exec sleep 300")
	a := h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent's process")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "attach-marker-42") }, "the agent's marker")

	// Detach: the client exits 0, the terminal is the shell's again.
	h.prefix("d")
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(h.capture(), "[detached from session "+h.session) &&
			strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{alternate_on}")) == "0"
	}, "the detach message on the normal screen")
	h.typeText(`echo "rc=$?"`)
	h.keys("Enter")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), "rc=0") }, "the client's exit status 0")
	if err := syscall.Kill(a.PID, 0); err != nil {
		t.Fatalf("the agent's process %d is gone after the detach: %v", a.PID, err)
	}
	if ss, err := h.sessions(); err != nil || len(ss) != 1 || ss[0].Agents != 1 || ss[0].Clients != 0 {
		t.Fatalf("agentgrid ls after the detach: %+v, %v; want one session, one agent, no client", ss, err)
	}

	// Attach from another terminal: the same agent, its output.
	w2 := h.newTerminal("w2", 100, 30)
	w2.run("agentgrid attach")
	w2.waitFor(func(s string) bool { return strings.Contains(s, "attach-marker-42") && strings.Contains(s, "marker") },
		"the agent's marker in the attached terminal")
	// kill -9 of that client is a detach: the session goes on.
	client := w2.attachClient()
	if client == 0 {
		t.Fatal("no agentgrid attach process in the second terminal")
	}
	if err := syscall.Kill(client, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, func() bool {
		ss, err := h.sessions()
		return !alive(client) && err == nil && len(ss) == 1 && ss[0].Clients == 0
	}, "the killed client to be gone and the session to run on with no client", nil)
	if err := syscall.Kill(a.PID, 0); err != nil {
		t.Fatalf("the agent's process %d is gone after the client was killed: %v", a.PID, err)
	}

	// A read-only client at another size: every pane's box whole at 70x20.
	ro := h.newTerminal("ro", 70, 20)
	ro.run("agentgrid attach --read-only")
	ro.waitFor(func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if len(lines) < 19 || !strings.Contains(lines[0], "┌─ 0") || !strings.Contains(lines[0], "┌─ 1") ||
			!strings.HasSuffix(strings.TrimRight(lines[0], " "), "┐") || !strings.HasPrefix(lines[18], "└") ||
			!strings.HasSuffix(strings.TrimRight(lines[18], " "), "┘") {
			return false
		}
		for _, l := range lines {
			if utf8.RuneCountInString(l) > 70 {
				return false
			}
		}
		return strings.Contains(s, "attach-marker-42")
	}, "both panes' boxes whole at the read-only client's 70x20")
	ro.run("echo typed-read-only-$((5*5))")
	ro.keys("C-b", "q") // quitting is not for a read-only client either
	ro.keys("C-b", "x")

	// A read-write client again: what it types runs; what the read-only
	// one typed before it did not.
	h.typeText("agentgrid attach " + h.session)
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "attach-marker-42") }, "the re-attached session")
	h.typeText("echo typed-read-write-$((4*4))")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "typed-read-write-16") }, "the read-write client's command")
	ro.waitFor(func(s string) bool { return strings.Contains(s, "typed-read-write-16") }, "the read-write client's command in the read-only client")
	for _, pane := range []string{"main", id} {
		if out := h.mustClient("capture", pane); strings.Contains(out, "typed-read-only") {
			t.Errorf("the read-only client's keys reached pane %s:\n%s", pane, out)
		}
	}
	if as, err := h.list(); err != nil || len(as) != 1 {
		t.Errorf("agents after the read-only client's ctrl+b x: %+v, %v", as, err)
	}

	// Quit from the read-write client ends the session for every client.
	h.prefix("q")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), "Quit agentgrid?") }, "the quit question")
	h.keys("y")
	ro.waitFor(func(s string) bool { return strings.Contains(s, "[session "+h.session+" quit]") }, "the read-only client told that the session quit")
	h.waitFor(15*time.Second, func() bool { return !alive(a.PID) }, "the agent's process to end with the session")
}

// TestAttachRefusalsAndLs: a pane cannot attach to its own session, even
// with AGENTGRID_SOCKET dropped (the session checks who connects); ls
// removes a socket whose server is gone and lists the live session; with
// no session running, attach says so.
func TestAttachRefusalsAndLs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 40, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "│"+strings.TrimSpace(prompt)) }, "the shell prompt in the main view")
	h.typeText("agentgrid attach; env -u AGENTGRID_SOCKET -u AGENTGRID_TOKEN agentgrid attach " + h.session)
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "this terminal is a pane of session") &&
			strings.Contains(s, "refused: this process runs inside session")
	}, "both refusals in the main view")
	if ss, err := h.sessions(); err != nil || len(ss) != 1 || ss[0].Clients != 1 {
		t.Fatalf("ls after the refusals: %+v, %v; want one session with its one client", ss, err)
	}

	// A socket left by a crashed server: nobody listens on it.
	stale := filepath.Join(h.runtime, "agentgrid", "crashed.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: stale, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	_ = ln.Close()
	ss, err := h.sessions()
	if err != nil || len(ss) != 1 || ss[0].Session != h.session {
		t.Fatalf("ls with a stale socket: %+v, %v; want only %s", ss, err, h.session)
	}
	if _, err := os.Lstat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale socket is still there: %v", err)
	}

	h.prefix("q")
	h.waitFor(15*time.Second, func() bool { return strings.Contains(h.capture(), "[session "+h.session+" quit]") }, "the session to quit")
	h.typeText("agentgrid attach")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(h.capture(), "no agentgrid session is running; start one with agentgrid")
	}, "attach with no session running")
}
