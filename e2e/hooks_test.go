package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	// TOML basic strings accept the same escapes as JSON for what a
	// path or a shell line can hold.
	b, _ := json.Marshal(s)
	return string(b)
}

func TestStatusSetClearAndTTL(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")

	// --socket, as a script in another terminal would name the session.
	h.mustClient("--socket", h.socketPath(), "status", "set", "build", "✓ green")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "✓ green") },
		`"✓ green" in the status line`)

	h.mustClient("status", "clear", "build")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "┌") && !strings.Contains(statusLine(s), "✓ green")
	}, `"✓ green" to leave the status line after status clear`)

	before := time.Now()
	h.mustClient("status", "set", "--ttl", "3s", "flash", "short-lived-entry")
	set := time.Now()
	// The entry lives three seconds; capture as fast as tmux answers so it
	// is seen before it expires. (With one second, a loaded machine took
	// longer than that to draw it and capture the screen.)
	seen := false
	for time.Since(set) < 2900*time.Millisecond {
		if strings.Contains(statusLine(h.capture()), "short-lived-entry") {
			seen = true
			break
		}
	}
	if !seen {
		t.Errorf("the --ttl 3s entry never showed in the status line:\n%s", h.lastScreen())
	}
	h.waitFor(15*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "┌") && !strings.Contains(statusLine(s), "short-lived-entry")
	}, "the --ttl 3s entry to disappear by itself")
	if gone := time.Since(before); gone < 3*time.Second {
		t.Errorf("the --ttl 3s entry disappeared after %v, before its ttl", gone)
	}
}

func TestConfiguredHookRunsOnAgentExit(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	// The hook saves its stdin and environment, then answers set_status.
	script := `cat >"$1/stdin.json"; env >"$1/env.txt"; echo '{"set_status": {"key": "ci", "text": "hook saw exit"}}'`
	cfg := fmt.Sprintf("[[hooks]]\non = [\"agent_exited\"]\nrun = [\"sh\", \"-c\", %s, \"hook\", %s]\ntimeout = \"5s\"\n",
		tomlString(script), tomlString(out))
	h := newHarness(t, 200, 50, cfg)
	h.startSession("--", "sh")

	id := h.spawn("--title", "exiter", "--", "sh", "-c", "echo exiting-now; exit 3")
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.State == "failed" || a.State == "done" },
		"the agent to exit")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(statusLine(h.capture()), "hook saw exit") },
		"the hook's set_status answer in the status line")

	// The status is applied after the hook exits, so its files are complete.
	stdin, err := os.ReadFile(filepath.Join(out, "stdin.json"))
	if err != nil {
		t.Fatalf("the hook left no copy of its stdin: %v", err)
	}
	var ev struct {
		Type  string `json:"type"`
		Agent *struct {
			ID       string `json:"id"`
			ExitCode *int   `json:"exit_code"`
		} `json:"agent"`
	}
	if err := json.Unmarshal(stdin, &ev); err != nil {
		t.Fatalf("the hook's stdin is not one JSON event: %v\n%s", err, stdin)
	}
	if ev.Type != "agent_exited" || ev.Agent == nil || ev.Agent.ID != id {
		t.Errorf("the hook's stdin is %s, want an agent_exited event for %s", stdin, id)
	}
	if ev.Agent != nil && (ev.Agent.ExitCode == nil || *ev.Agent.ExitCode != 3) {
		t.Errorf("the event's exit code is %v, want 3: %s", ev.Agent.ExitCode, stdin)
	}
	env, err := os.ReadFile(filepath.Join(out, "env.txt"))
	if err != nil {
		t.Fatalf("the hook left no copy of its environment: %v", err)
	}
	lines := strings.Split(string(env), "\n")
	for _, want := range []string{"AGENTGRID_EVENT=agent_exited", "AGENTGRID_AGENT_ID=" + id, "AGENTGRID_SOCKET=" + h.socketPath()} {
		if !slices.Contains(lines, want) {
			t.Errorf("the hook's environment lacks %s:\n%s", want, env)
		}
	}
}

// procCmdline returns a process's argv from /proc, or nil when it is gone.
func procCmdline(pid int) []string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

func TestSlowHookKilledAtTimeout(t *testing.T) {
	t.Parallel()
	// The marker ($0 of the shell) tells this test's hook apart from any
	// other sleeper on the machine; the second command keeps the shell
	// from exec'ing sleep in its place.
	marker := fmt.Sprintf("agentgrid-e2e-slow-hook-%d", os.Getpid())
	// The hook writes its shell's pid and its sleep's to a file: the test
	// finds them even when it looks only after the 1s timeout (searching
	// the process tree for them missed them on a loaded machine).
	pidFile := filepath.Join(t.TempDir(), "hook.pids")
	cfg := fmt.Sprintf("[[hooks]]\non = [\"agent_exited\"]\nrun = [\"sh\", \"-c\", %s, %s, %s]\ntimeout = \"1s\"\n",
		tomlString(`echo $$ >>"$1"; sleep 1000 & echo $! >>"$1"; wait; echo never`), tomlString(marker), tomlString(pidFile))
	h := newHarness(t, 200, 50, cfg)
	h.startSession("--", "sh")
	shell := h.panePID()

	// hookProcs finds the hook's shell (by its marker) and its children
	// in this test's own process tree.
	hookProcs := func() []int {
		var found []int
		tree := descendants(shell)
		for _, p := range tree {
			if slices.Contains(procCmdline(p), marker) {
				found = append(found, p)
			}
		}
		for _, p := range tree {
			if pp, _, ok := procStat(p); ok && slices.Contains(found, pp) {
				found = append(found, p)
			}
		}
		return found
	}

	id := h.spawn("--title", "quick", "--", "sh", "-c", "exit 0")
	var procs []int
	h.waitFor(10*time.Second, func() bool {
		procs = procs[:0]
		b, _ := os.ReadFile(pidFile)
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				procs = append(procs, pid)
			}
		}
		return len(procs) >= 2 && strings.HasSuffix(string(b), "\n") // the shell and its sleep
	}, "the slow hook's processes to start")
	started := time.Now()

	// While the hook hangs, the session answers and the main view echoes.
	if _, err := h.client("list"); err != nil {
		t.Errorf("agentgrid list while a hook hangs: %v", err)
	}
	h.typeText("echo responsive-$((20+3))")
	h.keys("Enter")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "responsive-23") },
		"the main view's shell to answer while the hook hangs")

	waitFor(t, 10*time.Second, func() bool {
		for _, p := range procs {
			if alive(p) {
				return false
			}
		}
		return true
	}, "the slow hook's processes to be killed at the 1s timeout", func() string {
		return fmt.Sprintf("hook processes %v, still alive: %v", procs, hookProcs())
	})
	if took := time.Since(started); took > 6*time.Second {
		t.Errorf("the 1s hook was killed only after %v", took)
	}
	h.waitFor(10*time.Second, func() bool {
		return strings.Contains(statusLine(h.capture()), "hook sh on agent_exited")
	}, "the hook failure in the status line")
	if _, ok := h.agent(id); !ok {
		t.Errorf("agent %s is missing from list after the hook failed", id)
	}
	// Shown briefly: the failure entry expires on its own.
	h.waitFor(20*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "┌") && !strings.Contains(statusLine(s), "hook sh on agent_exited")
	}, "the hook failure to leave the status line")
}

// hookCmd runs `agentgrid hook ARGS` with payload on stdin and the given
// environment; it returns stdout, how long it took and the exit error.
// Stdin and stdout are files, not pipes, so no goroutine of this (busy,
// race-instrumented) test process has to feed the hook within its read
// budget or drain it before Wait returns.
func hookCmd(t *testing.T, env []string, payload []byte, args ...string) (string, time.Duration, error) {
	t.Helper()
	dir := t.TempDir()
	in, err := os.CreateTemp(dir, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Write(payload); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	out, err := os.CreateTemp(dir, "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"hook"}, args...)...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout = in, out
	start := time.Now()
	err = cmd.Start()
	started := time.Since(start)
	if err == nil {
		err = cmd.Wait()
	}
	took := time.Since(start)
	if took > time.Second && cmd.ProcessState != nil {
		t.Logf("slow agentgrid hook: start %v, total %v, its CPU user %v sys %v", started, took, cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime())
	}
	printed, rerr := os.ReadFile(out.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return string(printed), took, err
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "agentcli", "claude", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClaudeHookShowsStatusAndWaiting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 200, 50, "")
	h.startSession("--", "sh")
	id := h.spawn("--title", "claude-ish", "--", "cat")
	a := h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.Number > 0 && slices.Contains(liveStates, a.State) },
		"the agent on screen")
	env := append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath(), "AGENTGRID_AGENT_ID="+id)

	send := func(name string) {
		t.Helper()
		out, took, err := hookCmd(t, env, fixture(t, name), "claude")
		if err != nil || out != "" {
			t.Fatalf("agentgrid hook claude < %s: stdout %q, %v", name, out, err)
		}
		t.Logf("agentgrid hook claude < %s took %v", name, took)
	}
	// feed sends a fixture once and waits for its effect. The harness gives
	// the hook a budget no live session misses (hookBudget), and the
	// tokenless hook of this test waits to be identified, so one send
	// must do; the log says why if it did not.
	feed := func(name string, cond func() bool, describe string) {
		t.Helper()
		send(name)
		waitFor(t, 15*time.Second, cond, describe, func() string {
			logged, _ := os.ReadFile(filepath.Join(h.home, ".state", "agentgrid", "agentgrid.log"))
			return h.capture() + "\nagentgrid.log:\n" + string(logged)
		})
	}

	feed("pre_tool_use_bash.json", func() bool {
		s := h.capture()
		return strings.Contains(statusLine(s), id+": Bash: go test ./...") && borderHas(s, "claude-ish", "Bash: go test ./...")
	}, `the PreToolUse status "Bash: go test ./..." in the status line and the pane border`)
	h.waitAgent(id, 5*time.Second, func(a agent) bool { return a.State == "running" }, "the agent running after PreToolUse")

	var w agent
	feed("permission_request.json", func() bool {
		a, ok := h.agent(id)
		w = a
		return ok && a.State == "waiting"
	}, "the agent waiting after PermissionRequest")
	t.Logf("waiting: why %q", w.Why)
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(statusLine(s), "1 waiting") && borderHas(s, "claude-ish", "waiting")
	}, `"1 waiting" in the status line and the waiting badge in the pane border`)

	ex := h.mustClient("explain", id)
	if !strings.Contains(ex, "hook:claude") || !strings.Contains(ex, "waiting") {
		t.Errorf("agentgrid explain %s does not name the hook as the source of waiting:\n%s", id, ex)
	}

	// Focus the pane and type one key: the agent is no longer waiting.
	h.keys("C-b", strconv.Itoa(a.Number))
	h.typeText("y")
	// Running from the key, or idle once its program has been quiet for
	// agents.idle_after (5 s, which a loaded machine can reach before the
	// next look): no longer waiting either way.
	h.waitAgent(id, 10*time.Second, func(a agent) bool { return a.State == "running" || a.State == "idle" }, "the agent no longer waiting after a key")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "claude-ish") && !strings.Contains(statusLine(s), "waiting") && !borderHas(s, "claude-ish", "waiting")
	}, "the waiting count and badge to go after typing")
	ex = h.mustClient("explain", id)
	if !strings.Contains(ex, "input") {
		t.Errorf("agentgrid explain %s after typing does not name the input:\n%s", id, ex)
	}
}

// borderHas reports whether the top border line holding title also holds want.
func borderHas(screen, title, want string) bool {
	for _, line := range strings.Split(screen, "\n") {
		i := strings.Index(line, title)
		if i < 0 || !strings.ContainsAny(line, "┌╭┏") {
			continue
		}
		// Only the part of the line inside this pane's box.
		rest := line[i:]
		if j := strings.IndexAny(rest, "┐╮┓"); j >= 0 {
			rest = rest[:j]
		}
		if strings.Contains(rest, want) {
			return true
		}
	}
	return false
}

func TestClaudeHookQuietWithoutSession(t *testing.T) {
	t.Parallel()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	home := t.TempDir()
	base := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
	gone := filepath.Join(t.TempDir(), "no-session.sock")
	cases := []struct {
		name    string
		env     []string
		payload []byte
	}{
		{"garbage, no session", append(base, "AGENTGRID_SOCKET="+gone, "AGENTGRID_AGENT_ID=a1"), []byte("\x00\xffnot json {{{\n")},
		{"valid payload, no session", append(base, "AGENTGRID_SOCKET="+gone, "AGENTGRID_AGENT_ID=a1"), fixture(t, "pre_tool_use_bash.json")},
		{"garbage, outside any session", base, []byte("garbage")},
		{"empty stdin", append(base, "AGENTGRID_SOCKET="+gone, "AGENTGRID_AGENT_ID=a1"), nil},
	}
	for _, c := range cases {
		out, took, err := hookCmd(t, c.env, c.payload, "claude")
		if err != nil || out != "" {
			t.Errorf("%s: agentgrid hook claude printed %q and ended with %v, want nothing and exit 0", c.name, out, err)
		}
		// The goal is tens of milliseconds; the bound leaves room for a
		// loaded machine running the race detector.
		if took > 2*time.Second {
			t.Errorf("%s: agentgrid hook claude took %v", c.name, took)
		}
		t.Logf("%s: %v", c.name, took)
	}
}
