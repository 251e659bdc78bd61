// Package e2e runs the real agentgrid binary inside detached tmux sessions:
// it types with send-keys, reads the screen with capture-pane, and checks
// the session from outside with the client commands and the socket.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var (
	// binary is the agentgrid binary built once for the whole package.
	binary string
	// skipReason is set when the machine cannot run these tests.
	skipReason string
	// serverSeq numbers the private tmux servers of this test process.
	serverSeq atomic.Int64
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	if _, err := exec.LookPath("tmux"); err != nil {
		skipReason = "tmux is not installed; the end-to-end tests drive agentgrid inside tmux"
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "agentgrid-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: create a directory for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "agentgrid")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build of agentgrid failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// harness is one private tmux server with one window running a shell in an
// isolated environment, from which agentgrid is started.
type harness struct {
	t       *testing.T
	server  string // tmux -L name
	session string // agentgrid --session name
	env     []string
	home    string
	runtime string

	mu   sync.Mutex
	last string // last screen captured, dumped on failure
	// onCapture, when set, sees every screen captured (for tests that
	// follow a value over time, like the queue length).
	onCapture func(screen string)
}

// hookBudget is the tests' $AGENTGRID_HOOK_BUDGET (see newHarness).
const hookBudget = "5s"

// prompt is the shell prompt in the tmux pane; its return proves that
// agentgrid gave the terminal back.
const prompt = "e2e$ "

// newHarness starts a tmux server whose window (cols x rows) runs sh with a
// clean environment: its own HOME and XDG directories, no AGENTGRID_SOCKET.
// config is written to $XDG_CONFIG_HOME/agentgrid/config.toml when not empty.
func newHarness(t *testing.T, cols, rows int, config string) *harness {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	// The socket path must stay short (sun_path), so the runtime directory
	// is not nested under the test's long TempDir name.
	runtime, err := os.MkdirTemp("", "ag-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(runtime) })
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	h := &harness{
		t:       t,
		server:  fmt.Sprintf("agentgrid-e2e-%d-%d", os.Getpid(), serverSeq.Add(1)),
		session: "e2e-" + strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")),
		home:    home,
		runtime: runtime,
	}
	cfgHome := filepath.Join(home, ".config")
	if config != "" {
		if err := os.MkdirAll(filepath.Join(cfgHome, "agentgrid"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cfgHome, "agentgrid", "config.toml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.env = []string{
		"HOME=" + home,
		"PATH=" + filepath.Dir(binary) + ":" + os.Getenv("PATH"),
		"TERM=tmux-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/sh",
		"PS1=" + prompt,
		"XDG_RUNTIME_DIR=" + runtime,
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"XDG_CONFIG_HOME=" + cfgHome,
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		// agentgrid hook waits 200 ms for the session's decision by design;
		// the tests check what it answers, not that a session under the
		// race detector on a loaded machine answers that fast, so every
		// hook of the session's agents and of the tests waits longer.
		"AGENTGRID_HOOK_BUDGET=" + hookBudget,
	}
	args := []string{"new-session", "-d", "-s", "e2e", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "env", "-i"}
	args = append(args, h.env...)
	args = append(args, "/bin/sh")
	h.mustTmux(args...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last screen:\n%s", h.lastScreen())
		}
		// Closing the tmux server hangs up every attached terminal, which
		// only detaches it; the session servers are then ended the way a
		// user would (SIGTERM: the orderly shutdown), and must stop every
		// process they started.
		var tree []int
		if out, err := h.tmux("display-message", "-p", "-t", "e2e", "#{pane_pid}"); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(out)); err == nil {
				tree = descendants(pid)
			}
		}
		servers := h.servers()
		for _, pid := range servers {
			tree = append(append(tree, pid), descendants(pid)...)
		}
		_, _ = h.tmux("kill-server")
		for _, pid := range servers {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		if killed := reapLeftovers(tree); len(killed) > 0 {
			t.Errorf("processes %v were still alive 5s after the terminal closed and the session was ended (killed now)", killed)
		}
	})
	h.waitFor(5*time.Second, func() bool { return strings.Contains(h.capture(), strings.TrimSpace(prompt)) }, "the shell prompt")
	return h
}

// session is the part of `agentgrid ls --json` the tests look at.
type session struct {
	Session string `json:"session"`
	PID     int    `json:"pid"`
	Agents  int    `json:"agents"`
	Clients int    `json:"clients"`
}

// sessions lists the session servers running in the harness's runtime
// directory (agentgrid ls --json).
func (h *harness) sessions() ([]session, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "ls", "--json")
	cmd.Env = h.env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("agentgrid ls --json: %v", err)
	}
	var ss []session
	if err := json.Unmarshal(out, &ss); err != nil {
		return nil, fmt.Errorf("decode agentgrid ls --json output %q: %w", out, err)
	}
	return ss, nil
}

// servers are the pids of the session servers in the harness's runtime
// directory.
func (h *harness) servers() []int {
	ss, _ := h.sessions()
	var pids []int
	for _, s := range ss {
		if s.PID > 0 {
			pids = append(pids, s.PID)
		}
	}
	return pids
}

// tmux runs a tmux command against the harness's private server.
func (h *harness) tmux(args ...string) (string, error) {
	full := append([]string{"-L", h.server, "-f", "/dev/null"}, args...)
	cmd := exec.Command("tmux", full...)
	// The server's socket lives in the test's runtime directory, so it goes
	// away with the test.
	cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "TMUX_TMPDIR="+h.runtime)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func (h *harness) mustTmux(args ...string) string {
	h.t.Helper()
	out, err := h.tmux(args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// capture returns the visible screen of the tmux window.
func (h *harness) capture() string {
	out, err := h.tmux("capture-pane", "-p", "-t", "e2e")
	if err != nil {
		return ""
	}
	h.mu.Lock()
	h.last = out
	f := h.onCapture
	h.mu.Unlock()
	if f != nil {
		f(out)
	}
	return out
}

func (h *harness) lastScreen() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// keys sends tmux key names (C-b, Enter, q).
func (h *harness) keys(keys ...string) {
	h.t.Helper()
	h.mustTmux(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// typeText sends text literally, without a final Enter.
func (h *harness) typeText(s string) {
	h.t.Helper()
	h.mustTmux("send-keys", "-t", "e2e", "-l", s)
}

// prefix sends the prefix key (ctrl+b) and then key.
func (h *harness) prefix(key string) {
	h.t.Helper()
	h.keys("C-b")
	h.keys(key)
}

// waitFor polls cond until it holds or timeout passes; on failure it reports
// what it waited for and the last screen.
func (h *harness) waitFor(timeout time.Duration, cond func() bool, describe string) {
	h.t.Helper()
	waitFor(h.t, timeout, cond, describe, h.capture)
}

// waitFor is the package's only way to wait: poll a condition with a
// deadline. screen, when not nil, is captured for the failure message.
func waitFor(t *testing.T, timeout time.Duration, cond func() bool, describe string, screen func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	delay := 20 * time.Millisecond
	for {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("timed out after %v waiting for %s", timeout, describe)
			if screen != nil {
				msg += "\nlast screen:\n" + screen()
			}
			t.Fatal(msg)
		}
		time.Sleep(delay)
		delay = min(delay*2, 250*time.Millisecond)
	}
}

// socketPath is where the session's control socket listens.
func (h *harness) socketPath() string {
	return filepath.Join(h.runtime, "agentgrid", h.session+".sock")
}

// startSession types `agentgrid --session NAME args...` at the shell prompt
// and waits until the session answers on its socket.
func (h *harness) startSession(args ...string) {
	h.t.Helper()
	line := append([]string{"agentgrid", "--session", h.session}, args...)
	h.run(line)
}

// startDemo types `agentgrid demo --session NAME args...`.
func (h *harness) startDemo(args ...string) {
	h.t.Helper()
	h.run(append([]string{"agentgrid", "demo", "--session", h.session}, args...))
}

func (h *harness) run(argv []string) {
	h.t.Helper()
	h.typeText(shellJoin(argv))
	h.keys("Enter")
	h.waitFor(15*time.Second, func() bool {
		_, err := h.client("list")
		return err == nil
	}, "the session's control socket to answer")
	h.waitFor(10*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "┌") || strings.Contains(s, "too small")
	}, "the session's first frame")
}

// client runs an agentgrid client command against the session from outside
// (as a script in another terminal would) and returns its stdout.
func (h *harness) client(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("agentgrid %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func (h *harness) mustClient(args ...string) string {
	h.t.Helper()
	out, err := h.client(args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

// agent is the part of `agentgrid list --json` the tests look at.
type agent struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	State    string `json:"state"`
	Why      string `json:"why"`
	PID      int    `json:"pid"`
	ExitCode *int   `json:"exit_code"`
	Visible  bool   `json:"visible"`
	Number   int    `json:"number"`
	QueuePos int    `json:"queue_pos"`
}

// list returns the session's agents from `agentgrid list --json`.
func (h *harness) list() ([]agent, error) {
	out, err := h.client("list", "--json")
	if err != nil {
		return nil, err
	}
	var as []agent
	if err := json.Unmarshal([]byte(out), &as); err != nil {
		// Accept an object wrapping the list too.
		var wrapped struct {
			Agents []agent `json:"agents"`
		}
		if err2 := json.Unmarshal([]byte(out), &wrapped); err2 != nil {
			return nil, fmt.Errorf("decode list --json output %q: %w", out, err)
		}
		as = wrapped.Agents
	}
	return as, nil
}

// agent returns one agent by id from list --json.
func (h *harness) agent(id string) (agent, bool) {
	as, err := h.list()
	if err != nil {
		return agent{}, false
	}
	for _, a := range as {
		if a.ID == id {
			return a, true
		}
	}
	return agent{}, false
}

// spawn starts an agent from outside and returns its id.
func (h *harness) spawn(args ...string) string {
	h.t.Helper()
	out := strings.TrimSpace(h.mustClient(append([]string{"spawn"}, args...)...))
	if out == "" || strings.ContainsAny(out, " \n") {
		h.t.Fatalf("agentgrid spawn printed %q, want one agent id", out)
	}
	return out
}

// statusLine returns the last non-blank line of a screen: agentgrid's status line.
func statusLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return lines[i]
		}
	}
	return ""
}

var queuedRE = regexp.MustCompile(`(\d+) queued`)

// queuedCount reads "N queued" from the status line; 0 when absent.
func queuedCount(screen string) int {
	m := queuedRE.FindStringSubmatch(statusLine(screen))
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// shellJoin quotes argv for sh.
func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " '\"\\$`*?[]{}()<>|&;#~!\t") {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
