package e2e

import (
	"bufio"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveStates are the states of an agent whose process runs.
var liveStates = []string{"running", "waiting", "idle"}

// waitAgent polls list --json until the agent satisfies cond.
func (h *harness) waitAgent(id string, timeout time.Duration, cond func(agent) bool, describe string) agent {
	h.t.Helper()
	var got agent
	h.waitFor(timeout, func() bool {
		a, ok := h.agent(id)
		got = a
		return ok && cond(a)
	}, describe)
	return got
}

func TestSpawnFromOutsideAppearsAndCaptures(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")

	id := h.spawn("--title", "hello-agent", "--", "sh", "-c", "echo hello-e2e; sleep 30")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "hello-e2e") && strings.Contains(s, "hello-agent")
	}, "the spawned agent's pane with its title and output")

	a := h.waitAgent(id, 5*time.Second, func(a agent) bool { return slices.Contains(liveStates, a.State) },
		"list --json to show the agent alive")
	if a.Title != "hello-agent" || !a.Visible || a.PID <= 0 {
		t.Errorf("list --json shows %+v, want title hello-agent, visible, with a pid", a)
	}
	out := h.mustClient("capture", id)
	if !strings.Contains(out, "hello-e2e") {
		t.Errorf("agentgrid capture %s = %q, want it to contain hello-e2e", id, out)
	}
	plain := h.mustClient("list")
	if !strings.Contains(plain, id) || !strings.Contains(plain, "hello-agent") {
		t.Errorf("agentgrid list does not show %s hello-agent:\n%s", id, plain)
	}
}

func TestTypingReachesMainPane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "│"+strings.TrimSpace(prompt)) },
		"the shell prompt inside the main view")
	// The shell computes 42, so the output cannot be the echo of what was typed.
	h.typeText("echo typed-$((40+2))")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "typed-42") },
		"the main view's shell to run the typed command")
}

// boxWidth measures the width of the pane box whose top border contains
// label, or returns 0 when there is none.
func boxWidth(screen, label string) int {
	for _, line := range strings.Split(screen, "\n") {
		i := strings.Index(line, label)
		if i < 0 {
			continue
		}
		r := []rune(line)
		at := len([]rune(line[:i]))
		left := -1
		for j := at; j >= 0; j-- {
			if r[j] == '┌' || r[j] == '╭' || r[j] == '┏' {
				left = j
				break
			}
		}
		if left < 0 {
			continue
		}
		for j := at; j < len(r); j++ {
			if r[j] == '┐' || r[j] == '╮' || r[j] == '┓' {
				return j - left + 1
			}
		}
	}
	return 0
}

func TestResizeRelayouts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "resize-agent", "--", "sh", "-c", "echo resize-e2e; sleep 60")
	var wide int
	h.waitFor(10*time.Second, func() bool {
		wide = boxWidth(h.capture(), "resize-agent")
		return wide > 0
	}, "the agent's pane box")
	before := h.waitAgent(id, 5*time.Second, func(a agent) bool { return a.PID > 0 }, "the agent's pid")

	h.mustTmux("resize-window", "-t", "e2e", "-x", "120", "-y", "40")
	var narrow int
	h.waitFor(10*time.Second, func() bool {
		narrow = boxWidth(h.capture(), "resize-agent")
		return narrow > 0 && narrow < wide && narrow <= 120
	}, "the agent's pane to get narrower after resizing to 120x40")

	h.mustTmux("resize-window", "-t", "e2e", "-x", "200", "-y", "50")
	h.waitFor(10*time.Second, func() bool { return boxWidth(h.capture(), "resize-agent") == wide },
		"the agent's pane to get back its width after resizing to 200x50")

	after, ok := h.agent(id)
	if !ok || after.PID != before.PID || !alive(after.PID) || !slices.Contains(liveStates, after.State) {
		t.Errorf("after resizing the agent is %+v (alive %v), want the same live process %d", after, alive(after.PID), before.PID)
	}
	if !strings.Contains(h.mustClient("capture", id), "resize-e2e") {
		t.Error("the agent's output was lost across the resizes")
	}
}

func TestQuitLeavesNoProcesses(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	ids := []string{
		h.spawn("--title", "sleeper", "--", "sleep", "300"),
		// Ignores SIGHUP, so quitting has to escalate.
		h.spawn("--title", "stubborn", "--", "sh", "-c", `trap "" HUP; echo stubborn-up; sleep 300`),
	}
	pids := map[int]bool{}
	for _, id := range ids {
		a := h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.PID > 0 && slices.Contains(liveStates, a.State) },
			"agent "+id+" running")
		pids[a.PID] = true
	}
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "stubborn-up") }, "the stubborn agent's output")
	shell := h.panePID()
	for _, p := range descendants(shell) {
		pids[p] = true
	}
	if len(pids) < 4 { // agentgrid, the main view's sh, two agents (and their children)
		t.Fatalf("the session's process tree has only %v", pids)
	}

	h.prefix("q")
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), "Quit agentgrid?") }, "the quit question")
	h.keys("y")
	h.waitFor(15*time.Second, func() bool {
		alt := strings.TrimSpace(h.mustTmux("display-message", "-p", "-t", "e2e", "#{alternate_on}"))
		s := h.capture()
		return alt == "0" && strings.HasPrefix(strings.TrimSpace(statusLine(s)), strings.TrimSpace(prompt)) && !strings.Contains(s, "┌")
	}, "the outer shell's prompt back on the normal screen")
	waitFor(t, 15*time.Second, func() bool {
		for p := range pids {
			if alive(p) {
				return false
			}
		}
		return true
	}, "every process of the session to exit", func() string {
		var left []int
		for p := range pids {
			if alive(p) {
				left = append(left, p)
			}
		}
		return fmt.Sprintf("still alive: %v", left)
	})
	if !alive(shell) {
		t.Error("the outer shell died with agentgrid")
	}
}

func TestTinyTerminalShowsNotice(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 20, 5, "")
	h.startSession("--", "sh")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "too small") }, "the too-small notice at 20x5")
	h.mustTmux("resize-window", "-t", "e2e", "-x", "100", "-y", "30")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "┌") && !strings.Contains(s, "too small")
	}, "the normal drawing after growing to 100x30")
}

func TestSocketGarbageKeepsSessionRunning(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")

	conn, err := net.Dial("unix", h.socketPath())
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	if _, err := conn.Write([]byte("this is not json\n")); err != nil {
		t.Fatal(err)
	}
	reply, err := r.ReadString('\n')
	if err != nil || !strings.Contains(reply, `"error"`) {
		t.Errorf("junk line got reply %q (%v), want a JSON-RPC error", reply, err)
	}
	if _, err := conn.Write([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no.such\"}\n\x00\xff\xfe\x1b[31m\n")); err != nil {
		t.Fatal(err)
	}
	// A 2 MiB line is over the limit: the server may answer with an error
	// and hang up before reading it all, so a failed write is fine.
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = 'x'
	}
	_, _ = conn.Write(append(big, '\n'))
	_ = conn.Close()

	// A client that hangs up mid-request.
	if c2, err := net.Dial("unix", h.socketPath()); err == nil {
		_, _ = c2.Write([]byte(`{"jsonrpc":"2.0","id":7,"method":"agent.wa`))
		_ = c2.Close()
	}

	if _, err := h.client("list"); err != nil {
		t.Fatalf("agentgrid list after garbage on the socket: %v", err)
	}
	c3, err := net.Dial("unix", h.socketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	_ = c3.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c3.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"agent.list"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	reply, err = bufio.NewReader(c3).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"result"`) {
		t.Errorf("a good request after the garbage got %q (%v), want a result", reply, err)
	}
	if !strings.Contains(h.capture(), "┌") {
		t.Error("the session's screen is gone after garbage on the socket")
	}
}

func TestMissingCommandShowsFailedPane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "bogus-cmd", "--", "agentgrid-e2e-no-such-command", "--flag")
	a := h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.State == "failed" }, "the agent to be failed")
	if !strings.Contains(a.Why, "not found") {
		t.Errorf("the failed agent's why is %q, want it to say the command was not found", a.Why)
	}
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "bogus-cmd") && strings.Contains(s, "not found")
	}, "the failed pane with the error")
	if _, err := h.client("list"); err != nil {
		t.Errorf("the session stopped answering after a failed spawn: %v", err)
	}
}

func TestKeysRightAfterFocusSwitchReachNewPane(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "typist", "--", "cat")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.Number > 0 && slices.Contains(liveStates, a.State) },
		"the cat agent on screen")
	a, _ := h.agent(id)
	// One send-keys: the prefix, the pane number and the text arrive
	// together, as from a fast typist or a paste of keystrokes.
	h.keys("C-b", strconv.Itoa(a.Number), "focus-ok", "Enter")
	h.waitFor(10*time.Second, func() bool {
		out, err := h.client("capture", id)
		return err == nil && strings.Contains(out, "focus-ok")
	}, "the text typed after ctrl+b "+strconv.Itoa(a.Number)+" to reach the newly focused agent")
	if out, err := h.client("capture", "main"); err == nil && strings.Contains(out, "focus-ok") {
		t.Errorf("the text typed after the focus switch reached the main view too:\n%s", out)
	}
}

// TestKeysRightAfterGoToAnOffScreenAgentReachIt: the same for an agent
// that is off screen (the grid is full, it waits in the queue): ctrl+b and
// its number swap it into view, and the text typed in the same breath goes
// to it, not to the pane focused before.
func TestKeysRightAfterGoToAnOffScreenAgentReachIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 30, "")
	h.startSession("--", "sh")
	var ids []string
	for i := range 6 {
		ids = append(ids, h.spawn("--title", fmt.Sprintf("job-%d", i+1), "--", "cat"))
	}
	// The agent aN keeps the number N for life, on screen or off.
	var off, num string
	h.waitFor(10*time.Second, func() bool {
		for _, id := range ids {
			if a, ok := h.agent(id); ok && !a.Visible && len(id) == 2 {
				off, num = id, id[1:]
				return true
			}
		}
		return false
	}, "an agent off screen")
	h.keys("C-b", num, "offscreen-ok", "Enter")
	h.waitFor(10*time.Second, func() bool {
		out, err := h.client("capture", off)
		return err == nil && strings.Contains(out, "offscreen-ok")
	}, "the text typed after ctrl+b "+num+" to reach "+off)
	if a, _ := h.agent(off); !a.Visible {
		t.Errorf("%s is still off screen after ctrl+b %s", off, num)
	}
	if out, err := h.client("capture", "main"); err == nil && strings.Contains(out, "offscreen-ok") {
		t.Errorf("the text typed for %s reached the main view:\n%s", off, out)
	}
}
